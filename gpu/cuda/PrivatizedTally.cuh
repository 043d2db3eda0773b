// The brief's three-step block-private pattern, shared by every shared-memory family:
// zero the block's counters, tally through a visitor, merge the nonzero ones into the 64-bit
// totals; the extremes ride along, folded per block in shared memory and published once. Both
// barriers sit outside any data-dependent branch, so every thread reaches them.
#pragma once

#include "LaunchSupport.cuh"
#include "Tuning.h"
#include "SampleWalker.cuh"

namespace hs::detail {

extern __shared__ std::uint32_t sharedCounters[];

__device__ __forceinline__ void zeroShared(std::uint32_t* words, std::uint32_t count)
{
    for (std::uint32_t i = threadIdx.x; i < count; i += blockDim.x)
        words[i] = 0;
}

// Adds counters [0, slots) of one sub-histogram (or `replicas` interleaved copies) to the totals.
__device__ __forceinline__ void mergeShared(const std::uint32_t* words, std::uint32_t slots, int replicas,
                                            std::uint32_t tileBegin, unsigned long long* d_slots)
{
    for (std::uint32_t s = threadIdx.x; s < slots; s += blockDim.x) {
        std::uint32_t sum = 0;
        for (int r = 0; r < replicas; ++r)
            sum += words[s * replicas + r];
        if (sum)
            atomicAdd(d_slots + tileBegin + s, static_cast<unsigned long long>(sum));
    }
}

// Counts slots of the block's tile with one shared atomic each.
struct SharedTileVisitor {
    std::uint32_t tileBegin;
    std::uint32_t tileSlots;
    template <int C>
    __device__ void count(std::uint32_t slot)
    {
        const std::uint32_t s = slot - tileBegin;  // wraps past tileSlots when below the tile
        if (s < tileSlots)
            atomicAdd(sharedCounters + s, 1u);
    }
    __device__ void flush() {}
};

template <typename T, int C, typename Mapper, typename Visitor>
__device__ __forceinline__ void privatizedTally(const KernelArgs& a, Visitor& visitor, int replicas)
{
    using Tracker = typename Mapper::template Tracker<C>;
    __shared__ std::uint32_t blockExtrema[kExtremaWords];
    const std::uint32_t slots = a.tile_end - a.tile_begin;
    zeroShared(sharedCounters, slots * replicas);
    initBlockExtrema(blockExtrema);
    __syncthreads();
    Tracker tracker;
    walkSamples<T, C, Mapper>(a.grid, a.map, visitor, tracker);
    visitor.flush();
    tracker.foldIntoBlock(blockExtrema);
    __syncthreads();
    mergeShared(sharedCounters, slots, replicas, a.tile_begin, a.d_slots);
    // Every tile walks every sample; the first one alone publishes what they all saw.
    if (Tracker::kTracks && a.tile_begin == 0)
        publishBlockExtrema<C>(a.map, blockExtrema, a.d_extrema);
    clearNextTotals(a);
}

template <typename T, int C, typename Mapper, typename Family>
__global__ void __launch_bounds__(kPrivatizedThreadsMax) privatizedKernel(KernelArgs a)
{
    auto visitor = Family::template visitor<C>(a);
    privatizedTally<T, C, Mapper>(a, visitor, int(a.replicas));
}

// The table-driven launcher of the block-private families. A family is a struct naming its
// strategy (its row in kPrivatizedFamilies) and how a block builds its visitor:
//   struct F { static constexpr Strategy kStrategy = ...; static constexpr const char* kName = ...;
//              template <int C> __device__ static Visitor visitor(const KernelArgs&); };
// The row gives the shared-memory budget and whether counters are replicated per lane; the slot
// set is cut into tiles of that budget, one launch (and one pass over the input) per tile.
template <typename Family>
Status launchPrivatized(const KernelArgs& args, const LaunchContext& ctx)
{
    const PrivatizedFamily& row = privatizedFamily(Family::kStrategy);
    return visitCounting(args, [&](auto tag, auto channels, auto mapper) -> Status {
        using T = decltype(tag);
        constexpr int C = decltype(channels)::value;
        using M = decltype(mapper);
        const auto kernel = privatizedKernel<T, C, M, Family>;
        std::size_t fixed = 0;
        HS_TRY(ctx.cache.staticSharedBytes(reinterpret_cast<const void*>(kernel), fixed));
        const std::size_t budget = sharedBudgetBytes(row.budget, ctx.props) - fixed;
        KernelArgs a = args;
        a.replicas = 1;
        if (row.replicate) {
            const std::uint64_t fit = budget / (std::uint64_t(args.map.num_slots) * sizeof(std::uint32_t));
            a.replicas = floorPowerOfTwo(std::clamp<std::uint64_t>(fit, 1, std::uint64_t(ctx.tuning.replicasMax)));
        }
        const std::uint32_t tileSlots = std::uint32_t(budget / (sizeof(std::uint32_t) * a.replicas));
        for (std::uint32_t begin = 0; begin < args.map.num_slots; begin += tileSlots) {
            a.tile_begin = begin;
            a.tile_end = std::min(args.map.num_slots, begin + tileSlots);
            const std::size_t smem = std::size_t(a.tile_end - begin) * a.replicas * sizeof(std::uint32_t);
            HS_TRY(launchOnGrid<T>(kernel, Family::kName, a, ctx, ctx.tuning.privatizedThreads, smem));
            a.d_zero = nullptr;  // the first tile's launch cleared the next call's totals
            a.zero_words = 0;
        }
        return Status::success();
    });
}

}  // namespace hs::detail
