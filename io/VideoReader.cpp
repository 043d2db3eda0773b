#include "io/VideoReader.h"

#include "io/MatFrame.h"
#include "io/NativePath.h"

#include <QFileInfo>

#include <opencv2/videoio.hpp>
#include <opencv2/videoio/registry.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

struct VideoReader::Impl {
    cv::VideoCapture capture;
    Origin origin = Origin::File;
    QString source;
    qint64 position = 0;
    VideoInfo info;
};

VideoReader::VideoReader() : m_impl(std::make_unique<Impl>()) {}
VideoReader::~VideoReader() = default;
VideoReader::VideoReader(VideoReader&&) noexcept = default;
VideoReader& VideoReader::operator=(VideoReader&&) noexcept = default;

QStringList VideoReader::nameFilters()
{
    return {"*.mp4", "*.avi", "*.mkv", "*.mov", "*.webm", "*.m4v", "*.mpg", "*.mpeg", "*.wmv", "*.y4m"};
}

bool VideoReader::isVideoFile(const QString& path)
{
    return nameFilters().contains("*." + QFileInfo(path).suffix().toLower());
}

namespace {

void readInfo(cv::VideoCapture& capture, VideoInfo& info, bool live)
{
    info.fps = capture.get(cv::CAP_PROP_FPS);
    info.width = int(capture.get(cv::CAP_PROP_FRAME_WIDTH));
    info.height = int(capture.get(cv::CAP_PROP_FRAME_HEIGHT));
    info.frameCount = live ? -1 : qint64(capture.get(cv::CAP_PROP_FRAME_COUNT));
}

}  // namespace

namespace {

// Files go to FFmpeg first, then OpenCV's own MJPEG reader; never to GStreamer, whose
// typefinding can hang forever inside open() on a corrupt file (GStreamer is for pipelines).
std::vector<cv::VideoCaptureAPIs> fileBackends()
{
    std::vector<cv::VideoCaptureAPIs> out;
    for (cv::VideoCaptureAPIs api : {cv::CAP_FFMPEG, cv::CAP_OPENCV_MJPEG})
        if (cv::videoio_registry::hasBackend(api))
            out.push_back(api);
    return out;
}

}  // namespace

