// Public value types of the HistoScope histogram engine. No CUDA types appear here,
// so the app, the loaders and the tests include this without the CUDA toolkit.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hs {

enum class SampleType { U8, U16, I32, U32, F16, F32 };

std::size_t sampleSize(SampleType type);
std::string_view sampleTypeName(SampleType type);
std::optional<SampleType> sampleTypeFromName(std::string_view name);
bool isFloatType(SampleType type);

enum class Strategy {
    Auto,
    Cpu,
    GlobalAtomic,
    Shared,
    WarpAggregated,
    Replicated,
    RunLength,
    LargeBins,
    Cub,
    PerLane,   // 8-bit samples only: per-lane byte counters, no atomics while counting
    Partition, // samples split by bucket of 4,096 bins first, then each bucket counted in shared memory
    Packed,    // two 16-bit counters a shared word (twice the bins a pass), merged by plain stores
};

// Stable names, as the user types them on the command line and stores them in settings.
std::string_view strategyName(Strategy strategy);
std::optional<Strategy> strategyFromName(std::string_view name);
const std::vector<Strategy>& allStrategies();     // every strategy, auto first
const std::vector<Strategy>& gpuStrategies();     // the ones that need a CUDA device
bool isGpuStrategy(Strategy strategy);
// Whether the strategy takes a request of this sample type with up to `bins` bins per channel:
// `per-lane` counts 8-bit samples only, and `cub` takes at most kCubMaxBins bins (CUB keeps one
// global copy of the bins per block, and its 32-bit offsets into them overflow beyond: an illegal
// address at 2^24 bins over 16 M keys on the H200). A request a strategy does not take fails with
// ErrorCode::UnsupportedStrategy.
bool strategyAccepts(Strategy strategy, SampleType type, std::uint32_t bins = 1);
inline constexpr std::uint32_t kCubMaxBins = 1u << 20;

enum class MemorySpace { Host, Device };

struct Rect {
    std::int64_t x = 0;
    std::int64_t y = 0;
    std::int64_t width = 0;
    std::int64_t height = 0;
};

inline constexpr int kMaxChannels = 4;

// An interleaved image (or, with height 1, a 1-D array of any length) in host or device memory.
struct ImageView {
    const void* data = nullptr;
    MemorySpace space = MemorySpace::Host;
    SampleType type = SampleType::U8;
    std::int64_t width = 0;            // pixels per row
    std::int64_t height = 0;           // rows
    std::size_t strideBytes = 0;       // 0 means tightly packed
    int channels = 1;                  // 1..4 interleaved
    std::optional<Rect> roi;           // counted region; the whole image when absent
};

ImageView keysView(const void* data, std::size_t count, SampleType type,
                   MemorySpace space = MemorySpace::Host);

// How the samples of one channel map to bins. Integer samples with identity binning use
// bin = value - lo. Otherwise bin = floor((v - lo) * bins / (hi - lo)) over [lo, hi):
// exact integer arithmetic for integer samples (lo and hi rounded up to integers), and for
// floating-point samples the float expression (v - lo) * (float(bins) / (hi - lo)), clamped to the
// last bin, which is what CUB computes too. Samples below lo, at or above hi, and NaN are counted
// in their own counters, never dropped.
struct ChannelBinning {
    bool active = true;
    std::uint32_t bins = 256;
    double lo = 0.0;
    double hi = 256.0;
    bool identity = false;  // integer samples only: hi = lo + bins
};

// The exclusive upper edge of the binned range: the one place that knows identity bins end at
// lo + bins whatever `hi` says.
inline double upperEdge(const ChannelBinning& b) { return b.identity ? b.lo + double(b.bins) : b.hi; }

inline constexpr std::uint32_t kMaxBins = 1u << 24;

struct HistogramRequest {
    ImageView image;
    std::array<ChannelBinning, kMaxChannels> binning{};
    Strategy strategy = Strategy::Auto;
    // The caller's CUDA stream (a cudaStream_t as an integer) for a GPU engine's count: the
    // upload, clear, tally and download are enqueued on it, after what the caller enqueued
    // before, so device input written in that stream needs no synchronisation first. 0: the
    // engine's own (non-blocking) stream: name the legacy default stream as cudaStreamLegacy (1).
    // Ignored by the CPU backend. The stream must belong to the engine's
    // device, and stay valid until the result is delivered.
    std::uintptr_t stream = 0;
    // Where the counts stay, for a caller that keeps them on the GPU (a device tensor's result):
    // memory of the engine's device, 8-byte aligned, holding one 64-bit count per bin of every
    // active channel, channel after channel in channel order. The engine writes the counts there,
    // in the request's stream, instead of downloading them; the result's channels then carry no
    // counts (countsOnDevice), only what the host needs to read them: below, above, NaN and the
    // extremes. Null: the counts are downloaded into the result, as usual. Needs a GPU engine and
    // a GPU strategy, and compute() or submit()/finish() without accumulation.
    void* deviceCounts = nullptr;
    // With deviceCounts: the active channels whose bins are written there (bit c: channel c);
    // the others are counted for their margins and extremes alone and take no room in it
    // (bincount's high words of 64-bit keys, which only say whether a key is out of range).
    std::uint32_t deviceCountsChannels = ~0u;
    // Counts kept on the device, as with deviceCounts, at an address named only when the count
    // ends: submit(), then finishInto(deviceCounts, result). A caller can then allocate the
    // result while the GPU counts (the Python module's device tensors, whose allocation would
    // otherwise precede the count). deviceCounts stays null; compute() refuses such a request.
    bool deviceCountsAtFinish = false;
};

