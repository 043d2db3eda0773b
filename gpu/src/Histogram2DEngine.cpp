#include "histoscope/Histogram2D.h"

#include "FaultInjection.h"
#include "Histogram2DBackend.h"
#include "Try.h"

#include <atomic>
#include <thread>

namespace hs {

class Histogram2DEngine::Impl {
public:
    std::unique_ptr<detail::Backend2D> gpu;
    std::unique_ptr<detail::Backend2D> cpu;
    std::string notice;

    Status enter()
    {
        const std::thread::id self = std::this_thread::get_id();
        std::thread::id expected{};
        if (!m_owner.compare_exchange_strong(expected, self) && expected != self)
            return Status::error(ErrorCode::WrongThread,
                                 "this Histogram2DEngine belongs to another thread: use one engine per thread");
        if (!m_lostCause.empty())
            return Status::error(ErrorCode::DeviceLost, m_lostCause + "; this engine counts no more: build a new one");
        return Status::success();
    }

    // Counts the plan with the resolved strategy into result's grids: replacing them, or adding
    // to them (`add`, whose axes the caller has checked), with what ran and its timings.
    Status countInto(const detail::Plan2D& plan, Strategy requested, Histogram2DResult& result, bool add)
    {
        detail::Backend2D* backend = nullptr;
        StrategyChoice choice;
        HS_TRY(resolve(plan, requested, backend, choice));
        // compute() counts straight into its result's grids; accumulate() into totals of its own
        // (kept between calls), added to the result only once the count is whole.
        detail::GridTargets targets;
        if (add) {
            m_slots.resize(plan.map.numSlots);
            targets = detail::targetsIn(plan, m_slots.data());
        } else {
            detail::shapeGrids(plan, result);
            targets = detail::targetsIn(result);
        }
        PhaseTimings timings;
        Status counted = detail::takeInjectedFault()
            ? backend->call([backend] { return backend->injectFault(); })
            : backend->call([&] { return backend->count(plan, choice.strategy, targets, timings); });
        if (counted.code == ErrorCode::DeviceLost)
            m_lostCause = counted.message;   // the engine is lost for good, as HistogramEngine's
        HS_TRY(counted);   // compute() empties the result, accumulate() never touched it
        if (add)
            detail::unpackGrid2D(plan, m_slots.data(), result, true);
        else
            result.pixels = plan.pixels();
        result.strategyRan = choice.strategy;
        result.strategyReason = choice.reason;
        result.timings = timings;
        return Status::success();
    }

    Status resolve(const detail::Plan2D& plan, Strategy requested, detail::Backend2D*& backend, StrategyChoice& choice)
    {
        switch (requested) {
        case Strategy::Auto:
        case Strategy::Cpu:
        case Strategy::GlobalAtomic:
        case Strategy::Shared:
        case Strategy::Cub: break;
        default:
            return Status::error(ErrorCode::UnsupportedStrategy,
                                 "strategy '" + std::string(strategyName(requested))
                                     + "' does not count 2-D histograms (use auto, cpu, global-atomic, shared or cub)");
        }
        backend = (requested == Strategy::Cpu || !gpu) ? cpu.get() : gpu.get();
        return backend->choose(plan, requested, choice);
    }

private:
    std::atomic<std::thread::id> m_owner{};
    std::vector<std::uint64_t> m_slots;
    std::string m_lostCause;   // empty while the device is healthy
};

Histogram2DEngine::Histogram2DEngine(EngineOptions options) : m_impl(std::make_unique<Impl>())
{
    if (options.useGpu)
        m_impl->gpu = detail::makeCuda2DBackend(options, m_impl->notice);
    else
        m_impl->notice = "GPU disabled by the user: counting on the CPU";
    m_impl->cpu = detail::makeCpu2DBackend(options.cpuThreads);
}

Histogram2DEngine::~Histogram2DEngine() = default;

BackendKind Histogram2DEngine::backend() const { return m_impl->gpu ? BackendKind::Cuda : BackendKind::Cpu; }

const std::string& Histogram2DEngine::notice() const { return m_impl->notice; }

Status Histogram2DEngine::chooseStrategy(const Histogram2DRequest& request, StrategyChoice& choice)
{
    HS_TRY(m_impl->enter());
    detail::Plan2D plan;
    HS_TRY(detail::buildPlan2D(request, plan));
    detail::Backend2D* backend = nullptr;
    return m_impl->resolve(plan, request.strategy, backend, choice);
}

Status Histogram2DEngine::compute(const Histogram2DRequest& request, Histogram2DResult& result)
{
    Status s = m_impl->enter();
    detail::Plan2D plan;
    if (s)
        s = detail::buildPlan2D(request, plan);
    if (s)
        s = m_impl->countInto(plan, request.strategy, result, false);
    if (!s)
        result = {};   // whatever failed, no earlier frame's grids pass for this request's
    return s;
}

Status Histogram2DEngine::accumulate(const Histogram2DRequest& request, Histogram2DResult& result)
{
    HS_TRY(m_impl->enter());
    detail::Plan2D plan;
    HS_TRY(detail::buildPlan2D(request, plan));
    bool same = result.histograms.size() == plan.pairs.size();
    for (std::size_t i = 0; same && i < plan.pairs.size(); ++i) {
        const AxisPair& a = result.histograms[i].axes;
        const AxisPair& b = plan.pairs[i];
        same = a.x.quantity == b.x.quantity && a.y.quantity == b.y.quantity && a.x.binning.bins == b.x.binning.bins
            && a.y.binning.bins == b.y.binning.bins && a.x.binning.lo == b.x.binning.lo
            && a.y.binning.lo == b.y.binning.lo && upperEdge(a.x.binning) == upperEdge(b.x.binning)
            && upperEdge(a.y.binning) == upperEdge(b.y.binning);
    }
    if (!same)
        return Status::error(ErrorCode::InvalidArgument, "cannot add counts to 2-D histograms with other axes or bins");
    return m_impl->countInto(plan, request.strategy, result, true);
}

}  // namespace hs
