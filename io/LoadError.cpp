#include "io/LoadError.h"

QString loadErrorKindName(LoadErrorKind kind)
{
    switch (kind) {
    case LoadErrorKind::None: return QStringLiteral("none");
    case LoadErrorKind::Missing: return QStringLiteral("missing");
    case LoadErrorKind::Unreadable: return QStringLiteral("unreadable");
    case LoadErrorKind::Empty: return QStringLiteral("empty");
    case LoadErrorKind::ZeroSized: return QStringLiteral("zero-sized");
    case LoadErrorKind::Truncated: return QStringLiteral("truncated");
    case LoadErrorKind::Overflow: return QStringLiteral("overflow");
    case LoadErrorKind::HeaderMismatch: return QStringLiteral("header-mismatch");
    case LoadErrorKind::UnsupportedType: return QStringLiteral("unsupported-type");
    case LoadErrorKind::DecodeFailed: return QStringLiteral("decode-failed");
    case LoadErrorKind::SourceLost: return QStringLiteral("source-lost");
    }
    return QStringLiteral("?");
}
