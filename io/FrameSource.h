// Any input as a sequence of frames: an image (a TIFF stack gives several), a .npy array, a
// raw file (with a shape from the user), or a video. What the CLI and the app open by path.
#pragma once

#include "io/Frame.h"
#include "io/Error.h"
#include "io/RawFormat.h"

#include <memory>
#include <optional>

class FrameSource {
public:
    enum class MediaKind { Image, Array, Video, Live };
    virtual ~FrameSource() = default;
    virtual MediaKind kind() const = 0;
    virtual QString path() const = 0;
    virtual qint64 frameCount() const = 0;  // -1 when unknown (live)
    virtual double fps() const { return 0; }
    // The next frame; false at the end (error unset) or on failure (error set).
    virtual bool next(Frame& frame, Error& error) = 0;
    virtual bool seek(qint64 index, Error& error);
    QStringList warnings;
};

// `raw`: how to read files that are neither images, videos nor .npy (a headerless shape).
std::unique_ptr<FrameSource> openFrameSource(const QString& path, const std::optional<rawformat::RawSpec>& raw,
                                             Error& error);
std::unique_ptr<FrameSource> openLiveSource(const QString& source, Error& error);
bool isKnownMediaFile(const QString& path);
