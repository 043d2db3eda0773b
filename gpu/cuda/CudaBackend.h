// The CUDA backend: owns the device buffers, the stream and the events, splits a request into
// pieces, uploads host pieces through pinned staging, and runs the dispatched strategy.
#pragma once

#include "../src/Backend.h"
#include "DeviceHealth.h"
#include "DeviceMemory.h"
#include "Dispatch.h"

#include <array>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <vector>

namespace hs::detail {

class CudaBackend final : public Backend {
public:
    CudaBackend(int device, int cpuThreads);
    ~CudaBackend() override;
    Status init();

    BackendKind kind() const override { return BackendKind::Cuda; }
    std::optional<DeviceInfo> deviceInfo() const override { return m_info; }
    Status chooseStrategy(const RequestPlan& plan, Strategy requested, StrategyChoice& choice) override;
    Status submit(const RequestPlan& plan, Strategy requested) override;
    Status finish(HistogramResult& result, bool accumulate, void* deviceCounts = nullptr) override;
    Status equalize(const RequestPlan& plan, unsigned char* output, std::size_t outputPitch,
                    EqualizeResult& result) override;
    Status applyLuts(const RequestPlan& plan, const std::vector<std::vector<std::uint32_t>>& luts,
                     unsigned char* output, std::size_t outputPitch, PhaseTimings& timings) override;
    Status allocateDevice(std::size_t bytes, std::shared_ptr<void>& data) override;
    Status copyToDevice(const void* host, std::size_t bytes, void* d_data) override;
    Status copyToHost(const void* d_data, std::size_t bytes, void* host) override;
    Status readProbe(const void* d_data, std::size_t bytes, double& milliseconds) override;
    Status call(const std::function<Status()>& work) override { return m_health.call(work); }
    Status injectFault() override;

private:
    struct Piece {
        std::int64_t row;
        std::int64_t rows;
        std::int64_t x;
        std::int64_t width;
    };
    // PhaseTimings' phases, one not reported, and the end of the call.
    enum Phase { Upload, Clear, Tally, Merge, Download, Untimed, End };
    // A request's strategy resolved once, with the one skew sample it took, if any.
    struct Resolution {
        StrategyChoice choice;
        std::shared_ptr<const SkewEstimate> skew;
    };

    // The strategy for a plan, with its reason in words unless `explain` is false (submit()
    // explains after its launch: explained() then gives the same words).
    Status resolve(const RequestPlan& plan, Strategy requested, Resolution& resolution, bool explain = true);
    std::string explained(const RequestPlan& plan, Strategy requested, const Resolution& resolution) const;
    Status enqueue(const RequestPlan& plan, const Resolution& resolution);
    Status skewEstimate(const RequestPlan& plan, std::shared_ptr<const SkewEstimate>& estimate);
    // The pending device sample, once downloaded, into its input's entry of m_estimates.
    Status consumeSample();
    Status stagePiece(const RequestPlan& plan, const Piece& piece, int buffer, SampleGrid& grid);
    std::vector<Piece> makePieces(const RequestPlan& plan) const;
    Status mark(Phase phase);
    // The marks' phases, summed, once the stream has reached the last mark.
    Status markedTimings(PhaseTimings& timings);
    // Enqueues the copy of a host plan's pixels into m_equalizeIn as packed rows (pitch: a row).
    Status uploadWhole(const RequestPlan& plan, const unsigned char*& d_packed);
    Status enqueueApplyLuts(const RequestPlan& plan, const std::vector<std::vector<std::uint32_t>>& luts,
                            unsigned char* output, std::size_t outputPitch);
    Status reserveSlots(int index, std::size_t words);
    Status checkDeviceCounts(const void* deviceCounts) const;
    // The Download phase of counts kept on the device: the last enqueue's counts written to
    // device memory, their margins downloaded.
    Status enqueueDelivery(void* deviceCounts);
    Status takeEvent(cudaEvent_t& event);

    // Declared first, so destroyed last: the context is held while the owners below release.
    std::optional<std::shared_lock<std::shared_mutex>> m_teardown;
    int m_device;
    DeviceHealth m_health;
    int m_cpuThreads;
    DeviceInfo m_info;
    DeviceProps m_props;
    ArchTuning m_tuning{};
    LaunchCache m_launchCache;
    CudaStream m_stream;
    // The stream this call's work is enqueued on: the caller's (HistogramRequest::stream) for a
    // count that names one, else m_stream. Every enqueue and wait of a call goes through it.
    cudaStream_t m_work = nullptr;
    // Two totals buffers (slots, then the encoded extremes), so that a launch can clear the one
    // the next call counts into; m_zeroedWords says how many leading words are known to be zero.
    DeviceBuffer m_slotBuffers[2];
    std::size_t m_zeroedWords[2] = {0, 0};
    int m_slotIndex = 0;
    unsigned long long* m_countedSlots = nullptr;  // the buffer the last enqueue counted into
    PinnedBuffer m_hostSlots;
    DeviceBuffer m_stage[2];
    PinnedBuffer m_hostStage[2];
    CudaEvent m_stageFree[2];
    DeviceBuffer m_hotKeys;
    PinnedBuffer m_hostHotKeys;
    CudaEvent m_hotKeysFree;  // the last upload of the hot-slot table has left m_hostHotKeys
    // The estimate whose table m_hotKeys holds (held, so that no other estimate takes its address).
    std::shared_ptr<const SkewEstimate> m_hotKeysSource;
    DeviceBuffer m_sample;
    PinnedBuffer m_hostSample;
    DeviceBuffer m_probeSink;
    // Device inputs: the skew sample of a call is downloaded and estimated while the call counts,
    // and steers the next call on the same input, so that `auto` does not wait for it (the
    // estimate only steers speed, never counts).
    CudaEvent m_sampleDone;
    bool m_samplePending = false;
    std::size_t m_sampleValues = 0;
    int m_sampleChannels = 1;
    std::uint64_t m_pendingSignature = 0;
    const void* m_pendingSource = nullptr;
    // The last estimates of a few inputs (shape and address): a training loop that counts token
    // ids and expert ids in turn, or a benchmark that rotates its buffers, would otherwise wait
    // for a sample each call (40-75 us of wall on the H200, session 17).
    struct CachedEstimate {
        std::uint64_t signature = 0;
        const void* source = nullptr;                  // the input its sample was taken from
        std::shared_ptr<const SkewEstimate> estimate;  // null: an empty entry
        std::uint64_t lastUsed = 0;                    // m_estimateClock when last used or estimated
    };
    CachedEstimate* cachedEstimate(std::uint64_t signature, const void* source);
    std::array<CachedEstimate, 8> m_estimates;
    std::uint64_t m_estimateClock = 0;
    SkewCounter m_skewCounter;
    StrategyScratch m_scratch;
    DeviceBuffer m_equalizeIn;
    DeviceBuffer m_equalizeOut;
    DeviceBuffer m_luts;
    PinnedBuffer m_hostLuts;
    std::vector<CudaEvent> m_events;
    std::size_t m_eventsUsed = 0;
    std::vector<std::pair<Phase, cudaEvent_t>> m_marks;
    std::int64_t m_gpuQueuedNs = 0;  // when the first mark of the call was enqueued (PhaseTimings)

    RequestPlan m_plan;
    Strategy m_ran = Strategy::Auto;
    bool m_ready = false;  // a submit enqueued completely: finish() may deliver
    std::string m_reason;
    std::vector<std::uint64_t> m_cpuSlots;
    ExtremaWords m_cpuExtrema{};
    double m_cpuMs = 0;
};

}  // namespace hs::detail
