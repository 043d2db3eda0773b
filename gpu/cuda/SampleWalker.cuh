// Walks a SampleGrid with 16-byte loads and hands every active sample's slot to a visitor, and
// its value to an extrema tracker. Shared by all kernel families, so alignment, ROI offsets and
// channel interleaving are handled in one place. A row is split into an unaligned head, 16-byte groups of whole
// pixels (several in flight per thread), and a tail; head and tail go sample by sample.
#pragma once

#include "Extrema.cuh"
#include "KernelArgs.h"

#include <type_traits>
#include <utility>

namespace hs::detail {

template <typename T>
struct SampleBits;
template <> struct SampleBits<std::uint8_t> { __device__ static std::uint8_t from(std::uint32_t w, int e) { return std::uint8_t(w >> (8 * (e & 3))); } };
template <> struct SampleBits<std::uint16_t> { __device__ static std::uint16_t from(std::uint32_t w, int e) { return std::uint16_t(w >> (16 * (e & 1))); } };
template <> struct SampleBits<HalfBits> { __device__ static HalfBits from(std::uint32_t w, int e) { return HalfBits{std::uint16_t(w >> (16 * (e & 1)))}; } };
template <> struct SampleBits<std::int32_t> { __device__ static std::int32_t from(std::uint32_t w, int) { return std::int32_t(w); } };
template <> struct SampleBits<std::uint32_t> { __device__ static std::uint32_t from(std::uint32_t w, int) { return w; } };
template <> struct SampleBits<float> { __device__ static float from(std::uint32_t w, int) { return __uint_as_float(w); } };

// How a sample is read: through the read-only cache (ld.global.nc), or evict-first
// (ld.global.cs) for input read by a pass whose own output the next pass reads back
// (`partition`'s places, `packed`'s rows), so that the input streams through L2 instead of
// pushing that output out to DRAM.
enum class Load { Cached, Streaming };

template <Load L, typename W>
__device__ __forceinline__ W loadWord(const W* p)
{
    if constexpr (L == Load::Streaming)
        return __ldcs(p);
    else
        return __ldg(p);
}

template <typename T, Load L = Load::Cached>
__device__ __forceinline__ T loadSample(const unsigned char* p)
{
    if constexpr (std::is_same_v<T, HalfBits>)
        return HalfBits{loadWord<L>(reinterpret_cast<const unsigned short*>(p))};
    else if constexpr (std::is_same_v<T, std::uint8_t>)
        return std::uint8_t(loadWord<L>(reinterpret_cast<const unsigned char*>(p)));
    else
        return loadWord<L>(reinterpret_cast<const T*>(p));
}

// Calls f(std::integral_constant<int, I>) for I in [0, N): visitors keep per-channel state in
// registers, which needs the channel as a compile-time index.
template <typename F, int... I>
__device__ __forceinline__ void staticForImpl(F& f, std::integer_sequence<int, I...>)
{
    (f(std::integral_constant<int, I>{}), ...);
}

template <int N, typename F>
__device__ __forceinline__ void staticFor(F&& f)
{
    staticForImpl(f, std::make_integer_sequence<int, N>{});
}

// How a kernel turns a sample into a slot, and whether it must track the extremes. GeneralMapper
// is the shared definition (any type, any binning); IdentityMapper is the same function
// specialised for 32-bit-or-narrower integers with one bin per value, where the range checks and the mode
// switch fold into one 32-bit compare; CoveredMapper is it again where the bins cover every value
// of an 8- or 16-bit type (extremaFromCounts): no checks at all, and the counts give the extremes.
struct GeneralMapper {
    template <int C>
    using Tracker = ExtremaTracker<C>;
    template <typename T>
    __device__ __forceinline__ static std::uint32_t slot(const ChannelMap& m, T v) { return slotOf(m, v); }
};

struct CoveredMapper {
    template <int C>
    using Tracker = NoExtrema<C>;
    template <typename T>
    __device__ __forceinline__ static std::uint32_t slot(const ChannelMap& m, T v)
    {
        // ilo <= 0 < 2^16 <= ilo + bins: v - ilo lies in [0, bins), modulo 2^32 as well.
        return m.base + (std::uint32_t(v) - std::uint32_t(m.ilo));
    }
};

struct IdentityMapper {
    template <int C>
    using Tracker = ExtremaTracker<C>;
    template <typename T>
    __device__ __forceinline__ static std::uint32_t slot(const ChannelMap& m, T v)
    {
        if constexpr (std::is_same_v<T, std::uint8_t> || std::is_same_v<T, std::uint16_t> || std::is_same_v<T, std::uint32_t>) {
            // Valid because lo + bins <= 2^32 (see usesIdentityMapper): below lo wraps past bins.
            const std::uint32_t d = std::uint32_t(v) - std::uint32_t(m.ilo);
            return d < m.num_bins ? m.base + d : m.base + m.num_bins + (std::uint32_t(v) < std::uint32_t(m.ilo) ? 0u : 1u);
        } else if constexpr (std::is_same_v<T, std::int32_t>) {
            // Valid because -2^31 <= lo and lo + bins <= 2^31 (see usesIdentityMapper): below lo
            // wraps past bins. The general path's 64-bit arithmetic cost int32 keys registers and
            // spills (`packed`'s count: 96 bytes a thread).
            const std::uint32_t d = std::uint32_t(v) - std::uint32_t(m.ilo);
            return d < m.num_bins ? m.base + d : m.base + m.num_bins + (v < std::int32_t(m.ilo) ? 0u : 1u);
        } else {
            return slotOf(m, v);
        }
    }
};

// A single channel is always active (RequestPlan and launchStrategy refuse one that is not), so
// its samples are counted without the test: a branch around every update made the compiler
// rebuild the shared counters' address after each (part of the 27 instructions a sample in the
// main loop of `packed`'s count; 15 with this and two changes of its own, session 19).
template <int c, int C, typename Mapper, typename T, typename Visitor, typename Tracker>
__device__ __forceinline__ void visitSample(const SlotMap& map, T v, Visitor& visitor, Tracker& tracker)
{
    if (C == 1 || map.ch[c].active) {
        tracker.template see<c>(v);
        visitor.template count<c>(Mapper::slot(map.ch[c], v));
    }
}

template <typename T, int C, typename Mapper, Load L, typename Visitor, typename Tracker>
__device__ __forceinline__ void visitPixel(const SlotMap& map, const unsigned char* p, Visitor& visitor, Tracker& tracker)
{
    staticFor<C>([&](auto channel) {
        constexpr int c = decltype(channel)::value;
        visitSample<c, C, Mapper>(map, loadSample<T, L>(p + c * sizeof(T)), visitor, tracker);
    });
}

// Pixels before the first 16-byte aligned pixel boundary; the whole row when there is none.
__device__ __forceinline__ std::int64_t alignedHead(const unsigned char* row, int pixelBytes, std::int64_t width)
{
    const unsigned misalign = unsigned(reinterpret_cast<std::uintptr_t>(row) & 15u);
    for (int k = 0; k < 16 && k < width; ++k)
        if (((misalign + unsigned(k * pixelBytes)) & 15u) == 0)
            return k;
    return width;
}

// Groups whose loads are all issued before the first is counted: with one 16-byte load in flight
// per thread, a block-private kernel of one block per SM keeps too few bytes in flight to reach
// the read probe (H200, session 12: 65,536-bin tiles 0.090 -> 0.081 ms, 131,072-id tokens 0.50 ->
// 0.385 ms with four). A group holds 4 * C words in registers, so fewer groups for more channels.
template <int C>
constexpr int walkDepth() { return C >= 4 ? 1 : 4 / C; }

// Asks L2 for the 16-byte aligned interior of [begin, begin + bytes) (sm_90's bulk prefetch, a
// hint; nothing on older architectures). Only the interior: the bytes around it may lie outside
// the allocation.
__device__ __forceinline__ void prefetchBytesL2(const unsigned char* begin, std::size_t bytes)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    const std::uintptr_t first = (reinterpret_cast<std::uintptr_t>(begin) + 15u) & ~std::uintptr_t(15);
    const std::uintptr_t last = (reinterpret_cast<std::uintptr_t>(begin) + bytes) & ~std::uintptr_t(15);
    if (last > first)
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(first), "r"(std::uint32_t(last - first)) : "memory");
#else
    (void)begin;
    (void)bytes;
