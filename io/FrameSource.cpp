#include "io/FrameSource.h"

#include "io/ImageFile.h"
#include "io/ImageLoader.h"
#include "io/MemoryBudget.h"
#include "io/NativePath.h"
#include "io/RawArray.h"
#include "io/VideoReader.h"

#include <QFileInfo>

#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

bool FrameSource::seek(qint64, Error& error)
{
    error = Error::make(ErrorKind::UnsupportedType, path(), QStringLiteral("this source cannot seek"));
    return false;
}

namespace {

// A frame past the end of a source that knows its frames (a still image is one frame).
bool pastTheEnd(const FrameSource& source, qint64 index, Error& error)
{
    const qint64 count = source.frameCount();
    error = Error::make(ErrorKind::InvalidInput, source.path(),
                        count == 1 ? QStringLiteral("there is no frame %1: it holds one frame (frame 0)").arg(index)
                                   : QStringLiteral("there is no frame %1: it holds %2 frames (0 to %3)").arg(index).arg(count).arg(count - 1));
    return false;
}

// Pages decoded a range at a time, each range as large as the memory budget allows.
class ImageSource final : public FrameSource {
public:
    ImageSource(std::unique_ptr<ImageFile> file, std::uint64_t budget) : m_file(std::move(file)), m_budget(budget)
    {
        warnings = m_file->warnings;
    }
    // Holds what decoding takes from a shared pool: the encoded bytes and the largest range of
    // pages decoded at once, which then stays within what was reserved.
    bool reserve(MemoryPool& pool, const SourceOptions& options, Error& error)
    {
        std::uint64_t largest = 0, all = 0;
        for (int p = 0; p < m_file->pageCount(); ++p) {
            largest = std::max(largest, m_file->pageBytes(p));
            all += m_file->pageBytes(p);
        }
        // A stack takes an eighth of the pool a range at a time, so a few files decode beside it.
        const std::uint64_t pages = std::max(largest, std::min(all, pool.total() / 8));
        const std::uint64_t bytes = std::min(m_budget, m_file->encodedBytes() + pages);
        if (!pool.acquire(bytes, options.keepWaiting, options.mayExceed)) {
            error = Error::make(ErrorKind::TooLarge, path(), QStringLiteral("given up while waiting for memory"));
            return false;
        }
        m_reservation = std::make_unique<MemoryReservation>(&pool, bytes);
        m_budget = std::max<std::uint64_t>(1, bytes - std::min(bytes, m_file->encodedBytes()));
        return true;
    }
    MediaKind kind() const override { return MediaKind::Image; }
    QString path() const override { return m_file->path(); }
    qint64 frameCount() const override { return m_file->pageCount(); }
    bool next(Frame& frame, Error& error) override
    {
        if (m_cursor >= m_pages.size() && !decodeBatch(error))
            return false;
        frame = m_pages[m_cursor];
        m_pages[m_cursor++] = Frame();  // counted once; do not hold its pixels longer
        return true;
    }
    // Decodes the first pages now, so that a corrupt image fails to open rather than to play.
    bool prime(Error& error) { return decodeBatch(error); }
    bool seek(qint64 index, Error& error) override
    {
        if (index < 0 || index >= frameCount())
            return pastTheEnd(*this, index, error);
        m_pages.clear();
        m_cursor = 0;
        m_next = int(index);
        return true;
    }

private:
    bool decodeBatch(Error& error)
    {
        if (m_next >= m_file->pageCount())
            return false;
        int count = 1;
            std::uint64_t bytes = m_file->pageBytes(m_next);
            while (m_next + count < m_file->pageCount() && m_file->pageBytes(m_next + count) > 0
                   && bytes + m_file->pageBytes(m_next + count) <= m_budget)
                bytes += m_file->pageBytes(m_next + count++);
        if (!m_file->decode(m_next, count, m_pages, error))
            return false;
        warnings = m_file->warnings;
        m_next += int(m_pages.size());
        m_cursor = 0;
        return true;
    }

