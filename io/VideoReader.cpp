#include "io/VideoReader.h"

#include "io/DecoderLog.h"
#include "io/MatFrame.h"
#include "io/NativePath.h"
#include "io/CodecModule.h"

#include <QFileInfo>

#include <opencv2/core.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

struct VideoReader::Impl {
    std::unique_ptr<VideoDecoder> capture;  // OpenCV's videoio, in the video module
    Origin origin = Origin::File;
    QString source;
    qint64 position = 0;
    VideoInfo info;
    qint64 headerCount = -1;         // the frame count the header declares (an estimate)
    std::uint64_t fileBytes = 0;
    std::uint64_t declaredBytes = 0;  // what the container says it spans; 0: unknown
    bool seeked = false;              // positions after a seek are the backend's, not counted
    qint64 seekedTo = -1;             // the frame the last seek asked for
    bool ended = false;
    Error endError;
    QStringList warnings;
    decoderlog::Reader decoderLog;  // FFmpeg's messages while this file is decoded

    void reachEnd(Error& error);
    // FFmpeg's messages so far, as warnings naming the file.
    void takeDecoderMessages();
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

void readInfo(VideoDecoder& capture, VideoInfo& info, bool live)
{
    using P = VideoDecoder::Property;
    info.fps = capture.get(P::Fps);
    info.width = int(capture.get(P::Width));
    info.height = int(capture.get(P::Height));
    info.frameCount = live ? -1 : qint64(capture.get(P::FrameCount));
}

// Where the container says its data ends, from its top-level structure: RIFF (AVI, with
// OpenDML's further RIFF AVIX chunks) and ISO media (MP4, MOV: top-level boxes). A file shorter
// than that was cut. 0 when the container does not say.
std::uint64_t declaredEnd(int fd, std::uint64_t fileSize)
{
    unsigned char head[16];
    auto readAt = [&](std::uint64_t at, int n) { return pread(fd, head, std::size_t(n), off_t(at)) == n; };
    if (!readAt(0, 12))
        return 0;
    std::uint64_t end = 0;
    if (std::memcmp(head, "RIFF", 4) == 0) {
        for (std::uint64_t at = 0; at + 8 <= fileSize && readAt(at, 8) && std::memcmp(head, "RIFF", 4) == 0;) {
            const std::uint32_t size = std::uint32_t(head[4]) | std::uint32_t(head[5]) << 8 | std::uint32_t(head[6]) << 16
                                     | std::uint32_t(head[7]) << 24;
            end = at + 8 + size;
            at = end + (size & 1);
        }
        return end;
    }
    if (std::memcmp(head + 4, "ftyp", 4) != 0)
        return 0;
    for (std::uint64_t at = 0; at + 8 <= fileSize && readAt(at, 16);) {
        std::uint64_t size = 0;
        for (int i = 0; i < 4; ++i)
            size = size << 8 | head[i];
        if (size == 1)
            for (int i = 8; i < 16; ++i)
                size = (i == 8 ? 0 : size << 8) | head[i];
        if (size == 0)
            return std::max(end, fileSize);  // the last box runs to the end of the file
        if (size < 8)
            return end;  // not a box: stop trusting the structure here
        end = at + size;
        at = end;
    }
    return end;
}

}  // namespace

