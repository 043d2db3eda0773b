// The options of `histoscope-cli batch`, read and checked before any file is opened.
#pragma once

#include "app/cli/BatchInputs.h"
#include "app/cli/CliOptions.h"
#include "app/core/RecordCodec.h"
#include "io/MemoryBudget.h"

#include <memory>

#include <QCommandLineParser>

struct BatchOptions {
    CommonAction action = CommonAction::Run;  // --help or --version instead of a run
    CliHistogramOptions histogram;
    BatchInputOptions inputs;
    RecordFormat format = RecordFormat::JsonLines;
    bool longLayout = false;  // --layout long: one row per bin (RecordCodec::longCsvLines)
    bool perFrame = false;
    QString output;  // empty: stdout
    QString equalizeDir;
    QString plotDir;
    bool allDevices = false;
    int jobs = 1;
    QString jobsNote;          // said on stderr when -j was capped
    double fileTimeout = 120;  // seconds without progress before a file is abandoned; 0: never
    std::uint64_t fileBudget = 0;  // memory one file may take: the whole budget
    // The budget the jobs share: a file waits for room in it rather than failing (io/MemoryBudget.h).
    std::shared_ptr<MemoryPool> memory;
};

// Jobs above this many per core only add memory (each holds decoded frames), not speed.
inline constexpr int kJobsPerCore = 4;

// False with `error` set for a usage error; true with `action` set when --help or --version was asked.
bool parseBatchOptions(const QStringList& arguments, QCommandLineParser& parser, BatchOptions& options, Error& error);
