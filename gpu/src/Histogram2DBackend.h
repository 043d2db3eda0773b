// The 2-D histograms' backends behind hs::Histogram2DEngine: the CPU one (OpenMP) is always
// built; the CUDA one comes from the CUDA target through makeCuda2DBackend.
#pragma once

#include "Histogram2DPlan.h"
#include "histoscope/Histogram2D.h"

#include <functional>
#include <memory>
#include <string>

namespace hs::detail {

class Backend2D {
public:
    virtual ~Backend2D() = default;
    virtual BackendKind kind() const = 0;
    // What `requested` resolves to for this plan, and why; an error when it cannot run here.
    virtual Status choose(const Plan2D& plan, Strategy requested, StrategyChoice& choice) = 0;
    // Writes the plan's counts into the targets' grids, replacing what they held, with a chosen
    // strategy. After an error the grids hold no count (the caller discards them).
    virtual Status count(const Plan2D& plan, Strategy strategy, const GridTargets& targets, PhaseTimings& timings) = 0;
    // As Backend::call and Backend::injectFault (Backend.h).
    virtual Status call(const std::function<Status()>& work) { return work(); }
    virtual Status injectFault()
    {
        return Status::error(ErrorCode::DeviceLost, "the device faulted (injected by the test hook)");
    }
};

std::unique_ptr<Backend2D> makeCpu2DBackend(int threads);
// Null with `why` set when no usable device is present (or the build has no CUDA).
std::unique_ptr<Backend2D> makeCuda2DBackend(const EngineOptions& options, std::string& why);

}  // namespace hs::detail
