// `cub`: NVIDIA CUB's DeviceHistogram as the vendor reference.
// Integer samples go to CUB untouched (HistogramEven / MultiHistogramEven on the raw pitched
// rows); CUB's integer binning is the same exact expression as ours. CUB does not count samples
// outside the range, so a check of the in-range totals launches a classification pass only when
// some are missing. Float samples are first turned into channel-local slot numbers, because
// CUB's float binning can round x just below `hi` to bin == bins and has no upper-bound check
// (agent_histogram.cuh), and it has no NaN counter; CUB then counts those slots.
// CUB reports no extremes. Floats track them in the slot conversion; integers in the
// classification pass, which therefore also runs when a channel is not one value per bin. Where
// every channel is one value per bin and every sample was in range, the counts give the extremes
// and nothing extra runs: a u8/u16/u32 frame binned by value costs CUB's histogram alone.
#include "../LaunchSupport.cuh"
#include "../SampleWalker.cuh"
#include "Kernels.h"

#include <cub/device/device_histogram.cuh>

#include <array>

namespace hs::detail {

namespace {

template <typename T, int C>
__global__ void localSlotKernel(KernelArgs a, std::int32_t* d_out)
{
    ExtremaTracker<C> tracker;
    const std::int64_t pixels = a.grid.width * a.grid.rows;
    for (std::int64_t p = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; p < pixels;
         p += std::int64_t(gridDim.x) * blockDim.x) {
        const std::int64_t r = p / a.grid.width;
        const std::int64_t x = p - r * a.grid.width;
        const unsigned char* pixel = a.grid.d_origin + std::size_t(r) * a.grid.pitch + std::size_t(x) * C * sizeof(T);
        staticFor<C>([&](auto channel) {
            constexpr int c = decltype(channel)::value;
            const ChannelMap& m = a.map.ch[c];
            const T v = loadSample<T>(pixel + c * sizeof(T));
            if (m.active)
                tracker.template see<c>(v);
            d_out[p * C + c] = m.active ? std::int32_t(slotOf(m, v) - m.base) : -1;
        });
    }
    tracker.publishWarp(a.map, a.d_extrema);
}

// Adds CUB's 32-bit counters into the 64-bit totals and sums each channel's in-range counts.
__global__ void mergeCountersKernel(SlotMap map, const std::uint32_t* d_counters, unsigned long long* d_slots,
                                    unsigned long long* d_inRange)
{
    unsigned long long sums[4] = {0, 0, 0, 0};
    for (std::uint32_t s = blockIdx.x * blockDim.x + threadIdx.x; s < map.num_slots; s += gridDim.x * blockDim.x) {
        const std::uint32_t n = d_counters[s];
        if (!n)
            continue;
        d_slots[s] += n;  // each slot has exactly one writer
#pragma unroll
        for (int c = 0; c < 4; ++c)
            if (map.ch[c].active && s >= map.ch[c].base && s < map.ch[c].base + map.ch[c].num_bins)
                sums[c] += n;
    }
#pragma unroll
    for (int c = 0; c < 4; ++c) {
        unsigned long long v = sums[c];
        for (int offset = 16; offset > 0; offset /= 2)
            v += __shfl_down_sync(0xffffffffu, v, offset);
        if ((threadIdx.x & 31) == 0 && v)
            atomicAdd(d_inRange + c, v);
    }
}

struct OutOfRangeVisitor {
    const SlotMap* map;
    unsigned long long* d_slots;
    bool complete;
    template <int C>
    __device__ void count(std::uint32_t slot)
    {
        if (!complete && slot >= map->ch[C].base + map->ch[C].num_bins)
            atomicAdd(d_slots + slot, 1ull);
    }
};

// countsGiveExtremes: every active channel bins one value per bin, so once all samples are in
// range the host reads the extremes off the counts (unpackSlots).
template <typename T, int C, typename M>
__global__ void outOfRangeKernel(KernelArgs a, const unsigned long long* d_inRange, bool countsGiveExtremes)
{
    const unsigned long long pixels = (unsigned long long)(a.grid.width * a.grid.rows);
    bool complete = true;
    for (int c = 0; c < C; ++c)
        complete &= !a.map.ch[c].active || d_inRange[c] == pixels;
    using Tracker = typename M::template Tracker<C>;
    if (complete && (countsGiveExtremes || !Tracker::kTracks))
        return;  // nothing to classify, and the counts give the extremes
    OutOfRangeVisitor visitor{&a.map, a.d_slots, complete};
    Tracker tracker;
    walkSamples<T, C, M>(a.grid, a.map, visitor, tracker);
    tracker.publishWarp(a.map, a.d_extrema);
}

template <typename SampleT, typename LevelT, int C>
Status runCub(CubScratch& scratch, const SampleT* d_samples, std::int64_t rowPixels, std::int64_t rows,
              std::size_t pitch, const std::array<int, C>& levels, const std::array<LevelT, C>& lower,
              const std::array<LevelT, C>& upper, const std::array<std::uint32_t, C>& bases, cudaStream_t stream)
{
    std::uint32_t* counters = scratch.counters.get<std::uint32_t>();
    // CUB's two-phase call: a null buffer asks for the temporary size, then the real run.
    auto histogram = [&](void* temp, std::size_t& tempBytes) -> cudaError_t {
        if constexpr (C == 1) {
            return cub::DeviceHistogram::HistogramEven(temp, tempBytes, d_samples, counters + bases[0], levels[0], lower[0],
                                                       upper[0], rowPixels, rows, pitch, stream);
        } else {
            ::cuda::std::array<std::uint32_t*, C> outputs;
            ::cuda::std::array<int, C> numLevels;
            ::cuda::std::array<LevelT, C> lo, hi;
            for (int c = 0; c < C; ++c) {
                outputs[c] = counters + bases[c];
                numLevels[c] = levels[c];
                lo[c] = lower[c];
                hi[c] = upper[c];
            }
            return cub::DeviceHistogram::MultiHistogramEven<C, C>(temp, tempBytes, d_samples, outputs, numLevels, lo, hi,
                                                                  rowPixels, rows, pitch, stream);
        }
    };
    std::size_t tempBytes = 0;
    HS_CUDA_TRY(histogram(nullptr, tempBytes));
    HS_TRY(scratch.temp.reserve(std::max<std::size_t>(tempBytes, 1)));
    const cudaError_t error = histogram(scratch.temp.get(), tempBytes);
    return cudaStatus(error, "cub::DeviceHistogram");
}

bool everyChannelIdentity(const SlotMap& map)
{
    for (int c = 0; c < map.num_channels; ++c)
        if (map.ch[c].active && map.ch[c].mode != MapMode::Identity)
            return false;
    return true;
}

template <typename T, int C>
Status launchOutOfRange(const KernelArgs& args, const unsigned long long* d_inRange, const LaunchContext& ctx)
{
    const int threads = ctx.tuning.simpleThreads;
    auto launch = [&](auto kernel) -> Status {
        dim3 blocks;
        HS_TRY(gridFor(reinterpret_cast<const void*>(kernel), threads, 0, args.grid, ctx, groupPixels<T>(), blocks));
        kernel<<<blocks, threads, 0, ctx.stream>>>(args, d_inRange, everyChannelIdentity(args.map));
        return lastLaunchStatus("outOfRangeKernel");
    };
    if constexpr (std::is_same_v<T, std::uint8_t> || std::is_same_v<T, std::uint16_t>) {
        if (extremaFromCounts(args.type, args.map))
            return launch(outOfRangeKernel<T, C, CoveredMapper>);
    }
    return launch(outOfRangeKernel<T, C, GeneralMapper>);
}

}  // namespace

Status launchCubHistogram(const KernelArgs& args, CubScratch& scratch, const LaunchContext& ctx)
{
    return visitTypeAndChannels(args.type, args.channels, [&](auto tag, auto channels) -> Status {
        using T = decltype(tag);
        constexpr int C = decltype(channels)::value;
        constexpr bool isFloat = std::is_same_v<T, float> || std::is_same_v<T, HalfBits>;
        const SlotMap& map = args.map;
        // Counters share the slot layout. Inactive channels are still counted by CUB (it reads
        // every channel): each gets a dummy counter past the real ones. The four 64-bit in-range
        // sums come last.
        const std::size_t counterBytes = ((std::size_t(map.num_slots) + 4 * kMaxChannels) * 4 + 7) / 8 * 8;
        const std::size_t scratchBytes = counterBytes + kMaxChannels * sizeof(unsigned long long);
        HS_TRY(scratch.counters.reserve(scratchBytes));
        auto* d_inRange = reinterpret_cast<unsigned long long*>(scratch.counters.get<unsigned char>() + counterBytes);
        HS_CUDA_TRY(cudaMemsetAsync(scratch.counters.get(), 0, scratchBytes, ctx.stream));
        std::array<std::uint32_t, C> bases{};
        std::array<int, C> levels{};
        for (int c = 0; c < C; ++c)
            bases[c] = map.ch[c].active ? map.ch[c].base : map.num_slots + 4 * c;
        const int threads = ctx.tuning.simpleThreads;
        if constexpr (isFloat) {
            const std::int64_t pixels = args.grid.width * args.grid.rows;
            HS_TRY(scratch.converted.reserve(std::size_t(pixels) * C * sizeof(std::int32_t)));
            auto* d_local = scratch.converted.get<std::int32_t>();
            const auto kernel = localSlotKernel<T, C>;
            dim3 blocks;
            HS_TRY(gridFor(reinterpret_cast<const void*>(kernel), threads, 0, SampleGrid{nullptr, 0, pixels, 1}, ctx, 1, blocks));
            kernel<<<blocks, threads, 0, ctx.stream>>>(args, d_local);
            HS_TRY(lastLaunchStatus("localSlotKernel"));
            std::array<long long, C> lower{}, upper{};
            for (int c = 0; c < C; ++c) {
                const std::uint32_t slots = map.ch[c].active ? map.ch[c].num_bins + 3 : 1;
                levels[c] = int(slots) + 1;
                upper[c] = slots;
            }
            HS_TRY((runCub<std::int32_t, long long, C>(scratch, d_local, pixels, 1, std::size_t(pixels) * C * 4, levels,
                                                        lower, upper, bases, ctx.stream)));
        } else {
            std::array<long long, C> lower{}, upper{};
            for (int c = 0; c < C; ++c) {
                const ChannelMap& m = map.ch[c];
                levels[c] = m.active ? int(m.num_bins) + 1 : 2;
                lower[c] = m.active ? m.ilo : 0;
                upper[c] = m.active ? m.ilo + std::int64_t(m.irange) : 1;
            }
            HS_TRY((runCub<T, long long, C>(scratch, reinterpret_cast<const T*>(args.grid.d_origin), args.grid.width,
                                             args.grid.rows, args.grid.pitch, levels, lower, upper, bases, ctx.stream)));
        }
        const std::uint32_t mergeBlocks = std::min<std::uint32_t>(1024, (map.num_slots + threads - 1) / threads);
        mergeCountersKernel<<<mergeBlocks, threads, 0, ctx.stream>>>(map, scratch.counters.get<std::uint32_t>(),
                                                                      args.d_slots, d_inRange);
        HS_TRY(lastLaunchStatus("mergeCountersKernel"));
        if constexpr (!isFloat)
            return launchOutOfRange<T, C>(args, d_inRange, ctx);
        return Status::success();
    });
}

}  // namespace hs::detail
