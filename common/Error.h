// The one error shape below the GUI: a kind and a message that names the file (or device)
// and the cause. Loaders, services and commands return it; the engine's hs::Status is turned
// into it at the boundary with fromStatus().
#pragma once

#include "histoscope/HistogramTypes.h"

#include <QString>
#include <QStringList>

enum class ErrorKind {
    None,
    Missing,          // no such file or device
    Unreadable,       // permissions, I/O error
    Empty,            // zero bytes, or nothing to count in it (a video without a frame)
    ZeroSized,        // a dimension is zero
    Truncated,        // fewer bytes than the header or the given shape needs
    Overflow,         // dimension products overflow
    HeaderMismatch,   // a header that lies about its size
    UnsupportedType,  // a sample type or layout HistoScope does not count
    DecodeFailed,     // the decoder refused the data (corrupt, unknown format, OpenCV limit)
    SourceLost,       // a live source stopped delivering
    WriteFailed,      // an output could not be written, flushed or renamed whole
    InvalidInput,     // a request the data cannot satisfy (no channel, unsupported depth)
    Engine,           // the counting engine refused or failed (hs::Status)
    Usage,            // a command line that cannot run (an option's value, a missing argument)
    NotAFile,         // a folder, FIFO, device or socket where a regular file was needed
    TooLarge,         // decoding would take more memory than the budget allows
    TimedOut,         // a decoder made no progress within the watchdog's time
    DeviceLost,       // the GPU faulted (hs::ErrorCode::DeviceLost): the engine must be rebuilt
    Locked,           // another process holds the file's lock (a second run on the same output)
};

struct Error {
    ErrorKind kind = ErrorKind::None;
    QString source;   // the file path or device
    QString cause;

    bool isError() const { return kind != ErrorKind::None; }
    QString message() const { return source.isEmpty() ? cause : source + QStringLiteral(": ") + cause; }
    static Error make(ErrorKind kind, const QString& source, const QString& cause)
    {
        return Error{kind, source, cause};
    }
    static Error fromStatus(const hs::Status& status, const QString& source)
    {
        if (status)
            return {};
        const ErrorKind kind = status.code == hs::ErrorCode::DeviceLost ? ErrorKind::DeviceLost : ErrorKind::Engine;
        return Error{kind, source, QString::fromStdString(status.message)};
    }
};

QString errorKindName(ErrorKind kind);
