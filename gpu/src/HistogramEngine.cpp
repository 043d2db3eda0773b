#include "histoscope/HistogramEngine.h"

#include "CpuBackend.h"
#include "CudaBackendFactory.h"
#include "EngineImpl.h"
#include "HostClock.h"

#include <algorithm>
#include <string>

namespace hs {

namespace {

Status checkAccumulateShape(const detail::RequestPlan& plan, const HistogramRequest& request, const HistogramResult& result)
{
    std::size_t index = 0;
    for (int c = 0; c < plan.channels; ++c) {
        if (!plan.map.ch[c].active)
            continue;
        if (index >= result.channels.size() || result.channels[index].channel != c
            || result.channels[index].counts.size() != plan.map.ch[c].num_bins)
            return Status::error(ErrorCode::InvalidArgument,
                                 "cannot add counts to a histogram with other channels or bins");
        // Same bin count over another range would add counts of different values together.
        const ChannelBinning& mine = result.channels[index].binning;
        const ChannelBinning& theirs = request.binning[std::size_t(c)];
        if (mine.lo != theirs.lo || upperEdge(mine) != upperEdge(theirs) || mine.identity != theirs.identity)
            return Status::error(ErrorCode::InvalidArgument,
                                 "cannot add counts binned over another range to a histogram");
        ++index;
    }
    if (index != result.channels.size())
        return Status::error(ErrorCode::InvalidArgument,
                             "cannot add counts to a histogram with other channels or bins");
    return Status::success();
}

Status checkStrategyAvailable(Strategy strategy, const HistogramRequest& request, const detail::Backend& backend)
{
    const SampleType type = request.image.type;
    if (!strategyAccepts(strategy, type))
        return Status::error(ErrorCode::UnsupportedStrategy, "strategy '" + std::string(strategyName(strategy))
                                                                 + "' does not count " + std::string(sampleTypeName(type))
                                                                 + " samples");
    std::uint32_t bins = 1;
    for (int c = 0; c < request.image.channels && c < kMaxChannels; ++c)
        if (request.binning[c].active)
            bins = std::max(bins, request.binning[c].bins);
    if (!strategyAccepts(strategy, type, bins))
        return Status::error(ErrorCode::UnsupportedStrategy, "strategy '" + std::string(strategyName(strategy))
                                                                 + "' takes at most " + std::to_string(kCubMaxBins)
                                                                 + " bins per channel, not " + std::to_string(bins));
    if ((request.deviceCounts || request.deviceCountsAtFinish) && (backend.kind() != BackendKind::Cuda || strategy == Strategy::Cpu))
        return Status::error(backend.kind() != BackendKind::Cuda ? ErrorCode::NoDevice : ErrorCode::UnsupportedStrategy,
                             "counts kept in device memory need a GPU engine and a GPU strategy");
    if (isGpuStrategy(strategy) && backend.kind() != BackendKind::Cuda)
        return Status::error(ErrorCode::NoDevice, "strategy '" + std::string(strategyName(strategy))
                                                      + "' needs a CUDA device, and none is available");
    return Status::success();
}

// A host output for the plan's pixels: not null when there are pixels, rows at least as long as
// the image's. Unfolds a contiguous plan whose output rows have another stride. `what` names
// the operation in the errors.
Status prepareOutput(const ImageView& image, detail::RequestPlan& plan, const void* output, std::size_t outputStrideBytes,
                     const std::string& what, std::size_t& outStride)
{
    if (plan.pixels() > 0 && !output)
        return Status::error(ErrorCode::InvalidArgument, what + " output is null");
    const std::size_t packed = std::size_t(image.width) * plan.pixelBytes;
    outStride = outputStrideBytes ? outputStrideBytes : packed;
    if (outStride < packed)
        return Status::error(ErrorCode::InvalidArgument, what + " output rows are shorter than the image's");
    if (plan.rows == 1 && image.height > 1 && outStride != packed) {
        plan.width = image.width;  // keep rows apart: the output has its own stride
        plan.rows = image.height;
    }
    return Status::success();
}

// One LUT per selected channel, each with one entry per value of the type and none beyond it:
// checked here so the CPU and the GPU never see an entry they would truncate differently.
Status checkLuts(const std::vector<std::vector<std::uint32_t>>& luts, std::size_t selected, SampleType type)
{
    if (luts.size() != selected)
        return Status::error(ErrorCode::InvalidArgument, std::to_string(luts.size()) + " LUTs given for "
                                                             + std::to_string(selected) + " selected channels");
    const std::size_t levels = type == SampleType::U8 ? 256 : 65536;
    const std::uint32_t top = std::uint32_t(levels - 1);
    const std::string typeName(sampleTypeName(type));
    for (std::size_t i = 0; i < luts.size(); ++i) {
        if (luts[i].size() != levels)
            return Status::error(ErrorCode::InvalidArgument,
                                 "LUT " + std::to_string(i) + " has " + std::to_string(luts[i].size()) + " entries; "
                                     + typeName + " samples need " + std::to_string(levels));
        const auto beyond = std::find_if(luts[i].begin(), luts[i].end(), [top](std::uint32_t v) { return v > top; });
        if (beyond != luts[i].end())
            return Status::error(ErrorCode::InvalidArgument,
                                 "LUT " + std::to_string(i) + " maps " + std::to_string(beyond - luts[i].begin()) + " to "
                                     + std::to_string(*beyond) + ", beyond the largest " + typeName + " value "
                                     + std::to_string(top));
    }
    return Status::success();
}

}  // namespace

HistogramEngine::HistogramEngine(EngineOptions options) : m_impl(std::make_unique<Impl>())
{
    if (options.useGpu)
        m_impl->backend = detail::makeCudaBackend(options, m_impl->notice);
    else
        m_impl->notice = "GPU disabled by the user: counting on the CPU";
    if (!m_impl->backend)
        m_impl->backend = std::make_unique<detail::CpuBackend>(options.cpuThreads);
}

HistogramEngine::~HistogramEngine()
{
    if (m_impl->pending) {
        HistogramResult discarded;
        m_impl->run([&] { return m_impl->backend->finish(discarded, false); }, false);
    }
}

BackendKind HistogramEngine::backend() const { return m_impl->backend->kind(); }

const std::string& HistogramEngine::notice() const { return m_impl->notice; }

std::optional<DeviceInfo> HistogramEngine::deviceInfo() const { return m_impl->backend->deviceInfo(); }

int HistogramEngine::cudaDeviceCount() { return detail::cudaDeviceCountOrZero(); }

bool HistogramEngine::builtWithCuda()
{
#ifdef HISTOSCOPE_HAVE_CUDA
    return true;
#else
    return false;
#endif
}

Status HistogramEngine::submit(const HistogramRequest& request)
{
    const std::int64_t entered = detail::hostNowNs();
    HS_TRY(m_impl->enter());
    if (m_impl->pending)
        return Status::error(ErrorCode::InvalidArgument, "finish() the previous submit() first");
    detail::RequestPlan plan;
    HS_TRY(detail::buildPlan(request, plan));
    HS_TRY(checkStrategyAvailable(request.strategy, request, *m_impl->backend));
    m_impl->pendingStatus = m_impl->run([&] { return m_impl->backend->submit(plan, request.strategy); });
    m_impl->pendingCountsAtFinish = request.deviceCountsAtFinish;
    m_impl->enteredNs = entered;
    m_impl->submittedNs = detail::hostNowNs();
    // A lost device has nothing in flight to drain.
    m_impl->pending = m_impl->pendingStatus.code != ErrorCode::DeviceLost;
    return m_impl->pendingStatus;
}

Status HistogramEngine::finish(HistogramResult& result, bool accumulate)
{
    HS_TRY(m_impl->enter());
    if (!m_impl->pending)
        return Status::error(ErrorCode::InvalidArgument, "nothing was submitted");
    return m_impl->finishPending(result, accumulate, nullptr);
}

Status HistogramEngine::finishInto(void* deviceCounts, HistogramResult& result)
{
    HS_TRY(m_impl->enter());
    if (!m_impl->pending)
        return Status::error(ErrorCode::InvalidArgument, "nothing was submitted");
    if (!m_impl->pendingCountsAtFinish)
        return Status::error(ErrorCode::InvalidArgument,
                             "finishInto() ends a request submitted with deviceCountsAtFinish: use finish()");
    if (!deviceCounts || reinterpret_cast<std::uintptr_t>(deviceCounts) % sizeof(std::uint64_t) != 0)
        return Status::error(ErrorCode::InvalidArgument, "the device counts are null or not aligned to 8 bytes");
    return m_impl->finishPending(result, false, deviceCounts);
}

Status HistogramEngine::Impl::finishPending(HistogramResult& result, bool accumulate, void* deviceCounts)
{
    pending = false;
    Status s = run([&] { return backend->finish(result, accumulate, deviceCounts); }, false);
    if (s && pendingStatus) {
        result.timings.enteredNs = enteredNs;
        result.timings.submittedNs = submittedNs;
        result.timings.finishedNs = detail::hostNowNs();
    }
    return pendingStatus ? s : pendingStatus;
}

// compute() and accumulate(): submit, then finish; a failed submit still ends what it enqueued.
static Status submitAndFinish(HistogramEngine& engine, const HistogramRequest& request, HistogramResult& result,
                              bool accumulate)
{
    const Status submitted = engine.submit(request);
    if (!detail::EngineAccess::impl(engine).pending)
        return submitted;
    if (!submitted) {
        HistogramResult discarded;
        engine.finish(discarded);
        return submitted;
    }
    return engine.finish(result, accumulate);
}

Status HistogramEngine::compute(const HistogramRequest& request, HistogramResult& result)
{
    HS_TRY(m_impl->enter());
    if (request.deviceCountsAtFinish)
        return Status::error(ErrorCode::InvalidArgument,
                             "counts named at finish (deviceCountsAtFinish) need submit() and finishInto()");
    return submitAndFinish(*this, request, result, false);
}

Status HistogramEngine::accumulate(const HistogramRequest& request, HistogramResult& result)
{
    HS_TRY(m_impl->enter());
    detail::RequestPlan plan;
    HS_TRY(detail::buildPlan(request, plan));
    if (request.deviceCounts || request.deviceCountsAtFinish)
        return Status::error(ErrorCode::InvalidArgument, "accumulate() adds into host counts: counts kept in device "
                                                         "memory are compute()'s");
    HS_TRY(checkAccumulateShape(plan, request, result));
    return submitAndFinish(*this, request, result, true);
}

Status HistogramEngine::equalize(const ImageView& image, void* output, std::size_t outputStrideBytes,
                                 EqualizeResult& result, std::array<bool, kMaxChannels> channels)
{
    HS_TRY(m_impl->enter());
    if (image.type != SampleType::U8 && image.type != SampleType::U16)
        return Status::error(ErrorCode::InvalidArgument, "equalization needs 8- or 16-bit integer samples, not "
                                                             + std::string(sampleTypeName(image.type)));
    if (image.roi)
        return Status::error(ErrorCode::InvalidArgument, "equalization works on the whole image, not a region");
    HistogramRequest request = makeRequest(image, defaultBinning(image.type), Strategy::Auto);
    bool any = false;
    for (int c = 0; c < kMaxChannels; ++c) {
        request.binning[c].active = channels[c] && c < image.channels;
        any |= request.binning[c].active;
    }
    if (!any)
        return Status::error(ErrorCode::InvalidArgument, "no channel selected for equalization");
    detail::RequestPlan plan;
    HS_TRY(detail::buildPlan(request, plan));
    std::size_t outStride = 0;
    HS_TRY(prepareOutput(image, plan, output, outputStrideBytes, "equalization", outStride));
    if (m_impl->pending)
        return Status::error(ErrorCode::InvalidArgument, "finish() the previous submit() first");
    return m_impl->run([&] { return m_impl->backend->equalize(plan, static_cast<unsigned char*>(output), outStride, result); });
}

Status HistogramEngine::applyLuts(const ImageView& image, const std::vector<std::vector<std::uint32_t>>& luts,
                                  std::array<bool, kMaxChannels> channels, void* output, std::size_t outputStrideBytes,
                                  PhaseTimings* timings)
{
    HS_TRY(m_impl->enter());
    if (image.type != SampleType::U8 && image.type != SampleType::U16)
        return Status::error(ErrorCode::InvalidArgument, "a LUT maps 8- or 16-bit integer samples, not "
                                                             + std::string(sampleTypeName(image.type)));
    if (image.roi)
        return Status::error(ErrorCode::InvalidArgument,
                             "a LUT is applied to the whole view, not a region: pass a view of the region's pixels");
    HistogramRequest request = makeRequest(image, defaultBinning(image.type), Strategy::Auto);
    std::size_t selected = 0;
    for (int c = 0; c < kMaxChannels; ++c) {
        request.binning[c].active = channels[c] && c < image.channels;
        selected += request.binning[c].active ? 1 : 0;
    }
    if (selected == 0)
        return Status::error(ErrorCode::InvalidArgument, "no channel selected for the LUT");
    detail::RequestPlan plan;
    HS_TRY(detail::buildPlan(request, plan));
    HS_TRY(checkLuts(luts, selected, image.type));
    std::size_t outStride = 0;
    HS_TRY(prepareOutput(image, plan, output, outputStrideBytes, "LUT", outStride));
    if (m_impl->pending)
        return Status::error(ErrorCode::InvalidArgument, "finish() the previous submit() first");
    PhaseTimings measured;
    HS_TRY(m_impl->run([&] { return m_impl->backend->applyLuts(plan, luts, static_cast<unsigned char*>(output), outStride, measured); }));
    if (timings)
        *timings = measured;
    return Status::success();
}

Status HistogramEngine::chooseStrategy(const HistogramRequest& request, StrategyChoice& choice)
{
    HS_TRY(m_impl->enter());
    if (m_impl->pending)
        return Status::error(ErrorCode::InvalidArgument, "finish() the previous submit() first");
    detail::RequestPlan plan;
    HS_TRY(detail::buildPlan(request, plan));
    HS_TRY(checkStrategyAvailable(request.strategy, request, *m_impl->backend));
    return m_impl->run([&] { return m_impl->backend->chooseStrategy(plan, request.strategy, choice); }, false);
}

Strategy HistogramEngine::chooseStrategy(const HistogramRequest& request)
{
    StrategyChoice choice;
    return chooseStrategy(request, choice) ? choice.strategy : Strategy::Auto;
}

}  // namespace hs