namespace {

// Files go to FFmpeg first, then OpenCV's own MJPEG reader; never to GStreamer, whose
// typefinding can hang forever inside open() on a corrupt file (GStreamer is for pipelines).
std::vector<VideoDecoder::Api> fileBackends(const VideoDecoder& decoder)
{
    std::vector<VideoDecoder::Api> out;
    for (VideoDecoder::Api api : {VideoDecoder::Api::Ffmpeg, VideoDecoder::Api::OpenCvMjpeg})
        if (decoder.hasApi(api))
            out.push_back(api);
    return out;
}

// What OpenCV's FFmpeg reader loses of a stream's pixels: it delivers 8-bit BGR whatever the
// stream holds (OpenCV 4.6 has no way to ask for the native format), so a deeper or an alpha
// pixel format is said, once per file. `tag` is CAP_PROP_CODEC_PIXEL_FORMAT: libavcodec's raw
// tag of the decoder's pixel format (MKTAG bytes, low byte first), e.g. 'Y','1',0,16 for
// gray16le, 'R','G','B','A', 'Y','4',0,10 for yuva444p10le.
QString pixelFormatLoss(double property)
{
    if (!(property > 0) || property > double(0xffffffffu))
        return {};
    const std::uint32_t tag = std::uint32_t(property);
    const unsigned char b[4] = {static_cast<unsigned char>(tag), static_cast<unsigned char>(tag >> 8),
                                static_cast<unsigned char>(tag >> 16), static_cast<unsigned char>(tag >> 24)};
    QString name;
    for (unsigned char c : b)
        name += c >= 0x20 && c < 0x7f ? QString(QChar(c)) : QStringLiteral("[%1]").arg(c);
    const auto is = [&](const char* text) { return std::memcmp(b, text, 4) == 0; };
    // Depth: FFmpeg's planar tags end in the bits per sample (or begin with it, big-endian).
    int depth = 8;
    const bool planar = (b[0] == 'Y' || b[0] == 'G') && b[1] >= '1' && b[1] <= '4';
    const bool planarBe = (b[3] == 'Y' || b[3] == 'G') && b[2] >= '1' && b[2] <= '4';
    if (planar && b[3] > 8 && b[3] <= 16)
        depth = b[3];
    else if (planarBe && b[0] > 8 && b[0] <= 16)
        depth = b[0];
    // Packed 16-bit RGB: three of R, G, B, A and 48 or 64 (bits per pixel), either way round
    // ("RGB0" is RGB48LE, "RBA@" RGBA64LE), and QuickTime's b16g, b48r and b64a.
    const auto letters = [&](int from) {
        for (int i = from; i < from + 3; ++i)
            if (b[i] != 'R' && b[i] != 'G' && b[i] != 'B' && b[i] != 'A')
                return false;
        return true;
    };
    const int packedBits = letters(0) ? b[3] : letters(1) ? b[0] : 0;
    if (packedBits == 48 || packedBits == 64 || is("b16g") || is("b48r") || is("b64a"))
        depth = 16;
    const bool alpha = is("RGBA") || is("BGRA") || is("ARGB") || is("ABGR") || is("YUVA") || is("I40A") || is("I42A")
                    || is("AV32") || is("b64a") || packedBits == 64
                    || (planar && b[1] == '4') || (planarBe && b[2] == '4')                  // YUVA, GBRAP
                    || (planar && b[0] == 'Y' && b[1] == '2') || (planarBe && b[3] == 'Y' && b[2] == '2');  // YA8, YA16
    QStringList lost;
    if (depth > 8)
        lost << QStringLiteral("%1-bit samples, counted as 8-bit values").arg(depth);
    if (alpha)
        lost << QStringLiteral("an alpha channel, which is not counted");
    if (lost.isEmpty())
        return {};
    return QStringLiteral("the video's pixel format (%1) holds %2: OpenCV's FFmpeg reader delivers 8-bit B, G, R only")
        .arg(name, lost.join(QStringLiteral(" and ")));
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
    const std::uint64_t declared = regular && st.st_size > 0 ? declaredEnd(fd, std::uint64_t(st.st_size)) : 0;
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
    d.fileBytes = std::uint64_t(st.st_size);
    d.declaredBytes = declared;
    d.capture = codecmodule::createVideoDecoder(path, error);
    if (!d.capture)
        return nullptr;
    const std::vector<VideoDecoder::Api> backends = fileBackends(*d.capture);
    if (backends.empty()) {
        error = Error::make(ErrorKind::UnsupportedType, path, QStringLiteral("this OpenCV has no FFmpeg or MJPEG video reader"));
        return nullptr;
    }
    QString refusal;
    decoderlog::Reader::Scope scope(d.decoderLog);
    for (VideoDecoder::Api api : backends) {
        decoderlog::install();  // after OpenCV's first capture has set FFmpeg up, and before it decodes
        std::string thrown;
        if (d.capture->open(native.toStdString(), api, thrown))
            break;
        if (!thrown.empty())
            refusal = QString::fromStdString(thrown).trimmed();
    }
    if (!d.capture->isOpened()) {
        error = Error::make(ErrorKind::DecodeFailed, path,
                            refusal.isEmpty() ? QStringLiteral("not a video OpenCV can decode, or corrupt data") : refusal);
        return nullptr;
    }
    readInfo(*d.capture, d.info, false);
    d.headerCount = d.info.frameCount;
    d.takeDecoderMessages();
    if (const QString loss = pixelFormatLoss(d.capture->get(VideoDecoder::Property::CodecPixelFormat)); !loss.isEmpty())
        d.warnings << path + QStringLiteral(": ") + loss;
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
    const bool pipeline = source.contains('!');
    if (!pipeline && !isIndex && !QFileInfo::exists(source)) {
        error = Error::make(ErrorKind::Missing, source, QStringLiteral("no such camera device"));
        return nullptr;
    }
    d.capture = codecmodule::createVideoDecoder(source, error);
    if (!d.capture)
        return nullptr;
    std::string thrown;
    if (pipeline) {
        d.origin = Origin::Pipeline;
        QString text = source;
        if (!text.contains("appsink"))
            text += QStringLiteral(" ! videoconvert ! appsink drop=true max-buffers=1");
        d.capture->open(text.toStdString(), VideoDecoder::Api::GStreamer, thrown);
    } else if (isIndex) {
        d.origin = Origin::Camera;
        d.capture->open(index, VideoDecoder::Api::Any, thrown);
    } else {
        d.origin = Origin::Camera;
        d.capture->open(QFile::encodeName(source).toStdString(), VideoDecoder::Api::V4l2, thrown);
    }
    if (!thrown.empty()) {
        error = Error::make(ErrorKind::DecodeFailed, source, QString::fromStdString(thrown).trimmed());
        return nullptr;
    }
    if (!d.capture->isOpened()) {
        error = Error::make(ErrorKind::Missing, source,
                                d.origin == Origin::Pipeline ? QStringLiteral("the GStreamer pipeline could not be started")
                                                         : QStringLiteral("no camera answers at this index or path"));
        return nullptr;
    }
    // A source that stops answering must end the stream, not hang it.
    d.capture->set(VideoDecoder::Property::ReadTimeoutMs, 5000);
    readInfo(*d.capture, d.info, true);
    return reader;
}

VideoReader::Origin VideoReader::origin() const { return m_impl->origin; }
const QString& VideoReader::source() const { return m_impl->source; }
VideoInfo VideoReader::info() const { return m_impl->info; }
const QStringList& VideoReader::warnings() const { return m_impl->warnings; }
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
    decoderlog::Reader::Scope scope(d.decoderLog);
    const bool moved = d.capture->set(VideoDecoder::Property::PositionFrames, double(frameIndex));
    d.takeDecoderMessages();
    if (!moved) {
        error = Error::make(ErrorKind::DecodeFailed, d.source, QStringLiteral("seeking failed"));
        return false;
    }
    d.position = frameIndex;
    d.seekedTo = frameIndex;
    d.seeked = d.seeked || frameIndex != 0;
    d.ended = false;
    d.endError = {};
    return true;
}

