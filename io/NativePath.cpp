#include "io/NativePath.h"

namespace {

// Length of the valid UTF-8 sequence at `p`, or 0 (overlong forms, surrogates and values past
// U+10FFFF are invalid, as the Unicode standard says); `codePoint` is what it encodes.
int validSequence(const unsigned char* p, qsizetype left, char32_t& codePoint)
{
    const unsigned c = p[0];
    codePoint = c;
    if (c < 0x80)
        return 1;
    int n;
    unsigned min;
    if ((c & 0xe0) == 0xc0) { n = 2; min = 0x80; }
    else if ((c & 0xf0) == 0xe0) { n = 3; min = 0x800; }
    else if ((c & 0xf8) == 0xf0) { n = 4; min = 0x10000; }
    else return 0;
    if (left < n)
        return 0;
    unsigned v = c & (0xff >> (n + 1));
    for (int i = 1; i < n; ++i) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        v = (v << 6) | (p[i] & 0x3f);
    }
    if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
        return 0;
    codePoint = v;
    return n;
}

}  // namespace

QString pathFromNative(const QByteArray& bytes)
{
    QString out;
    out.reserve(bytes.size());
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.constData());
    const qsizetype size = bytes.size();
    qsizetype i = 0;
    // By hand, not QString::fromUtf8, which drops a byte-order mark (U+FEFF) a name may hold.
    while (i < size) {
        char32_t v = 0;
        const int n = validSequence(p + i, size - i, v);
        if (n == 0) {
            out.append(QChar(char16_t(0xdc00 + p[i])));
            ++i;
            continue;
        }
        if (QChar::requiresSurrogates(v)) {
            out.append(QChar(QChar::highSurrogate(v)));
            out.append(QChar(QChar::lowSurrogate(v)));
        } else {
            out.append(QChar(char16_t(v)));
        }
        i += n;
    }
    return out;
}

QByteArray nativePath(const QString& path)
{
    QByteArray out;
    out.reserve(path.size());
    const qsizetype size = path.size();
    qsizetype start = 0;
    for (qsizetype i = 0; i <= size; ++i) {
        const bool escaped = i < size && path[i].unicode() >= 0xdc80 && path[i].unicode() <= 0xdcff
                          && !(i > 0 && path[i - 1].isHighSurrogate());
        if (i == size || escaped) {
            out.append(QStringView(path).mid(start, i - start).toUtf8());
            if (escaped)
                out.append(char(path[i].unicode() - 0xdc00));
            start = i + 1;
        }
    }
    return out;
}

bool hasEscapedBytes(const QString& path)
{
    for (qsizetype i = 0; i < path.size(); ++i)
        if (path[i].unicode() >= 0xdc80 && path[i].unicode() <= 0xdcff && !(i > 0 && path[i - 1].isHighSurrogate()))
            return true;
    return false;
}
