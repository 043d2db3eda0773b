// `merge` of `scope` outputs (schema histoscope.histogram2d, docs/SCOPES.md): the 2-D counts of
// objects that share their kind, channel, standard and both axes are added cell by cell, with
// the same checks as histogram records: every count a whole number within 2^63-1, every sum
// checked, a summary at the end of each input (unless allowPartial), the same source (file and
// frame) in two inputs warned of (refused under strict).
#pragma once

#include "app/cli/OutputSink.h"

#include <QStringList>

// Whether `path` starts with a scope record (so merge reads it as one).
bool isScopeOutput(const QString& path);

struct ScopeMergeResult {
    QStringList problems;  // nothing may be written when there is one
    QStringList warnings;
};

// Reads every input, then (when nothing is wrong) writes the merged objects and their summary.
// `written`: the output's write error, when there was one.
ScopeMergeResult mergeScopeOutputs(const QStringList& inputs, bool allowPartial, bool strict, OutputSink& sink,
                                   const QString& output, Error& written);