// Binning for the natural range of a type: 256 bins over [0,256) for u8, 65536 for u16, etc.
ChannelBinning defaultBinning(SampleType type);
HistogramRequest makeRequest(const ImageView& image, const ChannelBinning& binning,
                             Strategy strategy = Strategy::Auto);

struct ChannelHistogram {
    int channel = 0;                    // index into the interleaved pixel
    ChannelBinning binning;
    std::vector<std::uint64_t> counts;  // one per bin
    std::uint64_t below = 0;            // samples < lo
    std::uint64_t above = 0;            // samples >= hi (and +inf)
    std::uint64_t nan = 0;              // NaN samples
    // The exact extremes of the counted samples (the region's samples of this channel, NaN
    // excluded, out-of-range and infinite ones included): the data's own, not bin edges. Every
    // supported sample type converts to double exactly; a zero is reported as +0. hasValues is
    // false when no such sample was counted, and then both are 0.
    bool hasValues = false;
    double minValue = 0;
    double maxValue = 0;

    std::uint64_t inRange() const;
    std::uint64_t total() const { return inRange() + below + above + nan; }
    bool operator==(const ChannelHistogram& other) const;
};

// Phase times measured with CUDA events (zero on the CPU backend, which reports tally only).
// mergeMs: a histogram's block-private counters are merged inside the counting kernel, so it is
// part of tallyMs and mergeMs stays 0; equalize() reports its LUT build and apply there.
struct PhaseTimings {
    double uploadMs = 0;
    double clearMs = 0;
    double tallyMs = 0;
    double mergeMs = 0;
    double downloadMs = 0;
    // Host moments of the call, in nanoseconds of std::chrono::steady_clock (CLOCK_MONOTONIC on
    // Linux, the clock of Python's time.perf_counter), 0 where not taken: where a call's wall time
    // goes around its GPU phases. The GPU backend takes all five; the CPU backend all but the two
    // GPU ones.
    std::int64_t enteredNs = 0;    // compute() or submit() began
    std::int64_t gpuQueuedNs = 0;  // the call's first GPU work was enqueued: its first phase began
    std::int64_t submittedNs = 0;  // everything was enqueued: submit() returned
    std::int64_t syncedNs = 0;     // the host's wait for the GPU returned
    std::int64_t finishedNs = 0;   // the result was complete: finish() returned
    double totalMs() const { return uploadMs + clearMs + tallyMs + mergeMs + downloadMs; }
};

struct HistogramResult {
    std::vector<ChannelHistogram> channels;  // active channels, in channel order
    Strategy strategyRan = Strategy::Cpu;
    std::string strategyReason;              // why it ran, e.g. "auto: 259 slots fit in shared memory ..."
    PhaseTimings timings;
    std::uint64_t samples = 0;               // samples counted (all active channels)
    // The counts were written to HistogramRequest::deviceCounts: every channel's `counts` is empty
    // (inRange() and total() do not hold), its margins and extremes are the data's.
    bool countsOnDevice = false;
    bool operator==(const HistogramResult& other) const { return channels == other.channels; }
};

// Errors travel as values: the engine never throws across its boundary.
enum class ErrorCode {
    None,
    InvalidArgument,
    UnsupportedStrategy,
    NoDevice,
    OutOfMemory,
    CudaError,
    WrongThread,   // the engine belongs to another thread (see HistogramEngine.h)
    // The device faulted (a sticky CUDA error, or its context was reset after another engine's
    // fault): this engine counts nothing more. Build a new engine; its constructor resets a
    // faulted device once, and falls back to the CPU when that fails.
    DeviceLost,
};

struct Status {
    ErrorCode code = ErrorCode::None;
    std::string message;

    bool ok() const { return code == ErrorCode::None; }
    explicit operator bool() const { return ok(); }
    static Status success() { return {}; }
    static Status error(ErrorCode code, std::string message) { return {code, std::move(message)}; }
};

}  // namespace hs