#endif
}

// Asks L2 for the block's first `groups` 16-byte groups of its first row of the grid, in the
// order walkSamples loads them (group d: every thread's d-th), so that DRAM streams a walk's first
// loads while the block is still busy with something else. Called by one warp; a hint only, on
// sm_90's bulk prefetch (the walker's own loads stay the read), nothing on older architectures.
template <typename T, int C>
__device__ __forceinline__ void prefetchWalkStart(const SampleGrid& grid, int groups)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    constexpr int kPixelBytes = C * int(sizeof(T));
    constexpr int kGroupPixels = 16 / int(sizeof(T));
    if (std::int64_t(blockIdx.y) >= grid.rows)
        return;
    const unsigned char* row = grid.d_origin + std::size_t(blockIdx.y) * grid.pitch;
    const std::int64_t head = alignedHead(row, kPixelBytes, grid.width);
    const std::int64_t rowGroups = (grid.width - head) / kGroupPixels;
    const unsigned char* vec = row + head * kPixelBytes;
    const std::int64_t step = std::int64_t(gridDim.x) * blockDim.x;
    for (int d = int(threadIdx.x & 31u); d < groups; d += 32) {
        const std::int64_t g = std::int64_t(blockIdx.x) * blockDim.x + d * step;
        if (g >= rowGroups)
            break;
        const std::int64_t n = min(std::int64_t(blockDim.x), rowGroups - g);
        prefetchBytesL2(vec + g * 16 * C, std::size_t(n) * 16 * C);
    }
