#include "app/cli/Console.h"

#include "io/NativePath.h"

#include <atomic>
#include <cerrno>
#include <unistd.h>

namespace {

std::atomic<Verbosity> g_verbosity{Verbosity::Normal};

bool writeAll(int fd, const QByteArray& bytes)
{
    qsizetype done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.constData() + done, size_t(bytes.size() - done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        done += n;
    }
    return true;
}

bool isControl(char16_t c)
{
    // C0, DEL and C1 (U+0080..U+009F, which some terminals take as CSI and its kin), and the raw
    // bytes 0x80..0x9F of a name that is not UTF-8 (kept as U+DC80..U+DC9F by NativePath).
    return c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f) || (c >= 0xdc80 && c <= 0xdc9f);
}

}  // namespace

void setVerbosity(Verbosity verbosity) { g_verbosity = verbosity; }
Verbosity verbosity() { return g_verbosity; }

QString escapeControls(const QString& text)
{
    QString out;
    out.reserve(text.size());
    for (const QChar ch : text) {
        const char16_t c = ch.unicode();
        if (!isControl(c)) {
            out += ch;
            continue;
        }
        switch (c) {
        case '\n': out += QLatin1String("\\n"); break;
        case '\r': out += QLatin1String("\\r"); break;
        case '\t': out += QLatin1String("\\t"); break;
        default: {
            const int value = c >= 0xdc80 ? c - 0xdc00 : c;  // a raw byte is written as the byte it was
            out += (c >= 0x80 && c <= 0x9f ? QStringLiteral("\\u%1") : QStringLiteral("\\x%1"))
                       .arg(value, c >= 0x80 && c <= 0x9f ? 4 : 2, 16, QChar('0'));
        }
        }
    }
    return out;
}

void printError(const QString& text)
{
    const bool lineEnd = text.endsWith('\n');
    QString escaped = escapeControls(lineEnd ? text.left(text.size() - 1) : text);
    if (lineEnd)
        escaped += '\n';
    writeAll(STDERR_FILENO, nativePath(escaped));
}

void printNotice(const QString& text)
{
    if (verbosity() != Verbosity::Quiet)
        printError(text);
}

void printVerbose(const QString& text)
{
    if (verbosity() == Verbosity::Verbose)
        printError(text);
}

void printErrorText(const QString& text) { writeAll(STDERR_FILENO, nativePath(text)); }

bool printOutput(const QString& text) { return writeAll(STDOUT_FILENO, nativePath(text)); }
