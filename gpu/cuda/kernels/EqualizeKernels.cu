// Histogram equalization after the count: one block per channel scans its bins (CUB's
// BlockScan) into a CDF and writes the LUT; then every pixel is mapped through its channel's LUT.
// The mapping alone also serves LUTs given by the caller (applyLuts: histogram matching).
#include "../../src/Equalization.h"
#include "../LaunchSupport.cuh"
#include "../SampleWalker.cuh"
#include "Kernels.h"

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cuda/functional>

namespace hs::detail {

namespace {

__global__ void __launch_bounds__(kEqualizeLutThreads) lutKernel(SlotMap map, const unsigned long long* d_slots, std::uint32_t* d_luts, std::uint32_t levels)
{
    // Block b handles the b-th active channel.
    int channel = -1;
    for (int c = 0, active = 0; c < map.num_channels; ++c)
        if (map.ch[c].active && active++ == int(blockIdx.x))
            channel = c;
    if (channel < 0)
        return;
    const ChannelMap& m = map.ch[channel];
    const unsigned long long* counts = d_slots + m.base;
    std::uint32_t* lut = d_luts + std::size_t(blockIdx.x) * levels;
    const std::uint32_t perThread = (m.num_bins + kEqualizeLutThreads - 1) / kEqualizeLutThreads;
    const std::uint32_t begin = threadIdx.x * perThread;
    const std::uint32_t end = min(m.num_bins, begin + perThread);

    unsigned long long local = 0;
    std::uint32_t firstHere = m.num_bins;
    for (std::uint32_t b = begin; b < end; ++b) {
        local += counts[b];
        if (firstHere == m.num_bins && counts[b])
            firstHere = b;
    }
    using Scan = cub::BlockScan<unsigned long long, kEqualizeLutThreads>;
    using Reduce = cub::BlockReduce<std::uint32_t, kEqualizeLutThreads>;
    __shared__ typename Scan::TempStorage scanStorage;
    __shared__ typename Reduce::TempStorage reduceStorage;
    __shared__ std::uint32_t firstBin;
    __shared__ unsigned long long totalCount;
    unsigned long long before = 0, total = 0;
    Scan(scanStorage).ExclusiveSum(local, before, total);
    const std::uint32_t first = Reduce(reduceStorage).Reduce(firstHere, ::cuda::minimum<>{});
    if (threadIdx.x == 0) {
        firstBin = first;
        totalCount = total;
    }
    __syncthreads();
    const unsigned long long cdfMin = firstBin < m.num_bins ? counts[firstBin] : 0;
    unsigned long long cdf = before;
    for (std::uint32_t b = begin; b < end; ++b) {
        cdf += counts[b];
        lut[b] = equalizedLevel(cdf, cdfMin, totalCount, m.num_bins, b, b < firstBin);
    }
}

template <typename T, int C>
__global__ void applyLutKernel(SampleGrid in, unsigned char* d_out, std::size_t outPitch, SlotMap map,
                               const std::uint32_t* d_luts, std::uint32_t levels)
{
    const std::uint32_t* luts[C];
    for (int c = 0, active = 0; c < C; ++c)
        luts[c] = map.ch[c].active ? d_luts + std::size_t(active++) * levels : nullptr;
    const std::int64_t pixels = in.width * in.rows;
    for (std::int64_t p = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; p < pixels;
         p += std::int64_t(gridDim.x) * blockDim.x) {
        const std::int64_t r = p / in.width;
        const std::int64_t x = p - r * in.width;
        const T* src = reinterpret_cast<const T*>(in.d_origin + std::size_t(r) * in.pitch) + x * C;
        T* dst = reinterpret_cast<T*>(d_out + std::size_t(r) * outPitch) + x * C;
#pragma unroll
        for (int c = 0; c < C; ++c) {
            const T v = src[c];
            dst[c] = luts[c] ? T(__ldg(luts[c] + v)) : v;
        }
    }
}

}  // namespace

Status launchEqualizeLut(const SlotMap& map, const unsigned long long* d_slots, std::uint32_t* d_luts,
                         std::uint32_t levels, int activeChannels, const LaunchContext& ctx)
{
    lutKernel<<<activeChannels, kEqualizeLutThreads, 0, ctx.stream>>>(map, d_slots, d_luts, levels);
    return lastLaunchStatus("lutKernel");
}

Status launchApplyLut(SampleType type, int channels, const SampleGrid& in, unsigned char* d_out, std::size_t outPitch,
                      const SlotMap& map, const std::uint32_t* d_luts, std::uint32_t levels, const LaunchContext& ctx)
{
    return visitTypeAndChannels(type, channels, [&](auto tag, auto channelCount) -> Status {
        using T = decltype(tag);
        constexpr int C = decltype(channelCount)::value;
        if constexpr (std::is_same_v<T, std::uint8_t> || std::is_same_v<T, std::uint16_t>) {
            const auto kernel = applyLutKernel<T, C>;
            dim3 blocks;
            const int threads = ctx.tuning.simpleThreads;
            HS_TRY(gridFor(reinterpret_cast<const void*>(kernel), threads, 0, SampleGrid{nullptr, 0, in.width * in.rows, 1},
                           ctx, 1, blocks));
            kernel<<<blocks, threads, 0, ctx.stream>>>(in, d_out, outPitch, map, d_luts, levels);
            return lastLaunchStatus("applyLutKernel");
        } else {
            return Status::error(ErrorCode::InvalidArgument, "a LUT maps 8- or 16-bit samples only");
        }
    });
}

}  // namespace hs::detail
