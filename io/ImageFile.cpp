#include "io/ImageFile.h"

#include "io/CodecModule.h"
#include "io/MatFrame.h"
#include "io/MemoryBudget.h"
#include "io/NativePath.h"

#include <opencv2/core.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

QString typeOf(mode_t mode)
{
    if (S_ISDIR(mode)) return QStringLiteral("a folder");
    if (S_ISFIFO(mode)) return QStringLiteral("a FIFO");
    if (S_ISCHR(mode)) return QStringLiteral("a character device");
    if (S_ISBLK(mode)) return QStringLiteral("a block device");
    if (S_ISSOCK(mode)) return QStringLiteral("a socket");
    return QStringLiteral("a special file");
}

QString decoderError(const cv::Exception& e)
{
    return QStringLiteral("the decoder refused it: %1").arg(QString::fromStdString(e.msg).trimmed());
}

// Closes the descriptor on every path out of open().
struct Descriptor {
    int fd = -1;
    ~Descriptor()
    {
        if (fd >= 0)
            ::close(fd);
    }
};

}  // namespace

std::unique_ptr<ImageFile> ImageFile::open(const QString& path, std::uint64_t budget, Error& error)
{
    if (budget == 0)
        budget = defaultMemoryBudget();
    Descriptor d;
    // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below.
    d.fd = ::open(nativePath(path).constData(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (d.fd < 0) {
        const int e = errno;
        error = e == ENOENT ? Error::make(ErrorKind::Missing, path, QStringLiteral("no such file"))
                            : Error::make(ErrorKind::Unreadable, path,
                                          QStringLiteral("cannot be read (%1)").arg(QString::fromLocal8Bit(std::strerror(e))));
        return nullptr;
    }
    struct stat st {};
    if (fstat(d.fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        error = Error::make(ErrorKind::NotAFile, path, QStringLiteral("not a regular file (%1)").arg(typeOf(st.st_mode)));
        return nullptr;
    }
    if (st.st_size == 0) {
        error = Error::make(ErrorKind::Empty, path, QStringLiteral("the file is empty"));
        return nullptr;
    }
    const std::uint64_t size = std::uint64_t(st.st_size);
    auto file = std::unique_ptr<ImageFile>(new ImageFile);
    file->m_path = path;
    const int fd = d.fd;
    file->m_info = imageheader::inspect(
        [fd](std::uint64_t offset, void* out, std::size_t n) {
            const ssize_t got = pread(fd, out, n, off_t(offset));
            return got < 0 ? std::size_t(0) : std::size_t(got);
        },
        size);
    const imageheader::Info& info = file->m_info;
    const bool tiff = info.format == imageheader::Format::Tiff;
    if (tiff) {
        file->m_pageCount = int(info.pages.size());
        if (file->m_pageCount == 0) {
            const ImageCodecs* codecs = codecmodule::imageCodecs(path, error);
            if (!codecs)
                return nullptr;
            try {
                file->m_pageCount = int(std::min<std::size_t>(codecs->imcount(nativePath(path).toStdString()),
                                                              imageheader::kMaxPages));
            } catch (const cv::Exception& e) {
                error = Error::make(ErrorKind::DecodeFailed, path, decoderError(e));
                return nullptr;
            }
        }
        if (file->m_pageCount == 0) {
            error = Error::make(ErrorKind::DecodeFailed, path, QStringLiteral("a TIFF without readable pages"));
            return nullptr;
        }
    }
    for (std::size_t i = 0; i < info.pages.size(); ++i) {
        const imageheader::Page& p = info.pages[i];
        const std::uint64_t need = p.decodedBytes() + (tiff ? 0 : size);
        if (need > budget) {
            error = Error::make(ErrorKind::TooLarge, path,
                                QStringLiteral("%1%2 declares %3x%4 pixels x %5 channel(s) x %6 byte(s); decoding needs about %7, "
                                               "more than the memory budget of %8 (--memory-budget)")
                                    .arg(QLatin1String(imageheader::formatName(info.format)),
                                         info.pages.size() > 1 ? QStringLiteral(" page %1").arg(i + 1) : QString())
                                    .arg(p.width).arg(p.height).arg(p.channels).arg(p.bytesPerSample)
                                    .arg(formatBytes(need), formatBytes(budget)));
            return nullptr;
        }
    }
    if (!info.complete)
        file->warnings << path + (info.format == imageheader::Format::Jpeg
                                      ? QStringLiteral(": JPEG data ends before its end-of-image marker; the image may be incomplete")
                                      : QStringLiteral(": PNG data ends before its IEND chunk; the image may be incomplete"));
    if (!tiff) {
        if (size > budget) {
            error = Error::make(ErrorKind::TooLarge, path,
                                QStringLiteral("the file is %1, more than the memory budget of %2 (--memory-budget)")
                                    .arg(formatBytes(size), formatBytes(budget)));
            return nullptr;
        }
        file->m_bytes.resize(qsizetype(size));
        qsizetype done = 0;
        while (done < file->m_bytes.size()) {
            const ssize_t got = pread(fd, file->m_bytes.data() + done, std::size_t(file->m_bytes.size() - done), off_t(done));
            if (got <= 0) {
                error = got < 0 ? Error::make(ErrorKind::Unreadable, path,
                                              QStringLiteral("cannot be read (%1)").arg(QString::fromLocal8Bit(std::strerror(errno))))
                                : Error::make(ErrorKind::Truncated, path, QStringLiteral("the file shrank while it was read"));
                return nullptr;
            }
            done += got;
        }
    }
    return file;
}

std::uint64_t ImageFile::pageBytes(int page) const
{
    return page >= 0 && std::size_t(page) < m_info.pages.size() ? m_info.pages[std::size_t(page)].decodedBytes() : 0;
}

bool ImageFile::decode(int start, int count, std::vector<Frame>& frames, Error& error)
{
    frames.clear();
    std::vector<cv::Mat> pages;
    const ImageCodecs* codecs = codecmodule::imageCodecs(m_path, error);
    if (!codecs)
        return false;
    try {
        if (m_info.format == imageheader::Format::Tiff) {
            if (!codecs->imreadmulti(nativePath(m_path).toStdString(), pages, start, count))
                pages.clear();
        } else if (start == 0) {
            const cv::Mat encoded(1, int(m_bytes.size()), CV_8U, m_bytes.data());
            cv::Mat mat = codecs->imdecode(encoded);
            if (!mat.empty())
                pages.push_back(mat);
            m_bytes = QByteArray();  // decoded: the encoded bytes are no longer needed
        }
    } catch (const cv::Exception& e) {
        error = Error::make(ErrorKind::DecodeFailed, m_path, decoderError(e));
        return false;
    }
    if (pages.empty()) {
        error = Error::make(ErrorKind::DecodeFailed, m_path,
                            start == 0 ? QStringLiteral("not a supported image, or corrupt or truncated data")
                                       : QStringLiteral("page %1 could not be decoded").arg(start + 1));
        return false;
    }
    for (std::size_t i = 0; i < pages.size(); ++i) {
        QString note;
        auto frame = frameFromMat(pages[i], m_path, error, &note);
        if (!frame) {
            frames.clear();
            return false;
        }
        if (!note.isEmpty() && start + int(i) == 0)
            warnings << m_path + QStringLiteral(": ") + note;
        frames.push_back(*frame);
    }
    return true;
}
