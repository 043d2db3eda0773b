// The engine facade: counts histograms on the best backend it finds. No CUDA types here; the
// CUDA backend lives behind a pImpl in its own target.
//
// Thread contract: one engine per thread. An engine binds to the first thread that calls one of
// its working members (compute, accumulate, submit, finish, equalize, applyLuts, chooseStrategy and
// the diagnostics of EngineDiagnostics.h); a later call from any other thread does nothing and returns
// ErrorCode::WrongThread. The engine holds no lock: a GPU engine owns a stream, and interleaving
// two threads' work on it would mix their results, so the contract forbids sharing instead of
// serialising it. The read-only members (backend, hasGpu, notice, deviceInfo) may be called from
// any thread: they read what the constructor set. Construction and destruction may happen on
// another thread than the work, but not while a working member runs.
#pragma once

#include "histoscope/HistogramTypes.h"

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hs {

namespace detail {
struct EngineAccess;
}

enum class BackendKind { Cpu, Cuda };

struct EngineOptions {
    bool useGpu = true;   // false forces the CPU backend
    int device = 0;       // CUDA device ordinal
    int cpuThreads = 0;   // 0: OpenMP's default
};

struct DeviceInfo {
    std::string name;
    int computeMajor = 0;
    int computeMinor = 0;
    int multiprocessors = 0;
    std::size_t globalMemoryBytes = 0;
    std::size_t l2Bytes = 0;
    std::size_t sharedPerBlockOptin = 0;
};

struct EqualizeResult {
    std::vector<std::vector<std::uint32_t>> luts;  // per equalized channel: 256 or 65536 entries
    HistogramResult histogram;                    // of the input, per equalized channel
    PhaseTimings timings;
};

// What a strategy request resolves to on this engine, and why (the same words a result carries).
struct StrategyChoice {
    Strategy strategy = Strategy::Cpu;
    std::string reason;
};

class HistogramEngine {
public:
    explicit HistogramEngine(EngineOptions options = {});
    ~HistogramEngine();
    HistogramEngine(const HistogramEngine&) = delete;
    HistogramEngine& operator=(const HistogramEngine&) = delete;

    BackendKind backend() const;
    bool hasGpu() const { return backend() == BackendKind::Cuda; }
    // Why the engine runs where it does, e.g. "No CUDA device found: counting on the CPU".
    const std::string& notice() const;
    std::optional<DeviceInfo> deviceInfo() const;
    static int cudaDeviceCount();   // 0 when built without CUDA or no device is present
    static bool builtWithCuda();

    // Counts the request and replaces `result`. Blocks the calling thread (meant for a worker).
    Status compute(const HistogramRequest& request, HistogramResult& result);
    // Adds the request's counts to `result`, which must hold the same channels and bins.
    Status accumulate(const HistogramRequest& request, HistogramResult& result);

    // Asynchronous form: submit() enqueues upload, counting and download on the engine's stream
    // and returns; finish() waits and delivers. Host data must stay valid until finish().
    Status submit(const HistogramRequest& request);
    Status finish(HistogramResult& result, bool accumulate = false);
    // finish() of a request submitted with deviceCountsAtFinish: writes its counts to
    // `deviceCounts` (as HistogramRequest::deviceCounts says), then waits and delivers the rest.
    Status finishInto(void* deviceCounts, HistogramResult& result);

    // Global histogram equalization of a u8 or u16 image, each selected channel on its own:
    // histogram, CDF, LUT and apply, on the GPU when there is one. `output` receives the same
    // width, height and channels at `outputStrideBytes` (0: packed rows).
    // LUT: v -> round((cdf(v) - cdf_min) * (levels - 1) / (count - cdf_min)), integer arithmetic.
    Status equalize(const ImageView& image, void* output, std::size_t outputStrideBytes, EqualizeResult& result,
                    std::array<bool, kMaxChannels> channels = {true, true, true, false});

    // Maps the selected channels of a u8 or u16 image through one LUT each, on the GPU when there
    // is one (the same kernel as equalize()), and copies the other channels unchanged. `luts` holds
    // one LUT per selected channel below image.channels, in channel order, each of 256 (u8) or
    // 65536 (u16) entries no larger than the type's largest value (matchingLut's, or equalize()'s).
    // `output` is host memory receiving the same width, height and channels at
    // `outputStrideBytes` (0: packed rows); only each row's pixels are written, never the padding
    // between rows. The image may be in host memory, or in device memory on a GPU engine. Like
    // equalize() it takes the whole view: for a region, pass a view of the region's pixels.
    // `timings`, when given: uploadMs (LUTs and pixels), mergeMs (the apply), downloadMs.
    Status applyLuts(const ImageView& image, const std::vector<std::vector<std::uint32_t>>& luts,
                     std::array<bool, kMaxChannels> channels, void* output, std::size_t outputStrideBytes,
                     PhaseTimings* timings = nullptr);

    // What the request's strategy resolves to (`auto` included), by the same rule and from the
    // same kind of skew sample as compute(). An invalid request is an error.
    Status chooseStrategy(const HistogramRequest& request, StrategyChoice& choice);
    // Shorthand: the strategy alone; Strategy::Auto when the request is invalid or the call comes
    // from another thread than the engine's.
    Strategy chooseStrategy(const HistogramRequest& request);

private:
    class Impl;
    friend struct detail::EngineAccess;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace hs
