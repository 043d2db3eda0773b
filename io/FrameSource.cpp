#include "io/FrameSource.h"

#include "io/ImageFile.h"
#include "io/ImageLoader.h"
#include "io/MemoryBudget.h"
#include "io/RawArray.h"
#include "io/VideoReader.h"

#include <QFileInfo>

bool FrameSource::seek(qint64, Error& error)
{
    error = Error::make(ErrorKind::UnsupportedType, path(), QStringLiteral("this source cannot seek"));
    return false;
}

namespace {

// Pages decoded a range at a time, each range as large as the memory budget allows.
class ImageSource final : public FrameSource {
public:
    ImageSource(std::unique_ptr<ImageFile> file, std::uint64_t budget) : m_file(std::move(file)), m_budget(budget)
    {
        warnings = m_file->warnings;
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
            return FrameSource::seek(index, error);
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
            return FrameSource::seek(index, error);
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
    explicit VideoSource(std::unique_ptr<VideoReader> reader) : m_reader(std::move(reader)) {}
    MediaKind kind() const override { return m_reader->isLive() ? MediaKind::Live : MediaKind::Video; }
    QString path() const override { return m_reader->source(); }
    qint64 frameCount() const override { return m_reader->info().frameCount; }
    double fps() const override { return m_reader->info().fps; }
    bool next(Frame& frame, Error& error) override
    {
        if (m_reader->read(frame, error))
            return true;
        warnings = m_reader->warnings();  // known at the end: the header's count against the frames decoded
        return false;
    }
    bool seek(qint64 index, Error& error) override { return m_reader->seek(index, error); }

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
    auto file = ImageFile::open(path, budget, error);
    if (!file)
        return nullptr;
    auto source = std::make_unique<ImageSource>(std::move(file), budget);
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
