// The exact extremes of the counted samples, tracked beside the counts in the same pass: each
// thread keeps per-channel order-preserving keys in registers (SlotMapping.h), a warp folds them
// with shuffles, and one 64-bit atomic max per word merges them into the words after the totals.
#pragma once

#include "../src/SlotMapping.h"
#include "KernelArgs.h"

namespace hs::detail {

template <int C>
struct ExtremaTracker {
    static constexpr bool kTracks = true;
    std::uint32_t lo[C];
    std::uint32_t hi[C];

    __device__ ExtremaTracker()
    {
#pragma unroll
        for (int c = 0; c < C; ++c) {
            lo[c] = 0xffffffffu;
            hi[c] = 0;
        }
    }

    template <int Channel, typename T>
    __device__ __forceinline__ void see(T v)
    {
        std::uint32_t key;
        if (orderedKey(v, key)) {
            lo[Channel] = min(lo[Channel], key);
            hi[Channel] = max(hi[Channel], key);
        }
    }

    // Every lane of the warp must call this (block sizes are whole warps, and it follows the walk).
    __device__ void reduceWarp()
    {
#pragma unroll
        for (int c = 0; c < C; ++c)
#pragma unroll
            for (int offset = 16; offset > 0; offset /= 2) {
                lo[c] = min(lo[c], __shfl_xor_sync(0xffffffffu, lo[c], offset));
                hi[c] = max(hi[c], __shfl_xor_sync(0xffffffffu, hi[c], offset));
            }
    }

    // Kernels without block barriers: one lane per warp publishes to the global words.
    __device__ void publishWarp(const SlotMap& map, unsigned long long* d_extrema)
    {
        reduceWarp();
        if ((threadIdx.x & 31) == 0)
            publish(map, lo, hi, d_extrema);
    }

    // Kernels with block barriers: one lane per warp folds into the block's shared words
    // (initBlockExtrema before the first barrier), and publishBlockExtrema after the last.
    __device__ void foldIntoBlock(std::uint32_t* s_extrema)
    {
        reduceWarp();
        if ((threadIdx.x & 31) == 0)
#pragma unroll
            for (int c = 0; c < C; ++c)
                if (lo[c] <= hi[c]) {
                    atomicMin(s_extrema + 2 * c, lo[c]);
                    atomicMax(s_extrema + 2 * c + 1, hi[c]);
                }
    }

    __device__ static void publish(const SlotMap& map, const std::uint32_t* lo, const std::uint32_t* hi,
                                   unsigned long long* d_extrema)
    {
#pragma unroll
        for (int c = 0; c < C; ++c)
            if (map.ch[c].active && lo[c] <= hi[c]) {
                atomicMax(d_extrema + 2 * c, encodeMinKey(lo[c]));
                atomicMax(d_extrema + 2 * c + 1, encodeMaxKey(hi[c]));
            }
    }
};

// A tracker for paths whose counts give the extremes (extremaFromCounts): it tracks nothing.
template <int C>
struct NoExtrema {
    static constexpr bool kTracks = false;
    template <int Channel, typename T>
    __device__ __forceinline__ void see(T) {}
    __device__ void publishWarp(const SlotMap&, unsigned long long*) {}
    __device__ void foldIntoBlock(std::uint32_t*) {}
};

__device__ __forceinline__ void initBlockExtrema(std::uint32_t* s_extrema)
{
    if (threadIdx.x < kExtremaWords)
        s_extrema[threadIdx.x] = (threadIdx.x & 1) ? 0u : 0xffffffffu;
}

template <int C>
__device__ __forceinline__ void publishBlockExtrema(const SlotMap& map, const std::uint32_t* s_extrema,
                                                    unsigned long long* d_extrema)
{
    if (threadIdx.x == 0) {
        std::uint32_t lo[C], hi[C];
#pragma unroll
        for (int c = 0; c < C; ++c) {
            lo[c] = s_extrema[2 * c];
            hi[c] = s_extrema[2 * c + 1];
        }
        ExtremaTracker<C>::publish(map, lo, hi, d_extrema);
    }
}

}  // namespace hs::detail
