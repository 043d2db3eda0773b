#include "histoscope/HistogramEngine.h"

#include "CpuBackend.h"
#include "CudaBackendFactory.h"

namespace hs {

namespace detail {

Status Backend::allocateDevice(std::size_t, DeviceArray&)
{
    return Status::error(ErrorCode::NoDevice, "no CUDA device: device memory is unavailable");
}

Status Backend::copyToDevice(const void*, std::size_t, DeviceArray&)
{
    return Status::error(ErrorCode::NoDevice, "no CUDA device: device memory is unavailable");
}

Status Backend::readProbe(const void*, std::size_t, double&)
{
    return Status::error(ErrorCode::NoDevice, "no CUDA device: the read probe needs one");
}

}  // namespace detail

namespace {

Status checkAccumulateShape(const detail::RequestPlan& plan, const HistogramResult& result)
{
    std::size_t index = 0;
    for (int c = 0; c < plan.channels; ++c) {
        if (!plan.map.ch[c].active)
            continue;
        if (index >= result.channels.size() || result.channels[index].channel != c
            || result.channels[index].counts.size() != plan.map.ch[c].num_bins)
            return Status::error(ErrorCode::InvalidArgument,
                                 "cannot add counts to a histogram with other channels or bins");
        ++index;
    }
    if (index != result.channels.size())
        return Status::error(ErrorCode::InvalidArgument,
                             "cannot add counts to a histogram with other channels or bins");
    return Status::success();
}

}  // namespace

HistogramEngine::HistogramEngine(EngineOptions options)
{
    if (options.useGpu) {
        m_backend = detail::makeCudaBackend(options, m_notice);
    } else {
        m_notice = "GPU disabled by the user: counting on the CPU";
    }
    if (!m_backend)
        m_backend = std::make_unique<detail::CpuBackend>(options.cpuThreads);
}

HistogramEngine::~HistogramEngine()
{
    if (m_pending) {
        HistogramResult discarded;
        m_backend->finish(discarded, false);
    }
}

BackendKind HistogramEngine::backend() const { return m_backend->kind(); }

std::optional<DeviceInfo> HistogramEngine::deviceInfo() const { return m_backend->deviceInfo(); }

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
    std::lock_guard lock(m_mutex);
    if (m_pending)
        return Status::error(ErrorCode::InvalidArgument, "finish() the previous submit() first");
    detail::RequestPlan plan;
    if (Status s = detail::buildPlan(request, plan); !s)
        return s;
    Strategy strategy = request.strategy;
    if (isGpuStrategy(strategy) && m_backend->kind() != BackendKind::Cuda)
        return Status::error(ErrorCode::NoDevice, "strategy '" + std::string(strategyName(strategy))
                                                      + "' needs a CUDA device, and none is available");
    if (strategy == Strategy::Auto)
        strategy = m_backend->chooseStrategy(plan);
    m_pendingStatus = m_backend->submit(plan, strategy);
    m_pending = true;
    return m_pendingStatus;
}

Status HistogramEngine::finish(HistogramResult& result, bool accumulate)
{
    std::lock_guard lock(m_mutex);
    if (!m_pending)
        return Status::error(ErrorCode::InvalidArgument, "nothing was submitted");
    m_pending = false;
    Status s = m_backend->finish(result, accumulate);
    return m_pendingStatus ? s : m_pendingStatus;
}

Status HistogramEngine::compute(const HistogramRequest& request, HistogramResult& result)
{
    if (Status s = submit(request); !s) {
        if (m_pending) {
            HistogramResult discarded;
            finish(discarded);
        }
        return s;
    }
    return finish(result, false);
}

Status HistogramEngine::accumulate(const HistogramRequest& request, HistogramResult& result)
{
    detail::RequestPlan plan;
    if (Status s = detail::buildPlan(request, plan); !s)
        return s;
    if (Status s = checkAccumulateShape(plan, result); !s)
        return s;
    if (Status s = submit(request); !s) {
        if (m_pending) {
            HistogramResult discarded;
            finish(discarded);
        }
        return s;
    }
    return finish(result, true);
}

Status HistogramEngine::equalize(const ImageView& image, void* output, std::size_t outputStrideBytes,
                                 EqualizeResult& result, std::array<bool, kMaxChannels> channels)
{
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
    if (Status s = detail::buildPlan(request, plan); !s)
        return s;
    if (plan.pixels() > 0 && !output)
        return Status::error(ErrorCode::InvalidArgument, "equalization output is null");
    const std::size_t packed = std::size_t(image.width) * plan.pixelBytes;
    const std::size_t outStride = outputStrideBytes ? outputStrideBytes : packed;
    if (outStride < packed)
        return Status::error(ErrorCode::InvalidArgument, "equalization output rows are shorter than the image's");
    if (plan.rows == 1 && image.height > 1 && outStride != packed) {
        plan.width = image.width;  // keep rows apart: the output has its own stride
        plan.rows = image.height;
    }
    std::lock_guard lock(m_mutex);
    if (m_pending)
        return Status::error(ErrorCode::InvalidArgument, "finish() the previous submit() first");
    return m_backend->equalize(plan, static_cast<unsigned char*>(output), outStride, result);
}

Strategy HistogramEngine::chooseStrategy(const HistogramRequest& request)
{
    std::lock_guard lock(m_mutex);
    detail::RequestPlan plan;
    if (!detail::buildPlan(request, plan))
        return m_backend->kind() == BackendKind::Cuda ? Strategy::GlobalAtomic : Strategy::Cpu;
    return m_backend->chooseStrategy(plan);
}

Status HistogramEngine::allocateDevice(std::size_t bytes, DeviceArray& array)
{
    std::lock_guard lock(m_mutex);
    return m_backend->allocateDevice(bytes, array);
}

Status HistogramEngine::copyToDevice(const void* host, std::size_t bytes, DeviceArray& array)
{
    std::lock_guard lock(m_mutex);
    return m_backend->copyToDevice(host, bytes, array);
}

Status HistogramEngine::readProbe(const void* d_data, std::size_t bytes, double& milliseconds)
{
    std::lock_guard lock(m_mutex);
    return m_backend->readProbe(d_data, bytes, milliseconds);
}

}  // namespace hs
