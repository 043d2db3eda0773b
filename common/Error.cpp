#include "common/Error.h"

QString errorKindName(ErrorKind kind)
{
    switch (kind) {
    case ErrorKind::None: return QStringLiteral("none");
    case ErrorKind::Missing: return QStringLiteral("missing");
    case ErrorKind::Unreadable: return QStringLiteral("unreadable");
    case ErrorKind::Empty: return QStringLiteral("empty");
    case ErrorKind::ZeroSized: return QStringLiteral("zero-sized");
    case ErrorKind::Truncated: return QStringLiteral("truncated");
    case ErrorKind::Overflow: return QStringLiteral("overflow");
    case ErrorKind::HeaderMismatch: return QStringLiteral("header-mismatch");
    case ErrorKind::UnsupportedType: return QStringLiteral("unsupported-type");
    case ErrorKind::DecodeFailed: return QStringLiteral("decode-failed");
    case ErrorKind::SourceLost: return QStringLiteral("source-lost");
    case ErrorKind::WriteFailed: return QStringLiteral("write-failed");
    case ErrorKind::InvalidInput: return QStringLiteral("invalid-input");
    case ErrorKind::Engine: return QStringLiteral("engine");
    case ErrorKind::Usage: return QStringLiteral("usage");
    case ErrorKind::NotAFile: return QStringLiteral("not-a-file");
    case ErrorKind::TooLarge: return QStringLiteral("too-large");
    case ErrorKind::TimedOut: return QStringLiteral("timed-out");
    case ErrorKind::DeviceLost: return QStringLiteral("device-lost");
    case ErrorKind::Locked: return QStringLiteral("locked");
    }
    return QStringLiteral("?");
}