    std::unique_ptr<MemoryReservation> m_reservation;  // released last, after the pages
    std::unique_ptr<ImageFile> m_file;
    std::uint64_t m_budget;
    std::vector<Frame> m_pages;
    std::size_t m_cursor = 0;
    int m_next = 0;
};

// A raw or .npy array: one frame in place, or converted chunks of whole pixels.
class ArraySource final : public FrameSource {
public:
    ArraySource(QString path, std::shared_ptr<RawArray> array, std::uint64_t chunkPixels)
        : m_path(std::move(path)), m_array(std::move(array)), m_chunkPixels(chunkPixels)
    {
        warnings = m_array->warnings;
    }
    MediaKind kind() const override { return MediaKind::Array; }
    QString path() const override { return m_path; }
    qint64 frameCount() const override
    {
        return m_chunkPixels ? qint64((m_array->pixelCount() + m_chunkPixels - 1) / m_chunkPixels) : 1;
    }
    bool next(Frame& frame, Error& error) override
    {
        const std::uint64_t total = m_array->pixelCount();
        if (m_done >= total) {
            m_array->intact(error);  // the end: say so if the file shrank while it was read
            return false;
        }
        if (!m_chunkPixels) {
            frame = m_array->whole();
            m_done = total;
            return true;
        }
        const std::uint64_t count = std::min(m_chunkPixels, total - m_done);
        frame = m_array->chunk(m_done, count);
        m_done += count;
        return true;
    }
    bool seek(qint64 index, Error& error) override
    {
        if (index < 0 || index >= frameCount())
            return pastTheEnd(*this, index, error);
        m_done = std::uint64_t(index) * (m_chunkPixels ? m_chunkPixels : m_array->pixelCount());
        return true;
    }
    ChannelExtrema finiteExtremes() override
    {
        // Only floats take their range from the data; integer types have a nominal range.
        const auto type = m_array->spec().type;
        if (!m_chunkPixels || (type != rawformat::RawType::F32 && type != rawformat::RawType::F64))
            return {};
        if (!m_extremesKnown) {
            m_extremes = m_array->finiteExtremes(m_chunkPixels);
            m_extremesKnown = true;
        }
        return m_extremes;
    }

private:
    QString m_path;
    std::shared_ptr<RawArray> m_array;
    std::uint64_t m_chunkPixels;  // 0: the whole array as one frame
    std::uint64_t m_done = 0;
    bool m_extremesKnown = false;
    ChannelExtrema m_extremes;
};

class VideoSource final : public FrameSource {
public:
    explicit VideoSource(std::unique_ptr<VideoReader> reader) : m_reader(std::move(reader)) { warnings = m_reader->warnings(); }
    MediaKind kind() const override { return m_reader->isLive() ? MediaKind::Live : MediaKind::Video; }
    QString path() const override { return m_reader->source(); }
    qint64 frameCount() const override { return m_reader->info().frameCount; }
    double fps() const override { return m_reader->info().fps; }
    bool next(Frame& frame, Error& error) override
    {
        const bool got = m_reader->read(frame, error);
        // The decoder's messages as they come; at the end, the header's count against the frames decoded.
        warnings = m_reader->warnings();
        return got;
    }
    bool seek(qint64 index, Error& error) override
    {
        const bool moved = m_reader->seek(index, error);
        warnings = m_reader->warnings();
        return moved;
    }

private:
    std::unique_ptr<VideoReader> m_reader;
};

std::unique_ptr<FrameSource> arraySource(const QString& path, std::shared_ptr<RawArray> array, const SourceOptions& options,
                                         std::uint64_t budget)
{
    if (!array)
        return nullptr;
    std::uint64_t chunk = 0;
    if (options.streamChunks && array->convertsSamples()) {
        // Converted samples are at most 4 bytes; a chunk takes 16 MB or a share of the budget.
        const std::uint64_t pixelBytes = std::uint64_t(array->spec().channels) * 4;
        chunk = std::max<std::uint64_t>(1, std::min<std::uint64_t>(std::uint64_t(16) << 20, budget / 4) / pixelBytes);
    }
    return std::make_unique<ArraySource>(path, std::move(array), chunk);
}

}  // namespace

