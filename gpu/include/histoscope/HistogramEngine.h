// The engine facade: one object per worker thread counts histograms on the best backend it
// finds. No CUDA types here; the CUDA backend lives behind it in its own target.
#pragma once

#include "histoscope/HistogramTypes.h"

#include <memory>
#include <mutex>
#include <string>

namespace hs {

namespace detail {
class Backend;
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

// Device memory owned by the engine's CUDA backend, for callers that keep frames on the GPU.
class DeviceArray {
public:
    DeviceArray() = default;
    void* data() const { return m_data.get(); }
    std::size_t size() const { return m_size; }
    explicit operator bool() const { return m_data != nullptr; }

private:
    friend class detail::Backend;
    std::shared_ptr<void> m_data;
    std::size_t m_size = 0;
};

struct EqualizeResult {
    std::vector<std::vector<std::uint32_t>> luts;  // per equalized channel: 256 or 65536 entries
    HistogramResult histogram;                    // of the input, per equalized channel
    PhaseTimings timings;
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
    const std::string& notice() const { return m_notice; }
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

    // Global histogram equalization of a u8 or u16 image, each selected channel on its own:
    // histogram, CDF, LUT and apply, on the GPU when there is one. `output` receives the same
    // width, height and channels at `outputStrideBytes` (0: packed rows).
    // LUT: v -> round((cdf(v) - cdf_min) * (levels - 1) / (count - cdf_min)), integer arithmetic.
    Status equalize(const ImageView& image, void* output, std::size_t outputStrideBytes, EqualizeResult& result,
                    std::array<bool, kMaxChannels> channels = {true, true, true, false});

    // The strategy `auto` would run for this request.
    Strategy chooseStrategy(const HistogramRequest& request);

    Status allocateDevice(std::size_t bytes, DeviceArray& array);
    Status copyToDevice(const void* host, std::size_t bytes, DeviceArray& array);

    // Times one pass of 16-byte loads over device bytes: the physical floor for any strategy.
    Status readProbe(const void* d_data, std::size_t bytes, double& milliseconds);

private:
    std::mutex m_mutex;
    std::unique_ptr<detail::Backend> m_backend;
    std::string m_notice;
    bool m_pending = false;
    Status m_pendingStatus;
};

}  // namespace hs
