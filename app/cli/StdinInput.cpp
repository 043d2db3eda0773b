#include "app/cli/StdinInput.h"

#include "io/NativePath.h"

#include <QDir>

#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

bool StdinInput::names(const QString& path)
{
    if (path == QLatin1String("-"))
        return true;
    struct stat st {};
    return path == QLatin1String("/dev/stdin") && ::stat("/dev/stdin", &st) == 0 && !S_ISREG(st.st_mode);
}

bool StdinInput::copy(const QString& shownAs, Error& error)
{
    m_shown = shownAs;
    if (isatty(STDIN_FILENO)) {
        error = Error::make(ErrorKind::Usage, QString(),
                            QStringLiteral("%1 reads standard input, which is a terminal: pipe a file in (histoscope-cli ... - < FILE)").arg(shownAs));
        return false;
    }
    m_file = std::make_unique<QTemporaryFile>(QDir(QDir::tempPath()).filePath(QStringLiteral("histoscope-stdin-XXXXXX")));
    if (!m_file->open()) {
        error = Error::make(ErrorKind::WriteFailed, m_file->fileTemplate(), QStringLiteral("cannot hold a copy of stdin (%1)").arg(m_file->errorString()));
        return false;
    }
    char buffer[1 << 16];
    for (;;) {
        const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            error = Error::make(ErrorKind::Unreadable, shownAs, QStringLiteral("standard input cannot be read (%1)").arg(QString::fromLocal8Bit(std::strerror(errno))));
            return false;
        }
        if (n == 0)
            break;
        if (m_file->write(buffer, n) != n) {
            error = Error::make(ErrorKind::WriteFailed, m_file->fileName(),
                                QStringLiteral("the copy of stdin cannot be written (%1)").arg(m_file->errorString()));
            return false;
        }
    }
    if (!m_file->flush()) {
        error = Error::make(ErrorKind::WriteFailed, m_file->fileName(), QStringLiteral("the copy of stdin cannot be written (%1)").arg(m_file->errorString()));
        return false;
    }
    return true;
}

QString StdinInput::shown(QString text) const
{
    return m_file ? text.replace(m_file->fileName(), m_shown) : text;
}

Error StdinInput::shown(Error error) const
{
    error.source = shown(error.source);
    error.cause = shown(error.cause);
    return error;
}