// What a file's first bytes say it is, for the formats a decoder would only call corrupt: video
// containers under a name that does not say video (`clip.ts`, an extensionless download) are
// opened as video; audio, GIF and the like are refused as a format not supported.
namespace {

enum class Sniffed { Unknown, Video, Npy, Unsupported };

Sniffed sniff(const QString& path, QString& what)
{
    // O_NONBLOCK: a FIFO must not block here; anything not a regular file is refused later.
    const int fd = ::open(nativePath(path).constData(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return Sniffed::Unknown;
    struct stat st {};
    QByteArray head(377, '\0');
    const ssize_t got = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? pread(fd, head.data(), std::size_t(head.size()), 0) : -1;
    ::close(fd);
    head.resize(got > 0 ? qsizetype(got) : 0);
    // Magic bytes with their length: some hold a zero byte.
    const auto at = [&](int offset, const char* magic, qsizetype length = -1) {
        const QByteArray want(magic, length < 0 ? qsizetype(std::strlen(magic)) : length);
        return head.size() >= offset + want.size() && head.mid(offset, want.size()) == want;
    };
    if (at(0, "\x93NUMPY"))
        return Sniffed::Npy;  // an array under another name (stdin's copy)
    if (at(0, "RIFF") && at(8, "AVI "))
        return Sniffed::Video;
    if (at(4, "ftyp") || at(0, "\x1a\x45\xdf\xa3") || at(0, "\x00\x00\x01\xba", 4))
        return Sniffed::Video;  // ISO media (MP4, MOV), Matroska/WebM, MPEG program stream
    if (head.size() >= 377 && head[0] == 0x47 && head[188] == 0x47 && head[376] == 0x47)
        return Sniffed::Video;  // MPEG transport stream: a sync byte every 188 bytes
    struct Known {
        int offset;
        const char* magic;
        const char* name;
    };
    static const Known unsupported[] = {
        {0, "GIF87a", "a GIF image"}, {0, "GIF89a", "a GIF image"}, {8, "WAVE", "WAV audio"},
        {0, "ID3", "MP3 audio"}, {0, "fLaC", "FLAC audio"}, {0, "OggS", "an Ogg stream"},
        {0, "%PDF", "a PDF document"}, {0, "PK\x03\x04", "a ZIP archive"}, {0, "\x1f\x8b", "gzip data"},
        {0, "8BPS", "a Photoshop document"},
        {4, "jP  ", "a JPEG 2000 image"}, {0, "\xff\x4f\xff\x51", "a JPEG 2000 codestream"},
    };
    for (const Known& k : unsupported)
        if (at(k.offset, k.magic)) {
            what = QString::fromLatin1(k.name);
            return Sniffed::Unsupported;
        }
    return Sniffed::Unknown;
}

}  // namespace

bool isKnownMediaFile(const QString& path)
{
    return ImageLoader::isImageFile(path) || VideoReader::isVideoFile(path)
        || QFileInfo(path).suffix().compare(QStringLiteral("npy"), Qt::CaseInsensitive) == 0;
}

std::unique_ptr<FrameSource> openFrameSource(const QString& path, const SourceOptions& options, Error& error)
{
    const std::uint64_t budget = options.memoryBudget ? options.memoryBudget : defaultMemoryBudget();
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("npy"))
        return arraySource(path, RawArray::openNpy(path, error), options, budget);
    if (VideoReader::isVideoFile(path)) {
        auto reader = VideoReader::openFile(path, error);
        if (!reader)
            return nullptr;
        return std::make_unique<VideoSource>(std::move(reader));
    }
    if (options.raw && !ImageLoader::isImageFile(path))
        return arraySource(path, RawArray::openRaw(path, *options.raw, error), options, budget);
    if (!ImageLoader::isImageFile(path)) {
        QString what;
        const Sniffed kind = sniff(path, what);
        if (kind == Sniffed::Npy)
            return arraySource(path, RawArray::openNpy(path, error), options, budget);
        if (kind == Sniffed::Video) {
            auto reader = VideoReader::openFile(path, error);
            return reader ? std::make_unique<VideoSource>(std::move(reader)) : nullptr;
        }
        if (kind == Sniffed::Unsupported) {
            error = Error::make(ErrorKind::UnsupportedType, path,
                                QStringLiteral("format not supported: %1 (HistoScope reads PNG, JPEG, TIFF, BMP, WebP, "
                                               "PNM/PFM, EXR and HDR images, videos, .npy and raw data)").arg(what));
            return nullptr;
        }
    }
    auto file = ImageFile::open(path, budget, error);
    if (!file)
        return nullptr;
    auto source = std::make_unique<ImageSource>(std::move(file), budget);
    if (options.pool && !source->reserve(*options.pool, options, error))
        return nullptr;
    if (!source->prime(error))
        return nullptr;
    return source;
}

std::unique_ptr<FrameSource> openFrameSource(const QString& path, const std::optional<rawformat::RawSpec>& raw,
                                             Error& error)
{
    SourceOptions options;
    options.raw = raw;
    return openFrameSource(path, options, error);
}

std::unique_ptr<FrameSource> openLiveSource(const QString& source, Error& error)
{
    auto reader = VideoReader::openLive(source, error);
    if (!reader)
        return nullptr;
    return std::make_unique<VideoSource>(std::move(reader));
}
