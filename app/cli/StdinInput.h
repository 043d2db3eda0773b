// Standard input as an input file: `-` (or /dev/stdin when it is a pipe) names it. Decoders
// need a file they can seek in, so stdin is copied whole to a temporary file first (removed at
// the end of the run); records, warnings and errors name it as the user did ("-").
#pragma once

#include "common/Error.h"

#include <QString>
#include <QTemporaryFile>

#include <memory>

class StdinInput {
public:
    // Whether `path` names standard input: "-", or /dev/stdin when it is not a regular file.
    static bool names(const QString& path);
    // Copies stdin; a usage error when it is a terminal (nothing was piped in), a write error
    // when the copy cannot be made.
    bool copy(const QString& shownAs, Error& error);
    QString path() const { return m_file ? m_file->fileName() : QString(); }
    QString shownAs() const { return m_shown; }
    // `text` with the copy's path replaced by the name the user gave.
    QString shown(QString text) const;
    Error shown(Error error) const;

private:
    std::unique_ptr<QTemporaryFile> m_file;
    QString m_shown;
};
