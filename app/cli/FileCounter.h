// The worker half of `batch`: opens one file, counts its frames on this thread's engine, and
// streams its records into the job; also writes the file's plot and equalized image.
#pragma once

#include "app/cli/BatchOptions.h"
#include "app/cli/FileJob.h"

struct FileOutputs {
    QString plot;       // empty: none
    QString equalized;  // empty: none
};

void countFile(FileJob& job, const BatchOptions& options, const FileOutputs& outputs);
