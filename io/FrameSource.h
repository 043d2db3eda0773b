// Any input as a sequence of frames: an image (a TIFF stack gives several), a .npy array, a
// raw file (with a shape from the user), or a video. What the CLI and the app open by path.
#pragma once

#include "io/Frame.h"
#include "common/Error.h"
#include "io/RawFormat.h"

#include <functional>

class MemoryPool;

#include <memory>
#include <optional>
#include <utility>
#include <vector>

using ChannelExtrema = std::vector<std::optional<std::pair<double, double>>>;

class FrameSource {
public:
    enum class MediaKind { Image, Array, Video, Live };
    virtual ~FrameSource() = default;
    virtual MediaKind kind() const = 0;
    virtual QString path() const = 0;
    virtual qint64 frameCount() const = 0;  // -1 when unknown (live)
    virtual double fps() const { return 0; }
    // The next frame; false at the end (error unset) or on failure (error set). The call that
    // returns false at the end also checks that the data read was whole (a mapped file that
    // shrank under the reader is an error then).
    virtual bool next(Frame& frame, Error& error) = 0;
    virtual bool seek(qint64 index, Error& error);
    // Per channel (storage order), the smallest and largest finite samples over every frame, for
    // a source that knows them before its frames are read (an array of floats delivered in
    // chunks): a range taken from the data must then come from all of it, not from the first
    // chunk. Empty when the source does not know them; a channel without a finite sample unset.
    virtual ChannelExtrema finiteExtremes() { return {}; }
    QStringList warnings;
};

struct SourceOptions {
    std::optional<rawformat::RawSpec> raw;  // how to read files that are neither images, videos nor .npy
    std::uint64_t memoryBudget = 0;         // bytes one file may take decoded; 0: the machine default
    // Deliver arrays that need converting (big-endian, unaligned, i16, f64) in chunks of whole
    // pixels, so they are never copied whole. Counting sums the chunks; a viewer wants false.
    bool streamChunks = false;
    // Memory shared with other files decoded at once (a batch's jobs), or none. An image holds
    // what it decodes from the pool while it is open, waiting for room first; `keepWaiting`
    // is asked every 100 ms of that wait and ends it when it says false (the open then fails).
    // memoryBudget is still the most one file may take.
    MemoryPool* pool = nullptr;
    std::function<bool()> keepWaiting;
    std::function<bool()> mayExceed;  // see MemoryPool::acquire
};

std::unique_ptr<FrameSource> openFrameSource(const QString& path, const SourceOptions& options, Error& error);
std::unique_ptr<FrameSource> openFrameSource(const QString& path, const std::optional<rawformat::RawSpec>& raw,
                                             Error& error);
std::unique_ptr<FrameSource> openLiveSource(const QString& source, Error& error);
bool isKnownMediaFile(const QString& path);
