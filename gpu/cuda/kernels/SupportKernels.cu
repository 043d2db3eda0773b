// Small kernels around the strategies: the slot sample behind `auto`'s skew estimate and the
// hot-slot tables, and the read-bandwidth probe that is the benchmark's physical floor.
#include "../LaunchSupport.cuh"
#include "../SampleWalker.cuh"
#include "Kernels.h"

namespace hs::detail {

namespace {

template <typename T, int C>
__global__ void slotSampleKernel(KernelArgs a, std::uint32_t* d_out, std::uint32_t count)
{
    const std::uint64_t pixels = std::uint64_t(a.grid.width) * std::uint64_t(a.grid.rows);
    for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
        const std::uint64_t p = samplePixel(pixels, i, count);
        const std::uint64_t r = p / std::uint64_t(a.grid.width);
        const std::uint64_t x = p - r * std::uint64_t(a.grid.width);
        const unsigned char* pixel = a.grid.d_origin + r * a.grid.pitch + x * C * sizeof(T);
        staticFor<C>([&](auto channel) {
            constexpr int c = decltype(channel)::value;
            const ChannelMap& m = a.map.ch[c];
            d_out[std::size_t(i) * C + c] = m.active ? slotOf(m, loadSample<T>(pixel + c * sizeof(T))) : 0xffffffffu;
        });
    }
}

// Four independent 16-byte loads in flight per thread per step: the probe should be the best
// read any kernel could do, or the ratios against it flatter the strategies.
__global__ void readProbeKernel(const uint4* d_data, std::size_t count, unsigned long long* d_sink)
{
    unsigned int acc = 0;
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < count; i += 4 * stride) {
        const uint4 a = __ldg(d_data + i), b = __ldg(d_data + i + stride), c = __ldg(d_data + i + 2 * stride),
                    d = __ldg(d_data + i + 3 * stride);
        acc ^= a.x ^ a.y ^ a.z ^ a.w ^ b.x ^ b.y ^ b.z ^ b.w ^ c.x ^ c.y ^ c.z ^ c.w ^ d.x ^ d.y ^ d.z ^ d.w;
    }
    for (; i < count; i += stride) {
        const uint4 q = __ldg(d_data + i);
        acc ^= q.x ^ q.y ^ q.z ^ q.w;
    }
    if (acc == 0x9e3779b9u)  // practically never: keeps the loads without a store per thread
        *d_sink = acc;
}

}  // namespace

Status launchSlotSample(const KernelArgs& args, std::uint32_t* d_out, std::uint32_t count, const LaunchContext& ctx)
{
    return visitTypeAndChannels(args.type, args.channels, [&](auto tag, auto channels) -> Status {
        using T = decltype(tag);
        constexpr int C = decltype(channels)::value;
        // One gather per thread: the sample costs one memory latency, not count / threads of them.
        const unsigned blocks = std::max(1u, (count + kSampleGatherThreads - 1) / kSampleGatherThreads);
        slotSampleKernel<T, C><<<blocks, kSampleGatherThreads, 0, ctx.stream>>>(args, d_out, count);
        return lastLaunchStatus("slotSampleKernel");
    });
}

Status launchReadProbe(const void* d_data, std::size_t bytes, unsigned long long* d_sink, const LaunchContext& ctx)
{
    const int threads = ctx.tuning.probeThreads;
    int perMultiprocessor = 0;
    HS_TRY(ctx.cache.blocksPerMultiprocessor(reinterpret_cast<const void*>(readProbeKernel), threads, 0, perMultiprocessor));
    const unsigned blocks = unsigned(std::max(1, perMultiprocessor) * ctx.props.multiprocessors);
    readProbeKernel<<<blocks, threads, 0, ctx.stream>>>(static_cast<const uint4*>(d_data), bytes / 16, d_sink);
    return lastLaunchStatus("readProbeKernel");
}

__global__ void faultKernel(unsigned* d_nowhere) { d_nowhere[threadIdx.x] = threadIdx.x; }

Status launchFault(cudaStream_t stream)
{
    // The first page of the address space is never mapped: a write there always faults.
    faultKernel<<<1, 32, 0, stream>>>(reinterpret_cast<unsigned*>(std::uintptr_t(256)));
    HS_TRY(lastLaunchStatus("faultKernel"));
    return cudaStatus(cudaStreamSynchronize(stream), "cudaStreamSynchronize after the injected fault");
}

}  // namespace hs::detail
