#include "io/FrameSource.h"

#include "io/ImageLoader.h"
#include "io/RawLoader.h"
#include "io/VideoReader.h"

#include <QFileInfo>

bool FrameSource::seek(qint64, Error& error)
{
    error = Error::make(ErrorKind::UnsupportedType, path(), QStringLiteral("this source cannot seek"));
    return false;
}

namespace {

class StillSource final : public FrameSource {
public:
    StillSource(QString path, MediaKind kind, std::vector<Frame> frames) : m_path(std::move(path)), m_kind(kind), m_frames(std::move(frames)) {}
    MediaKind kind() const override { return m_kind; }
    QString path() const override { return m_path; }
    qint64 frameCount() const override { return qint64(m_frames.size()); }
    bool next(Frame& frame, Error&) override
    {
        if (m_next >= m_frames.size())
            return false;
        frame = m_frames[m_next++];
        return true;
    }
    bool seek(qint64 index, Error& error) override
    {
        if (index < 0 || index >= frameCount())
            return FrameSource::seek(index, error);
        m_next = std::size_t(index);
        return true;
    }

private:
    QString m_path;
    MediaKind m_kind;
    std::vector<Frame> m_frames;
    std::size_t m_next = 0;
};

class VideoSource final : public FrameSource {
public:
    explicit VideoSource(std::unique_ptr<VideoReader> reader) : m_reader(std::move(reader)) {}
    MediaKind kind() const override { return m_reader->isLive() ? MediaKind::Live : MediaKind::Video; }
    QString path() const override { return m_reader->source(); }
    qint64 frameCount() const override { return m_reader->info().frameCount; }
    double fps() const override { return m_reader->info().fps; }
    bool next(Frame& frame, Error& error) override { return m_reader->read(frame, error); }
    bool seek(qint64 index, Error& error) override { return m_reader->seek(index, error); }

private:
    std::unique_ptr<VideoReader> m_reader;
};

std::unique_ptr<FrameSource> arraySource(const QString& path, RawLoadResult loaded, Error& error)
{
    if (!loaded.ok()) {
        error = loaded.error;
        return nullptr;
    }
    auto source = std::make_unique<StillSource>(path, FrameSource::MediaKind::Array, std::vector<Frame>{loaded.frame});
    source->warnings = loaded.warnings;
    return source;
}

}  // namespace

bool isKnownMediaFile(const QString& path)
{
    return ImageLoader::isImageFile(path) || VideoReader::isVideoFile(path)
        || QFileInfo(path).suffix().compare(QStringLiteral("npy"), Qt::CaseInsensitive) == 0;
}

std::unique_ptr<FrameSource> openFrameSource(const QString& path, const std::optional<rawformat::RawSpec>& raw,
                                             Error& error)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("npy"))
        return arraySource(path, RawLoader::loadNpy(path), error);
    if (VideoReader::isVideoFile(path)) {
        auto reader = VideoReader::openFile(path, error);
        if (!reader)
            return nullptr;
        return std::make_unique<VideoSource>(std::move(reader));
    }
    if (raw && !ImageLoader::isImageFile(path))
        return arraySource(path, RawLoader::loadRaw(path, *raw), error);
    ImageLoadResult r = ImageLoader::load(path);
    if (!r.ok()) {
        error = r.error;
        return nullptr;
    }
    auto source = std::make_unique<StillSource>(path, FrameSource::MediaKind::Image, std::move(r.frames));
    source->warnings = r.warnings;
    return source;
}

std::unique_ptr<FrameSource> openLiveSource(const QString& source, Error& error)
{
    auto reader = VideoReader::openLive(source, error);
    if (!reader)
        return nullptr;
    return std::make_unique<VideoSource>(std::move(reader));
}
