#include "app/cli/OutputSink.h"

#include "app/cli/Interrupts.h"
#include "io/NativePath.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

OutputSink::~OutputSink()
{
    if (m_file.isOpen())
        m_file.close();
}

Error OutputSink::failure(const QString& what) const
{
    return Error::make(ErrorKind::WriteFailed, m_name,
                       QStringLiteral("%1; it holds %2 whole line(s)").arg(what).arg(m_lines));
}

bool OutputSink::open(const QString& path, Error& error)
{
    if (path.isEmpty()) {
        m_name = QStringLiteral("<stdout>");
        if (!m_file.open(STDOUT_FILENO, QIODevice::WriteOnly | QIODevice::Unbuffered, QFileDevice::DontCloseHandle)) {
            error = Error::make(ErrorKind::WriteFailed, m_name, m_file.errorString());
            return false;
        }
        struct stat st {};
        m_regular = fstat(STDOUT_FILENO, &st) == 0 && S_ISREG(st.st_mode);
        return true;
    }
    m_name = path;
    // No O_TRUNC: the file is emptied only once this run holds its lock.
    const int fd = ::open(nativePath(path).constData(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0666);
    if (fd < 0) {
        error = Error::make(ErrorKind::WriteFailed, path, QStringLiteral("cannot be written (%1)").arg(QString::fromLocal8Bit(std::strerror(errno))));
        return false;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    struct stat st {};
    m_regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    if (m_regular) {
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            const int cause = errno;  // close() may change it, and the kind (so the exit code) depends on it
            ::close(fd);
            error = cause == EWOULDBLOCK
                      ? Error::make(ErrorKind::Locked, path, QStringLiteral("another run is writing this file (it holds its lock)"))
                      : Error::make(ErrorKind::WriteFailed, path,
                                    QStringLiteral("cannot be locked (%1)").arg(QString::fromLocal8Bit(std::strerror(cause))));
            return false;
        }
        if (ftruncate(fd, 0) != 0) {
            ::close(fd);
            error = Error::make(ErrorKind::WriteFailed, path, QStringLiteral("cannot be emptied (%1)").arg(QString::fromLocal8Bit(std::strerror(errno))));
            return false;
        }
    }
    if (!m_file.open(fd, QIODevice::WriteOnly | QIODevice::Unbuffered, QFileDevice::AutoCloseHandle)) {
        ::close(fd);
        error = Error::make(ErrorKind::WriteFailed, path, m_file.errorString());
        return false;
    }
    return true;
}

bool OutputSink::writeLine(const QByteArray& line, Error& error)
{
    std::lock_guard lock(Interrupts::outputLock());
    errno = 0;
    const qint64 written = m_file.write(line);
    const int writeErrno = errno;
    if (written == line.size()) {
        ++m_lines;
        m_bytes += written;
        return true;
    }
    // A QFile on a descriptor reports some failures as "Unknown error" (a closed pipe, for one):
    // the system's own cause says what happened.
    const QString cause = writeErrno != 0 ? QString::fromLocal8Bit(std::strerror(writeErrno)) : m_file.errorString();
    if (m_regular && written != 0)
        m_file.resize(m_bytes);  // a cut line would read as a broken record: take it back
    error = failure(QStringLiteral("write failed (%1)").arg(cause));
    return false;
}

bool OutputSink::close(Error& error)
{
    if (!m_file.isOpen())
        return true;
    bool ok = m_file.flush();
    if (ok && m_regular && ::fsync(m_file.handle()) != 0 && errno != EINVAL) {
        error = failure(QStringLiteral("could not be synced to storage (%1)").arg(QString::fromLocal8Bit(std::strerror(errno))));
        m_file.close();
        return false;
    }
    const QString cause = m_file.errorString();
    m_file.close();
    ok = ok && m_file.error() == QFileDevice::NoError;
    if (!ok)
        error = failure(QStringLiteral("closing failed (%1)").arg(cause));
    return ok;
}

Error outputIsInput(const QString& output, const QStringList& inputs)
{
    struct stat out {};
    if (output.isEmpty() || ::stat(nativePath(output).constData(), &out) != 0 || !S_ISREG(out.st_mode))
        return {};
    for (const QString& input : inputs) {
        struct stat in {};
        if (::stat(nativePath(input).constData(), &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
            return Error::make(ErrorKind::Usage, QString(),
                               QStringLiteral("the output %1 is also an input (%2); writing it would destroy it").arg(output, input));
    }
    return {};
}
