// File names as the kernel stores them: bytes. Qt 6 decodes names as UTF-8 and replaces what
// is not, so a name with other bytes cannot be opened again through QFile. These two functions
// round-trip any byte string the way Python's "surrogateescape" does: each byte that is not
// part of valid UTF-8 becomes the lone surrogate U+DC80 + byte, and back. Qt's JSON writes
// such a character as "\udc80", and reads it back, so records keep the name exactly.
#pragma once

#include <QByteArray>
#include <QString>

QString pathFromNative(const QByteArray& bytes);
QByteArray nativePath(const QString& path);
// True when the name holds bytes that are not UTF-8 (shown with U+FFFD by most tools).
bool hasEscapedBytes(const QString& path);
