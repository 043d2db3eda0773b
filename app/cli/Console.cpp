#include "app/cli/Console.h"

#include "io/NativePath.h"

#include <cerrno>
#include <unistd.h>

namespace {

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

}  // namespace

void printError(const QString& text) { writeAll(STDERR_FILENO, nativePath(text)); }

bool printOutput(const QString& text) { return writeAll(STDOUT_FILENO, nativePath(text)); }
