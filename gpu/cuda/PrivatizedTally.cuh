// The brief's three-step block-private pattern, shared by every shared-memory family:
// zero the block's counters, tally through a visitor, merge the nonzero ones into the 64-bit
// totals. Both barriers sit outside any data-dependent branch, so every thread reaches them.
#pragma once

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
    const std::uint32_t slots = a.tile_end - a.tile_begin;
    zeroShared(sharedCounters, slots * replicas);
    __syncthreads();
    walkSamples<T, C, Mapper>(a.grid, a.map, visitor);
    visitor.flush();
    __syncthreads();
    mergeShared(sharedCounters, slots, replicas, a.tile_begin, a.d_slots);
}

}  // namespace hs::detail
