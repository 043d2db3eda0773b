// What the facade asks of a backend. The CPU backend is always built; the CUDA one only
// when the toolkit is found, and only used when a device is present at run time.
#pragma once

#include "RequestPlan.h"
#include "Try.h"
#include "histoscope/EngineDiagnostics.h"
#include "histoscope/HistogramEngine.h"

#include <functional>

namespace hs::detail {

class Backend {
public:
    virtual ~Backend() = default;
    virtual BackendKind kind() const = 0;
    virtual std::optional<DeviceInfo> deviceInfo() const { return std::nullopt; }
    // Resolves `requested` for the plan without counting. The backend is the one owner of the
    // `auto` rule: submit() resolves through the same function, once per call.
    virtual Status chooseStrategy(const RequestPlan& plan, Strategy requested, StrategyChoice& choice) = 0;
    // Resolves `requested` (`auto` included) once and enqueues the count.
    virtual Status submit(const RequestPlan& plan, Strategy requested) = 0;
    // `deviceCounts`: where a submit of deviceCountsAtFinish writes its counts (null otherwise).
    virtual Status finish(HistogramResult& result, bool accumulate, void* deviceCounts = nullptr) = 0;
    // Equalizes the plan's active channels (identity bins over the full 8/16-bit range).
    virtual Status equalize(const RequestPlan& plan, unsigned char* output, std::size_t outputPitch,
                            EqualizeResult& result) = 0;
    // Maps the plan's active channels through `luts` (one per active channel, validated by the
    // facade: `levels` entries each, all within the sample type) into host `output`; the other
    // channels are copied. Fills uploadMs, mergeMs (the apply) and downloadMs.
    virtual Status applyLuts(const RequestPlan& plan, const std::vector<std::vector<std::uint32_t>>& luts,
                             unsigned char* output, std::size_t outputPitch, PhaseTimings& timings) = 0;
    virtual Status allocateDevice(std::size_t bytes, std::shared_ptr<void>& data);
    virtual Status copyToDevice(const void* host, std::size_t bytes, void* d_data);
    virtual Status copyToHost(const void* d_data, std::size_t bytes, void* host);
    virtual Status readProbe(const void* d_data, std::size_t bytes, double& milliseconds);

    // Every working call of the facade runs through here: the CUDA backend holds its device's
    // context for the call, refuses a context reset since it was made, and notes a fault.
    virtual Status call(const std::function<Status()>& work) { return work(); }
    // The test hook's fault (FaultInjection.h): a GPU launches a kernel that writes out of bounds;
    // the CPU has no device to lose, so it only answers as one that was lost.
    virtual Status injectFault();
};

// The reason a result carries when the caller named its strategy.
inline std::string requestedReason(Strategy s) { return "requested: " + std::string(strategyName(s)); }

}  // namespace hs::detail
