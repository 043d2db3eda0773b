// Video files, cameras (index or V4L2 device path) and GStreamer pipelines through OpenCV
// videoio, frame by frame at native depth. Meant for a worker thread: read() blocks.
#pragma once

#include "io/Frame.h"
#include "io/Error.h"

#include <memory>

struct VideoInfo {
    qint64 frameCount = -1;  // -1 for live sources
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
    // disappears (error set, SourceLost for live sources).
    bool read(Frame& frame, Error& error);

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};
