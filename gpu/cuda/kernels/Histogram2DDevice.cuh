// Device helpers shared by the 2-D histogram kernels (Histogram2DStrips.cu, Histogram2DJoint.cu,
// Histogram2DCub.cu): reading pixels four at a time, counting a group of pixels into every pair
// with runs merged, 16-bit counter packing, and the <T, C> dispatch.
#pragma once

#include "Histogram2DKernels.h"

#include "../../src/Histogram2DPlan.h"
#include "../SampleWalker.cuh"

#include <algorithm>
#include <type_traits>

namespace hs::detail {

extern __shared__ std::uint32_t scopeCounters[];


constexpr std::uint64_t kPacked16Max = 0xffffu;
constexpr std::size_t kScopeSharedReserve = 1024;  // the merge's few shared words and the driver's reserve

// Kernels are compiled for a fixed channel count only where speed matters (8-bit gray, RGB and
// RGBA, 16-bit RGB and RGBA); every other layout runs the generic form, C = 0, whose channel
// count is read at run time. `Fast` false asks for the generic form alone.
template <bool Fast = true, typename F>
Status visitTypeChannels2D(SampleType type, int channels, F&& f)
{
    if (channels < 1 || channels > 4)
        return Status::error(ErrorCode::InvalidArgument, "channel count outside 1..4");
    if constexpr (Fast) {
        if (type == SampleType::U8) {
            if (channels == 1)
                return f(std::uint8_t{}, std::integral_constant<int, 1>{});
            if (channels == 3)
                return f(std::uint8_t{}, std::integral_constant<int, 3>{});
            if (channels == 4)
                return f(std::uint8_t{}, std::integral_constant<int, 4>{});
        } else if (type == SampleType::U16) {
            if (channels == 3)
                return f(std::uint16_t{}, std::integral_constant<int, 3>{});
            if (channels == 4)
                return f(std::uint16_t{}, std::integral_constant<int, 4>{});
        }
    }
    return visitSampleType2D(type, [&](auto tag) -> Status { return f(tag, std::integral_constant<int, 0>{}); });
}

// Fast forms of the block-private kernels: the scopes' commonest requests with their quantities
// resolved at compile time (8- and 16-bit samples, value axes over the whole code range, so that
// a bin is a shift of the value and no value falls outside). Everything else runs the generic form.
enum class Fast2D : int { None, Channels, Luma, Vectorscope };

// A value axis over the whole range of a D-bit code, 2^shift codes per bin.
inline bool fullCodeRange(const ChannelMap& m, int bits, std::uint32_t& shift)
{
    if (!m.active || m.ilo != 0 || m.irange != (std::uint64_t(1) << bits))
        return false;
    if (m.mode == MapMode::Identity) {
        shift = 0;
        return true;
    }
    if (m.mode == MapMode::Shift) {
        shift = m.shift;
        return true;
    }
    return false;
}

inline bool fastLayout(SampleType type, int channels)
{
    return (type == SampleType::U8 && (channels == 1 || channels == 3 || channels == 4))
        || (type == SampleType::U16 && (channels == 3 || channels == 4));
}

template <int C>
inline constexpr int kSlotsOf = C ? C : 4;  // a pixel's array: C samples, or 4 for the generic form

inline Status launched(const char* what) { return cudaStatus(cudaGetLastError(), what); }

// ---- reading pixels ---------------------------------------------------------------------------

template <typename T, int C>
__device__ __forceinline__ void loadPixelDev(const unsigned char* p, int channels, T (&px)[kSlotsOf<C>])
{
#pragma unroll
    for (int c = 0; c < kSlotsOf<C>; ++c) {
        if (C || c < channels)
            px[c] = loadSample<T>(p + c * sizeof(T));
        else
            px[c] = T{};
    }
}

template <typename T, int C>
inline constexpr int kGroupWords = C * int(sizeof(T));  // 32-bit words of four pixels

// Four pixels from the words that hold them.
template <typename T, int C>
__device__ __forceinline__ void unpack4(const std::uint32_t (&w)[kGroupWords<T, C>], T (&px)[4][C])
{
    constexpr int kPerWord = 4 / int(sizeof(T));
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int c = 0; c < C; ++c)
            px[i][c] = SampleBits<T>::from(w[(i * C + c) / kPerWord], i * C + c);
}

// Four whole pixels with 32-bit loads (p 4-byte aligned).
template <typename T, int C>
__device__ __forceinline__ void loadGroup4(const unsigned char* p, T (&px)[4][C])
{
    std::uint32_t w[kGroupWords<T, C>];
    const unsigned int* q = reinterpret_cast<const unsigned int*>(p);
#pragma unroll
    for (int k = 0; k < kGroupWords<T, C>; ++k)
        w[k] = __ldg(q + k);
    unpack4<T, C>(w, px);
}

