// Typed load errors: every one names the file (or device) and the cause.
#pragma once

#include <QString>
#include <QStringList>

enum class LoadErrorKind {
    None,
    Missing,          // no such file or device
    Unreadable,       // permissions, I/O error
    Empty,            // zero bytes
    ZeroSized,        // a dimension is zero
    Truncated,        // fewer bytes than the header or the given shape needs
    Overflow,         // dimension products overflow
    HeaderMismatch,   // a header that lies about its size
    UnsupportedType,  // a sample type or layout HistoScope does not count
    DecodeFailed,     // the decoder refused the data (corrupt, unknown format, OpenCV limit)
    SourceLost,       // a live source stopped delivering
};

struct LoadError {
    LoadErrorKind kind = LoadErrorKind::None;
    QString source;   // the file path or device
    QString cause;

    bool isError() const { return kind != LoadErrorKind::None; }
    QString message() const { return source + QStringLiteral(": ") + cause; }
    static LoadError make(LoadErrorKind kind, const QString& source, const QString& cause)
    {
        return LoadError{kind, source, cause};
    }
};

QString loadErrorKindName(LoadErrorKind kind);
