#include "io/AtomicFile.h"

#include "io/NativePath.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

QString cause(int error) { return QString::fromLocal8Bit(std::strerror(error)); }

}  // namespace

Error writeFileAtomically(const QString& path, const QByteArray& bytes)
{
    const QByteArray target = nativePath(path);
    QByteArray temp = target + ".tmp-XXXXXX";
    const int fd = mkostemp(temp.data(), O_CLOEXEC);
    if (fd < 0)
        return Error::make(ErrorKind::WriteFailed, path, QStringLiteral("cannot be written (%1)").arg(cause(errno)));
    qsizetype done = 0;
    int error = 0;
    while (done < bytes.size() && !error) {
        const ssize_t n = ::write(fd, bytes.constData() + done, std::size_t(bytes.size() - done));
        if (n > 0)
            done += n;
        else if (n < 0 && errno != EINTR)
            error = errno;
        else if (n == 0)
            error = EIO;
    }
    fchmod(fd, 0644);
    if (!error && fsync(fd) != 0)
        error = errno;
    if (::close(fd) != 0 && !error)
        error = errno;
    if (!error && ::rename(temp.constData(), target.constData()) != 0)
        error = errno;
    if (error) {
        ::unlink(temp.constData());
        return Error::make(ErrorKind::WriteFailed, path, QStringLiteral("could not be written whole (%1)").arg(cause(error)));
    }
    return {};
}

Error makeFolders(const QString& path)
{
    const QByteArray native = nativePath(path);
    for (qsizetype i = 1; i <= native.size(); ++i) {
        if (i < native.size() && native[i] != '/')
            continue;
        const QByteArray part = native.left(i);
        if (::mkdir(part.constData(), 0777) != 0 && errno != EEXIST)
            return Error::make(ErrorKind::WriteFailed, path, QStringLiteral("the folder cannot be made (%1)").arg(cause(errno)));
    }
    struct stat st {};
    if (::stat(native.constData(), &st) != 0 || !S_ISDIR(st.st_mode))
        return Error::make(ErrorKind::WriteFailed, path, QStringLiteral("is not a folder"));
    return {};
}
