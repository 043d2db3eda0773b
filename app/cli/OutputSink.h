// Where records go: a file or stdout, written one whole line at a time and checked. A regular
// output file is locked (flock) for the run, so a second run on the same path is refused
// instead of interleaving its lines, and it is truncated only once the lock is held. A failed
// write is cut back to the last whole line, so what was written stays whole lines.
#pragma once

#include "common/Error.h"

#include <QByteArray>
#include <QFile>
#include <QString>
#include <QStringList>

class OutputSink {
public:
    ~OutputSink();
    // An empty path is stdout.
    bool open(const QString& path, Error& error);
    bool writeLine(const QByteArray& line, Error& error);
    // Flushes (fsync for a regular file) and closes; a late error from the file system counts.
    bool close(Error& error);
    QString name() const { return m_name; }
    qint64 lines() const { return m_lines; }

private:
    Error failure(const QString& what) const;

    QFile m_file;
    QString m_name;
    bool m_regular = false;
    qint64 m_lines = 0;
    qint64 m_bytes = 0;
};

// A usage error when `output` is the same file as one of `inputs` (the same inode, so a hard or
// symbolic link to an input counts too); unset otherwise. Every command that writes a file
// refuses it the same way, before anything is opened for writing, so the input is untouched.
Error outputIsInput(const QString& output, const QStringList& inputs);