#else
    (void)grid;
    (void)groups;
#endif
}

template <typename T, int C, typename Mapper, Load L = Load::Cached, typename Visitor, typename Tracker>
__device__ __forceinline__ void walkSamples(const SampleGrid& grid, const SlotMap& map, Visitor& visitor, Tracker& tracker)
{
    constexpr int kPixelBytes = C * int(sizeof(T));
    constexpr int kGroupPixels = 16 / int(sizeof(T));  // C loads of 16 bytes hold this many pixels
    constexpr int kWords = 4 * C;
    constexpr int kSamplesPerWord = 4 / int(sizeof(T));
    constexpr int kDepth = walkDepth<C>();
    const std::int64_t first = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::int64_t step = std::int64_t(gridDim.x) * blockDim.x;

    for (std::int64_t r = blockIdx.y; r < grid.rows; r += gridDim.y) {
        const unsigned char* row = grid.d_origin + std::size_t(r) * grid.pitch;
        const std::int64_t head = alignedHead(row, kPixelBytes, grid.width);
        const std::int64_t groups = (grid.width - head) / kGroupPixels;
        const std::int64_t tail = head + groups * kGroupPixels;

        for (std::int64_t i = first; i < head; i += step)
            visitPixel<T, C, Mapper, L>(map, row + i * kPixelBytes, visitor, tracker);

        const uint4* vec = reinterpret_cast<const uint4*>(row + head * kPixelBytes);
        const auto load = [&](std::uint32_t(&w)[kWords], std::int64_t g) {
#pragma unroll
            for (int k = 0; k < C; ++k) {
                const uint4 q = loadWord<L>(vec + g * C + k);
                w[4 * k + 0] = q.x;
                w[4 * k + 1] = q.y;
                w[4 * k + 2] = q.z;
                w[4 * k + 3] = q.w;
            }
        };
        const auto visitGroup = [&](const std::uint32_t(&w)[kWords]) {
            staticFor<kWords * kSamplesPerWord>([&](auto element) {
                constexpr int e = decltype(element)::value;
                visitSample<e % C, C, Mapper>(map, SampleBits<T>::from(w[e / kSamplesPerWord], e), visitor, tracker);
            });
        };
        std::int64_t g = first;
        for (; g + (kDepth - 1) * step < groups; g += kDepth * step) {
            std::uint32_t w[kDepth][kWords];
#pragma unroll
            for (int d = 0; d < kDepth; ++d)
                load(w[d], g + d * step);
#pragma unroll
            for (int d = 0; d < kDepth; ++d)
                visitGroup(w[d]);
        }
        if constexpr (kDepth > 1) {
            // Fewer than kDepth groups left: their loads in flight together as well, so that a
            // walk need not be a whole number of rounds (`packed`'s segments) to keep its depth.
            if (g < groups) {
                std::uint32_t w[kDepth - 1][kWords];
#pragma unroll
                for (int d = 0; d < kDepth - 1; ++d)
                    if (g + d * step < groups)
                        load(w[d], g + d * step);
#pragma unroll
                for (int d = 0; d < kDepth - 1; ++d)
                    if (g + d * step < groups)
                        visitGroup(w[d]);
            }
        }

        for (std::int64_t i = tail + first; i < grid.width; i += step)
            visitPixel<T, C, Mapper, L>(map, row + i * kPixelBytes, visitor, tracker);
    }
}

}  // namespace hs::detail
