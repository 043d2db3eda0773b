// Expands batch arguments into an ordered file list: folders (optionally recursive) filtered by
// glob patterns, then the share of a shard (`--shard i/n`: every n-th file from the i-th).
#pragma once

#include <QStringList>

struct BatchInputOptions {
    bool recursive = false;
    QStringList include;   // globs on the file name; empty: any known image, video or .npy
    QStringList exclude;
    int shardIndex = 0;
    int shardCount = 1;
    bool acceptAnyFile = false;  // raw mode: any file is data
};

// Missing paths are returned in `missing` and not in the list.
QStringList expandInputs(const QStringList& paths, const BatchInputOptions& options, QStringList& missing);
