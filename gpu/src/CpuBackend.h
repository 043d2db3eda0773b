// Multithreaded CPU backend (OpenMP): the `cpu` strategy, and the whole engine when no GPU is found.
#pragma once

#include "Backend.h"

#include <vector>

namespace hs::detail {

class CpuBackend final : public Backend {
public:
    explicit CpuBackend(int threads);
    BackendKind kind() const override { return BackendKind::Cpu; }
    Status chooseStrategy(const RequestPlan& plan, Strategy requested, StrategyChoice& choice) override;
    Status submit(const RequestPlan& plan, Strategy requested) override;
    Status finish(HistogramResult& result, bool accumulate, void* deviceCounts = nullptr) override;
    Status equalize(const RequestPlan& plan, unsigned char* output, std::size_t outputPitch,
                    EqualizeResult& result) override;
    Status applyLuts(const RequestPlan& plan, const std::vector<std::vector<std::uint32_t>>& luts,
                     unsigned char* output, std::size_t outputPitch, PhaseTimings& timings) override;

    // LUTs from slot counts, and their application: shared with the CUDA backend's checks.
    static void buildLuts(const RequestPlan& plan, const std::vector<std::uint64_t>& slots, EqualizeResult& result);
    static void applyLuts(const RequestPlan& plan, const std::vector<std::vector<std::uint32_t>>& luts,
                          unsigned char* output, std::size_t outputPitch, int threads);

    // Counts into slot totals and tracked extremes; also the CUDA backend's `cpu` strategy.
    static void countSlots(const RequestPlan& plan, int threads, std::vector<std::uint64_t>& slots,
                           ExtremaWords& extrema);

private:
    int m_threads;
    RequestPlan m_plan;
    std::vector<std::uint64_t> m_slots;
    ExtremaWords m_extrema{};
    std::string m_reason;
    double m_milliseconds = 0;
};

}  // namespace hs::detail