std::unique_ptr<VideoReader> VideoReader::openFile(const QString& path, Error& error)
{
    const QByteArray native = nativePath(path);
    const int fd = ::open(native.constData(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        const int e = errno;
        error = e == ENOENT ? Error::make(ErrorKind::Missing, path, QStringLiteral("no such file"))
                            : Error::make(ErrorKind::Unreadable, path,
                                          QStringLiteral("cannot be read (%1)").arg(QString::fromLocal8Bit(std::strerror(e))));
        return nullptr;
    }
    struct stat st {};
    const bool regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    ::close(fd);
    if (!regular) {
        error = Error::make(ErrorKind::NotAFile, path, QStringLiteral("not a regular file"));
        return nullptr;
    }
    if (st.st_size == 0) {
        error = Error::make(ErrorKind::Empty, path, QStringLiteral("the file is empty"));
        return nullptr;
    }
    auto reader = std::unique_ptr<VideoReader>(new VideoReader);
    Impl& d = *reader->m_impl;
    d.origin = Origin::File;
    d.source = path;
    const std::vector<cv::VideoCaptureAPIs> backends = fileBackends();
    if (backends.empty()) {
        error = Error::make(ErrorKind::UnsupportedType, path, QStringLiteral("this OpenCV has no FFmpeg or MJPEG video reader"));
        return nullptr;
    }
    QString refusal;
    for (cv::VideoCaptureAPIs api : backends) {
        try {
            if (d.capture.open(native.toStdString(), api))
                break;
        } catch (const cv::Exception& e) {
            refusal = QString::fromStdString(e.msg).trimmed();
        }
    }
    if (!d.capture.isOpened()) {
        error = Error::make(ErrorKind::DecodeFailed, path,
                            refusal.isEmpty() ? QStringLiteral("not a video OpenCV can decode, or corrupt data") : refusal);
        return nullptr;
    }
    try {
        // Keep 16-bit and other native depths where the backend can.
        d.capture.set(cv::CAP_PROP_CONVERT_RGB, 1);
    } catch (const cv::Exception&) {
    }
    readInfo(d.capture, d.info, false);
    if (d.info.width <= 0 || d.info.height <= 0) {
        error = Error::make(ErrorKind::ZeroSized, path, QStringLiteral("the video has no frames of any size"));
        return nullptr;
    }
    return reader;
}

std::unique_ptr<VideoReader> VideoReader::openLive(const QString& source, Error& error)
{
    auto reader = std::unique_ptr<VideoReader>(new VideoReader);
    Impl& d = *reader->m_impl;
    d.source = source;
    bool isIndex = false;
    const int index = source.toInt(&isIndex);
    try {
        if (source.contains('!')) {
            d.origin = Origin::Pipeline;
            QString pipeline = source;
            if (!pipeline.contains("appsink"))
                pipeline += QStringLiteral(" ! videoconvert ! appsink drop=true max-buffers=1");
            d.capture.open(pipeline.toStdString(), cv::CAP_GSTREAMER);
        } else if (isIndex) {
            d.origin = Origin::Camera;
            d.capture.open(index, cv::CAP_ANY);
        } else {
            d.origin = Origin::Camera;
            if (!QFileInfo::exists(source)) {
                error = Error::make(ErrorKind::Missing, source, QStringLiteral("no such camera device"));
                return nullptr;
            }
            d.capture.open(QFile::encodeName(source).toStdString(), cv::CAP_V4L2);
        }
    } catch (const cv::Exception& e) {
        error = Error::make(ErrorKind::DecodeFailed, source, QString::fromStdString(e.msg).trimmed());
        return nullptr;
    }
    if (!d.capture.isOpened()) {
        error = Error::make(ErrorKind::Missing, source,
                                d.origin == Origin::Pipeline ? QStringLiteral("the GStreamer pipeline could not be started")
                                                         : QStringLiteral("no camera answers at this index or path"));
        return nullptr;
    }
    // A source that stops answering must end the stream, not hang it.
    d.capture.set(cv::CAP_PROP_READ_TIMEOUT_MSEC, 5000);
    readInfo(d.capture, d.info, true);
    return reader;
}

VideoReader::Origin VideoReader::origin() const { return m_impl->origin; }
const QString& VideoReader::source() const { return m_impl->source; }
VideoInfo VideoReader::info() const { return m_impl->info; }
qint64 VideoReader::position() const { return m_impl->position; }

bool VideoReader::seek(qint64 frameIndex, Error& error)
{
    Impl& d = *m_impl;
    if (d.origin != Origin::File) {
        error = Error::make(ErrorKind::UnsupportedType, d.source, QStringLiteral("a live source cannot seek"));
        return false;
    }
    if (frameIndex < 0 || (d.info.frameCount > 0 && frameIndex >= d.info.frameCount)) {
        error = Error::make(ErrorKind::ZeroSized, d.source,
                                QStringLiteral("frame %1 is outside 0..%2").arg(frameIndex).arg(d.info.frameCount - 1));
        return false;
    }
    if (!d.capture.set(cv::CAP_PROP_POS_FRAMES, double(frameIndex))) {
        error = Error::make(ErrorKind::DecodeFailed, d.source, QStringLiteral("seeking failed"));
        return false;
    }
    d.position = frameIndex;
    return true;
}

bool VideoReader::read(Frame& frame, Error& error)
{
    Impl& d = *m_impl;
    cv::Mat mat;
    bool got = false;
    try {
        got = d.capture.read(mat);
    } catch (const cv::Exception& e) {
        error = Error::make(d.origin == Origin::File ? ErrorKind::DecodeFailed : ErrorKind::SourceLost, d.source,
                                QString::fromStdString(e.msg).trimmed());
        return false;
    }
    if (!got || mat.empty()) {
        if (d.origin != Origin::File)
            error = Error::make(ErrorKind::SourceLost, d.source, QStringLiteral("the source stopped delivering frames"));
        else if (d.info.frameCount > 0 && d.position < d.info.frameCount - 1)
            error = Error::make(ErrorKind::Truncated, d.source,
                                    QStringLiteral("decoding stopped at frame %1 of %2").arg(d.position).arg(d.info.frameCount));
        return false;
    }
    auto converted = frameFromMat(mat, d.source, error);
    if (!converted)
        return false;
    frame = *converted;
    ++d.position;
    return true;
}