// Hands f(col, px, n) up to four pixels of row r starting at column col (piece coordinates).
template <typename T, int C, typename F>
__device__ __forceinline__ void visitGroup(const Region2D& g, int channels, std::int64_t r, std::int64_t col, int n, F& f)
{
    const std::size_t pixelBytes = std::size_t(C ? C : channels) * sizeof(T);
    const unsigned char* p = g.d_origin + std::size_t(r) * g.pitch + std::size_t(col) * pixelBytes;
    T px[4][kSlotsOf<C>];
    bool vector = false;
    if constexpr (C > 0) {
        if (n == 4 && (reinterpret_cast<std::uintptr_t>(p) & 3u) == 0) {
            loadGroup4<T, C>(p, px);
            vector = true;
        }
    }
    if (!vector) {
#pragma unroll
        for (int i = 0; i < 4; ++i)
            if (i < n)
                loadPixelDev<T, C>(p + i * pixelBytes, channels, px[i]);
    }
    f(col, px, n);
}

// Every pixel of rows [r0, r1) x columns [c0, c1) of the piece, shared by `workers` threads in
// groups of four columns; a thread keeps its group of columns while it walks down the rows.
template <typename T, int C, typename F>
__device__ __forceinline__ void forPixels(const Region2D& g, int channels, std::int64_t r0, std::int64_t r1, std::int64_t c0,
                                          std::int64_t c1, std::uint64_t worker, std::uint64_t workers, F&& f)
{
    if (c1 <= c0 || r1 <= r0)
        return;
    const std::uint64_t groups = std::uint64_t(c1 - c0 + 3) / 4;
    if (groups <= workers) {
        const std::uint64_t rowsPer = workers / groups;
        const std::uint64_t gi = worker % groups;
        const std::uint64_t rOff = worker / groups;
        if (rOff >= rowsPer)
            return;
        const std::int64_t col = c0 + 4 * std::int64_t(gi);
        const int n = int(c1 - col < 4 ? c1 - col : 4);
        for (std::int64_t r = r0 + std::int64_t(rOff); r < r1; r += std::int64_t(rowsPer))
            visitGroup<T, C>(g, channels, r, col, n, f);
    } else {
        for (std::int64_t r = r0; r < r1; ++r)
            for (std::uint64_t gi = worker; gi < groups; gi += workers) {
                const std::int64_t col = c0 + 4 * std::int64_t(gi);
                const int n = int(c1 - col < 4 ? c1 - col : 4);
                visitGroup<T, C>(g, channels, r, col, n, f);
            }
    }
}

// Slots of up to four pixels for every pair, with runs of one slot merged into one add(slot, n).
// Pairs are a run-time loop (the map is a __grid_constant__ parameter, read in place): unrolling
// them too multiplies the code, and the compile time, by four for no gain on one-pair scopes.
template <typename T, int C, typename Add>
__device__ __forceinline__ void countGroup(const Map2D& m, std::int64_t column, const T (&px)[4][kSlotsOf<C>], int n,
                                           Add& add)
{
#pragma unroll 1
    for (int p = 0; p < m.numPairs; ++p) {
        const PairMap2D& pair = m.pair[p];
        std::uint32_t last = 0, run = 0;
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            if (i < n) {
                const PixelQuantities q = pixelQuantities(m, px[i]);
                const std::uint32_t s = pairSlot(pair, px[i], column + i, q);
                if (run && s == last) {
                    ++run;
                } else {
                    if (run)
                        add(last, run);
                    last = s;
                    run = 1;
                }
            }
        }
        if (run)
            add(last, run);
    }
}

template <bool P16>
__device__ __forceinline__ void sharedAdd(std::uint32_t index, std::uint32_t n)
{
    if constexpr (P16)
        atomicAdd(scopeCounters + (index >> 1), n << ((index & 1u) * 16));
    else
        atomicAdd(scopeCounters + index, n);
}

template <bool P16>
__device__ __forceinline__ std::uint32_t sharedGet(std::uint32_t index)
{
    if constexpr (P16)
        return (scopeCounters[index >> 1] >> ((index & 1u) * 16)) & 0xffffu;
    else
        return scopeCounters[index];
}

__device__ __forceinline__ void zeroShared(std::uint32_t words)
{
    for (std::uint32_t i = threadIdx.x; i < words; i += blockDim.x)
        scopeCounters[i] = 0;
}


}  // namespace hs::detail