void VideoReader::Impl::takeDecoderMessages()
{
    for (const QString& m : decoderLog.take())
        if (const QString w = source + QStringLiteral(": the decoder (FFmpeg) reports: ") + m; !warnings.contains(w))
            warnings << w;  // said once per file, however often the decoder repeats it
}

// The end of a file: clean (the frames decoded are its frames, whatever the header said), or
// cut (the data ends before its container says it does, and before the header's last frame).
void VideoReader::Impl::reachEnd(Error& error)
{
    Impl& d = *this;
    if (d.ended) {
        error = d.endError;
        return;
    }
    d.ended = true;
    const bool cut = d.declaredBytes > d.fileBytes;
    const QString sizes = QStringLiteral("the file has %1 bytes where its container declares %2").arg(d.fileBytes).arg(d.declaredBytes);
    if (cut && d.seeked && d.position == d.seekedTo) {
        // Nothing decoded since the seek: decoding did not stop at this frame, it never reached it.
        d.endError = Error::make(ErrorKind::Truncated, d.source,
                                 QStringLiteral("frame %1 cannot be decoded: the data ends before it (%2; truncated)")
                                     .arg(d.position).arg(sizes));
        error = d.endError;
        return;
    }
    if (cut && (d.headerCount <= 0 || d.position < d.headerCount)) {
        d.endError = Error::make(ErrorKind::Truncated, d.source,
                                 QStringLiteral("decoding stopped at frame %1 of the %2 its header declares: %3 (truncated)")
                                     .arg(d.position).arg(d.headerCount).arg(sizes));
        error = d.endError;
        return;
    }
    if (cut)
        d.warnings << d.source + QStringLiteral(": ") + sizes + QStringLiteral("; every frame its header declares was decoded");
    if (d.seeked)
        return;  // frames before the seek were not decoded here: nothing to compare
    if (d.headerCount > 0 && d.position != d.headerCount)
        d.warnings << d.source + QStringLiteral(": its header declares %1 frame(s), %2 were decoded (a header's count, or one "
                                                "estimated from the duration, is an estimate: zero-size \"repeat the previous "
                                                "frame\" index entries count there and decode to nothing)")
                                     .arg(d.headerCount).arg(d.position);
    d.info.frameCount = d.position;
}

bool VideoReader::read(Frame& frame, Error& error)
{
    Impl& d = *m_impl;
    cv::Mat mat;
    std::string thrown;
    decoderlog::Reader::Scope scope(d.decoderLog);
    const VideoDecoder::Read got = d.capture->read(mat, thrown);
    d.takeDecoderMessages();
    if (got == VideoDecoder::Read::Failed) {
        const QString cause = QString::fromStdString(thrown).trimmed();
        if (d.origin != Origin::File)
            error = Error::make(ErrorKind::SourceLost, d.source, cause);
        else
            error = Error::make(ErrorKind::DecodeFailed, d.source,
                                QStringLiteral("decoding stopped at frame %1: %2").arg(d.position).arg(cause));
        return false;
    }
    if (got == VideoDecoder::Read::End) {
        if (d.origin != Origin::File)
            error = Error::make(ErrorKind::SourceLost, d.source, QStringLiteral("the source stopped delivering frames"));
        else
            d.reachEnd(error);
        return false;
    }
    auto converted = frameFromMat(mat, d.source, error);
    if (!converted)
        return false;
    frame = *converted;
    ++d.position;
    return true;
}
