// Expands batch arguments into an ordered file list: folders (optionally recursive) filtered by
// glob patterns, then the share of a shard (`--shard i/n`: every n-th file from the i-th).
// Every path named or found is either in the list or in `failed` as an Error that names it:
// unreadable folders, files that are not regular, broken links and links that leave the folder given.
// Names are handled as bytes (io/NativePath.h); each file is listed once, however reached.
#pragma once

#include "common/Error.h"

#include <QList>
#include <QStringList>

struct BatchInputOptions {
    bool recursive = false;
    bool followLinks = false;  // let symbolic links lead out of the folder given
    QStringList include;       // globs on the file name; empty: any known image, video or .npy
    QStringList exclude;
    int shardIndex = 0;
    int shardCount = 1;
    bool acceptAnyFile = false;  // raw mode: any file is data
    QString stdinName;           // the argument that names standard input ("-"), if one does
    QString stdinCopy;           // where its copy is (StdinInput)
};

struct InputFile {
    QString path;      // as found: the folder given joined with the names under it; "-" for stdin
    QString relative;  // under the folder given; the file name for a file named directly
    bool named = false;   // given as a file, not found in a folder
    QString openPath;     // where to read it, when not `path` (stdin's copy); empty: path
    QString source() const { return openPath.isEmpty() ? path : openPath; }
};

struct ExpandedInputs {
    QList<InputFile> files;
    QList<Error> failed;        // each names its path as the source
    QStringList notes;          // e.g. one file reached twice, counted once
    QStringList walkedFolders;  // canonical paths of the folders given, to keep outputs out
    // Found in a folder but not taken, so that every entry is accounted for: files whose name is
    // not a known image, video or .npy (and no --include took them), files --include or
    // --exclude left out, and, without -r, the sub-folders not searched.
    QStringList notMedia;
    QStringList filteredOut;
    QStringList unsearched;
    qint64 found() const { return files.size() + failed.size(); }  // inputs counted or listed as failed
};

ExpandedInputs expandInputs(const QStringList& paths, const BatchInputOptions& options);
// A usage error for a glob that is not one (an unclosed '['): every file would silently fail
// to match it.
Error checkGlobs(const QStringList& globs, const QString& option);
// The lines that account for what was found and not taken: counts by default, every path with -v.
QStringList skippedSummary(const ExpandedInputs& inputs, bool verbose);
// A usage error when `output` (existing or not) is one of the files, or would be found under a
// folder; unset otherwise.
Error outputConflict(const QString& output, bool isFolder, const ExpandedInputs& inputs,
                     const QStringList& namedPaths, bool recursive);
