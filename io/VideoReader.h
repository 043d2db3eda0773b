// Video files, cameras (index or V4L2 device path) and GStreamer pipelines through OpenCV
// videoio, frame by frame at native depth. Meant for a worker thread: read() blocks. OpenCV's
// videoio is reached through the video module (io/CodecModule.h), loaded by the first open: an
// open that cannot load it fails with an Error naming the source, the module and the cause.
#pragma once

#include "io/Frame.h"
#include "common/Error.h"

#include <memory>

struct VideoInfo {
    // -1 for live sources. A file's header count is an estimate (zero-size "repeat the previous
    // frame" index entries count there but decode to nothing); once read() has reached the end
    // it is the number of frames decoded.
    qint64 frameCount = -1;
    double fps = 0;
    int width = 0;
    int height = 0;
};

class VideoReader {
public:
    enum class Origin { File, Camera, Pipeline };

    VideoReader();
    ~VideoReader();
    VideoReader(VideoReader&&) noexcept;
    VideoReader& operator=(VideoReader&&) noexcept;

    static std::unique_ptr<VideoReader> openFile(const QString& path, Error& error);
    // "0", "/dev/video2": a camera; anything with a '!' is a GStreamer pipeline.
    static std::unique_ptr<VideoReader> openLive(const QString& source, Error& error);
    static bool isVideoFile(const QString& path);
    static QStringList nameFilters();

    Origin origin() const;
    bool isLive() const { return origin() != Origin::File; }
    const QString& source() const;
    VideoInfo info() const;
    bool seek(qint64 frameIndex, Error& error);
    qint64 position() const;  // index of the next frame read() returns
    // The next frame. False at the end of a file (error unset) or when the source fails or
    // disappears (error set, SourceLost for live sources). A file is read to its end whatever
    // its header's frame count: a clean end before or after that count is the end, with a
    // warning; only a decoder error, or data that ends before the container says it does (a
    // truncated file), is an error, which says at which frame decoding stopped.
    bool read(Frame& frame, Error& error);
    // What the reader noticed, each starting with the source's name: a header frame count that
    // differs from the frames decoded. Filled when the end is reached.
    const QStringList& warnings() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};
