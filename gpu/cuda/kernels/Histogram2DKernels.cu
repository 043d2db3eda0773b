// The 2-D histogram kernels. Three block-private designs beside plain global atomics and CUB:
//  - column strips (waveform, parade): a block owns a strip of x slots (columns) and with it every
//    counter of those slots, so it counts in shared memory and stores its counters once, plainly:
//    no clearing pass, no atomics on global memory, each counter written exactly once;
//  - joint tiles (channel x channel, Cb x Cr, hue x saturation): a block counts a chunk of pixels
//    into a private tile of the grid, then merges it sparse (one global atomic per nonzero counter)
//    or, when most counters are nonzero, stores it whole for a reduction kernel;
//  - 16-bit counters, two to a word, wherever a proven bound keeps every count below 2^16.
// Pixels are read four at a time with 32-bit loads where the address allows.
#include "Histogram2DKernels.h"

#include "../../src/Histogram2DPlan.h"
#include "../SampleWalker.cuh"

#include <cub/device/device_histogram.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <type_traits>

namespace hs::detail {

extern __shared__ std::uint32_t scopeCounters[];

namespace {

constexpr std::uint64_t kPacked16Max = 0xffffu;
constexpr std::size_t kStaticSharedReserve = 1024;  // the merge's few shared words and the driver's reserve

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

template <int C>
inline constexpr int kSlotsOf = C ? C : 4;  // a pixel's array: C samples, or 4 for the generic form

Status prepareShared(const void* kernel, std::size_t bytes)
{
    if (bytes > 48 * 1024)
        HS_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
    return Status::success();
}

Status launched(const char* what) { return cudaStatus(cudaGetLastError(), what); }

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

// Four whole pixels with 32-bit loads (p 4-byte aligned).
template <typename T, int C>
__device__ __forceinline__ void loadGroup4(const unsigned char* p, T (&px)[4][C])
{
    constexpr int kWords = C * int(sizeof(T));
    constexpr int kPerWord = 4 / int(sizeof(T));
    std::uint32_t w[kWords];
    const unsigned int* q = reinterpret_cast<const unsigned int*>(p);
#pragma unroll
    for (int k = 0; k < kWords; ++k)
        w[k] = __ldg(q + k);
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int c = 0; c < C; ++c)
            px[i][c] = SampleBits<T>::from(w[(i * C + c) / kPerWord], i * C + c);
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

// ---- column strips ----------------------------------------------------------------------------

struct StripArgs {
    Launch2D L;
    std::int64_t regionWidth;    // the whole region's width (pieces of columns start at L.region.col0)
    std::uint32_t binsPerItem;
    std::uint32_t binItems;
    std::uint32_t ySlotsTotal;
    std::uint32_t yOffset[kMaxPairs];
};

__host__ __device__ inline std::int64_t firstColumn(const ChannelMap& m, std::uint64_t bin, std::int64_t width)
{
    // bin(c) = floor((c - lo) * bins / range) >= bin  <=>  c - lo >= ceil(bin * range / bins); the
    // product fits in 64 bits: bin <= 2^24 and range <= 2^35.
    const std::uint64_t offset = (bin * m.irange + m.num_bins - 1) / m.num_bins;
    const std::int64_t c = m.ilo + std::int64_t(offset);
    return c < 0 ? 0 : c > width ? width : c;
}

template <typename T, int C, bool P16>
__global__ void stripKernel(const __grid_constant__ StripArgs a)
{
    const Map2D& m = a.L.map;
    const ChannelMap& xm = m.pair[0].x.map;
    const std::uint32_t xbins = xm.num_bins;
    const std::uint32_t item = blockIdx.x;
    std::uint32_t s0, s1;
    std::int64_t c0, c1;  // region columns
    if (item < a.binItems) {
        s0 = item * a.binsPerItem;
        s1 = min(xbins, s0 + a.binsPerItem);
        c0 = firstColumn(xm, s0, a.regionWidth);
        c1 = firstColumn(xm, s1, a.regionWidth);
    } else if (item == a.binItems) {  // below the column range
        s0 = xbins;
        s1 = xbins + 1;
        c0 = 0;
        c1 = firstColumn(xm, 0, a.regionWidth);
    } else if (item == a.binItems + 1) {  // above it
        s0 = xbins + 1;
        s1 = xbins + 2;
        c0 = firstColumn(xm, xbins, a.regionWidth);
        c1 = a.regionWidth;
    } else {  // NaN: no column is NaN, its counters are written as zeros
        s0 = xbins + 2;
        s1 = xbins + 3;
        c0 = c1 = 0;
    }
    // This piece's columns only, in piece coordinates.
    const std::int64_t p0 = a.L.region.col0, p1 = a.L.region.col0 + a.L.region.width;
    c0 = (c0 < p0 ? p0 : c0) - p0;
    c1 = (c1 > p1 ? p1 : c1) - p0;

    const std::uint32_t counters = (s1 - s0) * a.ySlotsTotal;
    zeroShared(P16 ? (counters + 1) / 2 : counters);
    __syncthreads();

    auto visit = [&](std::int64_t col, const T(&px)[4][kSlotsOf<C>], int n) {
        std::uint32_t lx[4];
#pragma unroll
        for (int i = 0; i < 4; ++i)
            lx[i] = (slotOfInteger(xm, col + i + a.L.region.col0) - s0) * a.ySlotsTotal;
#pragma unroll 1
        for (int p = 0; p < m.numPairs; ++p) {
            const AxisMap2D& y = m.pair[p].y;
            const std::uint32_t offset = a.yOffset[p];
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                if (i < n) {
                    const PixelQuantities q = pixelQuantities(m, px[i]);
                    const std::uint32_t sy = axisSlot(y, pick(px[i], y.channel), col + i + a.L.region.col0, q);
                    sharedAdd<P16>(lx[i] + offset + sy, 1u);
                }
            }
        }
    };
    forPixels<T, C>(a.L.region, a.L.channels, 0, a.L.region.rows, c0, c1, threadIdx.x, blockDim.x, visit);
    __syncthreads();

    // Each counter of slots [s0, s1) belongs to this block alone: store it, coalesced per pair.
    for (int p = 0; p < m.numPairs; ++p) {
        const std::uint32_t ySlots = m.pair[p].ySlots;
        const std::uint32_t n = (s1 - s0) * ySlots;
        std::uint32_t* out = a.L.d_counts + m.pair[p].base + std::size_t(s0) * ySlots;
        for (std::uint32_t k = threadIdx.x; k < n; k += blockDim.x) {
            const std::uint32_t lx = k / ySlots;
            const std::uint32_t sy = k - lx * ySlots;
            out[k] = sharedGet<P16>(lx * a.ySlotsTotal + a.yOffset[p] + sy);
        }
    }
}

// ---- joint tiles --------------------------------------------------------------------------------

struct JointArgs {
    Launch2D L;
    std::uint32_t tileBegin;
    std::uint32_t tileSlots;
    std::uint32_t tileWords;
    std::int64_t chunkRows;
    std::int64_t chunkCols;
    std::uint32_t chunksPerBand;
    std::uint32_t numChunks;
    std::uint32_t* d_dense;      // null: always merge sparse
    std::uint32_t* d_control;    // [0]: dense rows taken
    std::uint32_t denseRowsMax;
    std::uint32_t denseDivisor;
};

template <bool P16>
__device__ void mergeTile(const JointArgs& a)
{
    __shared__ unsigned s_nonzero;
    __shared__ unsigned s_row;
    if (threadIdx.x == 0)
        s_nonzero = 0;
    __syncthreads();
    unsigned mine = 0;
    for (std::uint32_t w = threadIdx.x; w < a.tileWords; w += blockDim.x)
        mine += scopeCounters[w] != 0;
    for (int offset = 16; offset > 0; offset /= 2)
        mine += __shfl_down_sync(0xffffffffu, mine, offset);
    if ((threadIdx.x & 31) == 0 && mine)
        atomicAdd(&s_nonzero, mine);
    __syncthreads();
    const bool dense = a.d_dense != nullptr && s_nonzero > a.tileWords / a.denseDivisor;
    if (dense && threadIdx.x == 0)
        s_row = atomicAdd(a.d_control, 1u);
    __syncthreads();
    if (dense && s_row < a.denseRowsMax) {
        std::uint32_t* row = a.d_dense + std::size_t(s_row) * a.tileWords;
        for (std::uint32_t w = threadIdx.x; w < a.tileWords; w += blockDim.x)
            row[w] = scopeCounters[w];
        return;
    }
    std::uint32_t* out = a.L.d_counts + a.tileBegin;
    for (std::uint32_t w = threadIdx.x; w < a.tileWords; w += blockDim.x) {
        const std::uint32_t v = scopeCounters[w];
        if (!v)
            continue;
        if constexpr (P16) {
            if (v & 0xffffu)
                atomicAdd(out + 2 * w, v & 0xffffu);
            if (v >> 16)
                atomicAdd(out + 2 * w + 1, v >> 16);
        } else {
            atomicAdd(out + w, v);
        }
    }
}

template <typename T, int C, bool P16>
__global__ void jointKernel(const __grid_constant__ JointArgs a)
{
    const Region2D& g = a.L.region;
    auto add = [&](std::uint32_t slot, std::uint32_t n) {
        const std::uint32_t local = slot - a.tileBegin;  // wraps past tileSlots below the tile
        if (local < a.tileSlots)
            sharedAdd<P16>(local, n);
    };
    auto visit = [&](std::int64_t col, const T(&px)[4][kSlotsOf<C>], int n) { countGroup<T, C>(a.L.map, col + g.col0, px, n, add); };
    for (std::uint32_t chunk = blockIdx.x; chunk < a.numChunks; chunk += gridDim.x) {
        const bool first = chunk == blockIdx.x;
        const bool last = chunk + gridDim.x >= a.numChunks;
        if (P16 || first) {
            zeroShared(a.tileWords);
            __syncthreads();
        }
        const std::int64_t band = chunk / a.chunksPerBand;
        const std::int64_t seg = chunk - band * a.chunksPerBand;
        const std::int64_t r0 = band * a.chunkRows;
        const std::int64_t r1 = r0 + a.chunkRows < g.rows ? r0 + a.chunkRows : g.rows;
        const std::int64_t c0 = seg * a.chunkCols;
        const std::int64_t c1 = c0 + a.chunkCols < g.width ? c0 + a.chunkCols : g.width;
        forPixels<T, C>(g, a.L.channels, r0, r1, c0, c1, threadIdx.x, blockDim.x, visit);
        if (P16 || last) {
            __syncthreads();
            mergeTile<P16>(a);
            __syncthreads();
        }
    }
}

__global__ void denseReduceKernel(const std::uint32_t* d_dense, const std::uint32_t* d_control, std::uint32_t rowsMax,
                                  std::uint32_t words, bool packed16, std::uint32_t* d_out)
{
    const std::uint32_t w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= words)
        return;
    const std::uint32_t n = min(*d_control, rowsMax);
    const std::uint32_t r0 = std::uint32_t(std::uint64_t(n) * blockIdx.y / gridDim.y);
    const std::uint32_t r1 = std::uint32_t(std::uint64_t(n) * (blockIdx.y + 1) / gridDim.y);
    std::uint32_t lo = 0, hi = 0;
#pragma unroll 4
    for (std::uint32_t r = r0; r < r1; ++r) {
        const std::uint32_t v = __ldg(d_dense + std::size_t(r) * words + w);
        if (packed16) {
            lo += v & 0xffffu;
            hi += v >> 16;
        } else {
            lo += v;
        }
    }
    if (packed16) {
        if (lo)
            atomicAdd(d_out + 2 * w, lo);
        if (hi)
            atomicAdd(d_out + 2 * w + 1, hi);
    } else if (lo) {
        atomicAdd(d_out + w, lo);
    }
}

// ---- global atomics -----------------------------------------------------------------------------

template <typename T, int C>
__global__ void globalKernel(const __grid_constant__ Launch2D L)
{
    auto add = [&](std::uint32_t slot, std::uint32_t n) { atomicAdd(L.d_counts + slot, n); };
    auto visit = [&](std::int64_t col, const T(&px)[4][kSlotsOf<C>], int n) { countGroup<T, C>(L.map, col + L.region.col0, px, n, add); };
    forPixels<T, C>(L.region, L.channels, 0, L.region.rows, 0, L.region.width, std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x,
                    std::uint64_t(gridDim.x) * blockDim.x, visit);
}

// ---- CUB ------------------------------------------------------------------------------------------

template <typename T>
struct CellOfSample {
    Launch2D L;
    __host__ __device__ int operator()(long long k) const
    {
#if defined(__CUDA_ARCH__)
        const long long pixel = k / L.map.numPairs;
        const int p = int(k - pixel * L.map.numPairs);
        const long long r = pixel / L.region.width;
        const long long c = pixel - r * L.region.width;
        T px[4];
        loadPixelDev<T, 0>(L.region.d_origin + std::size_t(r) * L.region.pitch + std::size_t(c) * (L.channels * sizeof(T)),
                           L.channels, px);
        const PixelQuantities q = pixelQuantities(L.map, px);
        std::uint32_t s = 0;
#pragma unroll
        for (int i = 0; i < kMaxPairs; ++i)
            if (i == p)
                s = pairSlot(L.map.pair[i], px, c + L.region.col0, q);
        return int(s);
#else
        return int(k & 0);
#endif
    }
};

// Every sample's cell index, materialized for CUB's pointer path.
template <typename T>
__global__ void cellIndexKernel(const __grid_constant__ Launch2D L, int* d_cells)
{
    const long long samples = (long long)L.region.width * L.region.rows * L.map.numPairs;
    const CellOfSample<T> cell{L};
    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < samples; k += (long long)gridDim.x * blockDim.x)
        d_cells[k] = cell(k);
}

// ---- read probe -----------------------------------------------------------------------------------

__global__ void readProbeKernel(Region2D g, std::size_t rowBytes, unsigned long long* d_sink)
{
    const std::size_t vecs = rowBytes / 16;
    unsigned long long acc = 0;
    const std::uint64_t worker = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::uint64_t workers = std::uint64_t(gridDim.x) * blockDim.x;
    const std::uint64_t total = std::uint64_t(g.rows) * vecs;
    for (std::uint64_t i = worker; i < total; i += workers) {
        const std::uint64_t r = i / vecs;
        const std::uint64_t v = i - r * vecs;
        const uint4 q = __ldg(reinterpret_cast<const uint4*>(g.d_origin + r * g.pitch) + v);
        acc ^= (unsigned long long)(q.x ^ q.y) << 32 | (q.z ^ q.w);
    }
    if (acc == 0x9e3779b97f4a7c15ull)
        *d_sink = acc;
}

}  // namespace

// ---- launchers ------------------------------------------------------------------------------------

StripPlan planStrips(const Launch2D& L, const Device2D& device, const Tuning2D& tuning)
{
    StripPlan plan;
    const ChannelMap& xm = L.map.pair[0].x.map;
    std::uint64_t ySlotsTotal = 0;
    for (int p = 0; p < L.map.numPairs; ++p)
        ySlotsTotal += L.map.pair[p].ySlots;
    // The most pixels one x slot can hold in this piece bounds every counter.
    const std::uint64_t colsPerBin = (xm.irange + xm.num_bins - 1) / xm.num_bins;
    const std::int64_t full = L.region.col0 + L.region.width;  // conservative: columns up to the piece's end
    const std::uint64_t below = std::uint64_t(firstColumn(xm, 0, std::max<std::int64_t>(full, 0)));
    const std::uint64_t above = std::uint64_t(std::max<std::int64_t>(0, full - firstColumn(xm, xm.num_bins, full)));
    const std::uint64_t maxCols = std::max({colsPerBin, below, above, std::uint64_t(1)});
    const std::uint64_t bound = std::uint64_t(L.region.rows) * std::min<std::uint64_t>(maxCols, std::uint64_t(L.region.width));
    plan.packed16 = tuning.packed16 && bound <= kPacked16Max;
    const std::uint64_t bytesPerBin = ySlotsTotal * (plan.packed16 ? 2 : 4);
    const std::size_t budget = device.sharedOptin > kStaticSharedReserve ? device.sharedOptin - kStaticSharedReserve : 0;
    if (bytesPerBin + 4 > budget)
        return plan;
    const std::uint64_t avgCols = std::max<std::uint64_t>(1, xm.irange / xm.num_bins);
    std::uint64_t perItem = std::max<std::uint64_t>(1, tuning.stripColumns / avgCols);
    perItem = std::min<std::uint64_t>(perItem, (budget - 4) / bytesPerBin);
    perItem = std::min<std::uint64_t>(perItem, xm.num_bins);
    plan.binsPerItem = std::uint32_t(perItem);
    plan.binItems = std::uint32_t((xm.num_bins + perItem - 1) / perItem);
    plan.blocks = plan.binItems + 3;
    const std::uint64_t counters = perItem * ySlotsTotal;
    plan.sharedBytes = std::size_t(plan.packed16 ? (counters + 1) / 2 : counters) * 4;
    plan.fits = true;
    return plan;
}

Status launchStrips(const Launch2D& L, const StripPlan& plan, const Tuning2D& tuning, cudaStream_t stream)
{
    if (!plan.fits)
        return Status::error(ErrorCode::InvalidArgument, "column strips do not fit in shared memory");
    StripArgs a{};
    a.L = L;
    a.regionWidth = L.region.col0 + L.region.width;
    a.binsPerItem = plan.binsPerItem;
    a.binItems = plan.binItems;
    std::uint32_t offset = 0;
    for (int p = 0; p < L.map.numPairs; ++p) {
        a.yOffset[p] = offset;
        offset += L.map.pair[p].ySlots;
    }
    a.ySlotsTotal = offset;
    return visitTypeChannels2D(L.type, L.channels, [&](auto tag, auto channels) -> Status {
        using T = decltype(tag);
        constexpr int C = decltype(channels)::value;
        void (*kernel)(StripArgs) = plan.packed16 ? stripKernel<T, C, true> : stripKernel<T, 0, false>;
        HS_TRY(prepareShared(reinterpret_cast<const void*>(kernel), plan.sharedBytes));
        kernel<<<plan.blocks, tuning.threads, plan.sharedBytes, stream>>>(a);
        return launched("stripKernel");
    });
}

JointPlan planJoint(const Launch2D& L, const Device2D& device, const Tuning2D& tuning)
{
    JointPlan plan;
    const std::uint64_t slots = L.map.numSlots;
    const std::size_t budget = device.sharedOptin > kStaticSharedReserve ? device.sharedOptin - kStaticSharedReserve : 4096;
    if (slots * 4 <= budget / 2 || !tuning.packed16) {
        plan.packed16 = false;
        plan.tileSlots = std::uint32_t(std::min<std::uint64_t>(slots, budget / 4));
    } else {
        plan.packed16 = true;
        plan.tileSlots = std::uint32_t(std::min<std::uint64_t>(slots, (budget / 4) * 2));
    }
    plan.tiles = std::uint32_t((slots + plan.tileSlots - 1) / plan.tileSlots);
    plan.sharedBytes = std::size_t(plan.packed16 ? (plan.tileSlots + 1) / 2 : plan.tileSlots) * 4;
    return plan;
}

Status launchJoint(const Launch2D& L, const JointPlan& plan, JointScratch& scratch, const Device2D& device,
                   const Tuning2D& tuning, cudaStream_t stream)
{
    if (L.region.width <= 0 || L.region.rows <= 0)
        return Status::success();
    return visitTypeChannels2D(L.type, L.channels, [&](auto tag, auto channels) -> Status {
        using T = decltype(tag);
        constexpr int C = decltype(channels)::value;
        void (*kernel)(JointArgs) = plan.packed16 ? jointKernel<T, C, true> : jointKernel<T, 0, false>;
        const void* entry = reinterpret_cast<const void*>(kernel);
        HS_TRY(prepareShared(entry, plan.sharedBytes));
        int perSm = 0;
        HS_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, entry, tuning.threads, plan.sharedBytes));
        if (perSm < 1)
            return Status::error(ErrorCode::CudaError, "the joint kernel does not fit on a multiprocessor");
        const std::uint64_t resident = std::uint64_t(perSm) * std::uint64_t(device.multiprocessors);
        const std::uint64_t pixels = std::uint64_t(L.region.width) * std::uint64_t(L.region.rows);
        // Chunks: at most 65535 pixels with 16-bit counters (the bound), else a few per block.
        std::uint64_t target = plan.packed16 ? kPacked16Max : std::max<std::uint64_t>(1, (pixels + resident * 4 - 1) / (resident * 4));
        if (plan.packed16)
            target = std::min<std::uint64_t>(target, std::max<std::uint64_t>(4096, (pixels + resident - 1) / resident));
        JointArgs a{};
        a.L = L;
        a.chunkCols = std::int64_t(std::min<std::uint64_t>(std::uint64_t(L.region.width), target));
        a.chunkRows = std::int64_t(std::max<std::uint64_t>(1, target / std::uint64_t(a.chunkCols)));
        const std::uint64_t bands = (std::uint64_t(L.region.rows) + a.chunkRows - 1) / a.chunkRows;
        const std::uint64_t perBand = (std::uint64_t(L.region.width) + a.chunkCols - 1) / a.chunkCols;
        const std::uint64_t chunks = bands * perBand;
        if (chunks > 0x7fffffffu)
            return Status::error(ErrorCode::InvalidArgument, "too many chunks for one launch");
        a.chunksPerBand = std::uint32_t(perBand);
        a.numChunks = std::uint32_t(chunks);
        const std::uint64_t blocks = plan.packed16 ? chunks : std::min<std::uint64_t>(chunks, resident);
        a.tileWords = plan.packed16 ? (plan.tileSlots + 1) / 2 : plan.tileSlots;
        // Dense rows: one per merge at most (each chunk with 16-bit counters, each block otherwise).
        const std::uint64_t rowsMax = plan.packed16 ? chunks : blocks;
        const std::uint64_t denseBytes = rowsMax * a.tileWords * 4;
        a.denseDivisor = std::max<std::uint32_t>(1, tuning.denseDivisor);
        a.denseRowsMax = std::uint32_t(rowsMax);
        HS_TRY(scratch.control.reserve(sizeof(std::uint32_t)));
        a.d_control = scratch.control.get<std::uint32_t>();
        a.d_dense = nullptr;
        if (tuning.denseDivisor > 0 && denseBytes <= (std::uint64_t(1) << 30)) {
            HS_TRY(scratch.dense.reserve(denseBytes));
            a.d_dense = scratch.dense.get<std::uint32_t>();
        }
        for (std::uint32_t t = 0; t < plan.tiles; ++t) {
            a.tileBegin = t * plan.tileSlots;
            a.tileSlots = std::min(plan.tileSlots, L.map.numSlots - a.tileBegin);
            a.tileWords = plan.packed16 ? (a.tileSlots + 1) / 2 : a.tileSlots;
            HS_CUDA_TRY(cudaMemsetAsync(a.d_control, 0, sizeof(std::uint32_t), stream));
            kernel<<<unsigned(blocks), tuning.threads, plan.sharedBytes, stream>>>(a);
            HS_TRY(launched("jointKernel"));
            if (a.d_dense) {
                const dim3 grid((a.tileWords + 255) / 256, 8);
                denseReduceKernel<<<grid, 256, 0, stream>>>(a.d_dense, a.d_control, a.denseRowsMax, a.tileWords,
                                                            plan.packed16, L.d_counts + a.tileBegin);
                HS_TRY(launched("denseReduceKernel"));
            }
        }
        return Status::success();
    });
}

Status launchGlobal2D(const Launch2D& L, const Device2D& device, cudaStream_t stream)
{
    if (L.region.width <= 0 || L.region.rows <= 0)
        return Status::success();
    return visitTypeChannels2D<false>(L.type, L.channels, [&](auto tag, auto channels) -> Status {
        using T = decltype(tag);
        constexpr int C = decltype(channels)::value;
        const std::uint64_t groups = std::uint64_t(L.region.width + 3) / 4 * std::uint64_t(L.region.rows);
        const std::uint64_t wanted = (groups + 255) / 256;
        const unsigned blocks = unsigned(std::clamp<std::uint64_t>(wanted, 1, std::uint64_t(device.multiprocessors) * 8));
        globalKernel<T, C><<<blocks, 256, 0, stream>>>(L);
        return launched("globalKernel");
    });
}

Status launchCub2D(const Launch2D& L, DeviceBuffer& temp, cudaStream_t stream)
{
    const long long samples = (long long)L.region.width * L.region.rows * L.map.numPairs;
    if (samples >= 0x7fffffffLL || L.map.numSlots >= 0x7fffffffu)
        return Status::error(ErrorCode::InvalidArgument, "cub: more than 2^31 samples or slots in one piece");
    return visitTypeChannels2D<false>(L.type, L.channels, [&](auto tag, auto) -> Status {
        using T = decltype(tag);
        if (samples == 0)
            return cudaStatus(cudaMemsetAsync(L.d_counts, 0, std::size_t(L.map.numSlots) * 4, stream), "cudaMemsetAsync");
        thrust::transform_iterator<CellOfSample<T>, thrust::counting_iterator<long long>, int> it(
            thrust::counting_iterator<long long>(0), CellOfSample<T>{L});
        int* d_hist = reinterpret_cast<int*>(L.d_counts);
        const int levels = int(L.map.numSlots) + 1;
        std::size_t bytes = 0;
        HS_CUDA_TRY(cub::DeviceHistogram::HistogramEven(nullptr, bytes, it, d_hist, levels, 0, int(L.map.numSlots), samples, stream));
        HS_TRY(temp.reserve(std::max<std::size_t>(bytes, 1)));
        HS_CUDA_TRY(cub::DeviceHistogram::HistogramEven(temp.get(), bytes, it, d_hist, levels, 0, int(L.map.numSlots), samples,
                                                        stream));
        return launched("cub::DeviceHistogram::HistogramEven");
    });
}

Status launchCubMaterialized2D(const Launch2D& L, DeviceBuffer& cells, DeviceBuffer& temp, const Device2D& device,
                               cudaStream_t stream)
{
    const long long samples = (long long)L.region.width * L.region.rows * L.map.numPairs;
    if (samples >= 0x7fffffffLL || L.map.numSlots >= 0x7fffffffu)
        return Status::error(ErrorCode::InvalidArgument, "cub: more than 2^31 samples or slots in one piece");
    if (samples == 0)
        return cudaStatus(cudaMemsetAsync(L.d_counts, 0, std::size_t(L.map.numSlots) * 4, stream), "cudaMemsetAsync");
    HS_TRY(cells.reserve(std::size_t(samples) * sizeof(int)));
    HS_TRY(visitTypeChannels2D<false>(L.type, L.channels, [&](auto tag, auto) -> Status {
        using T = decltype(tag);
        cellIndexKernel<T><<<unsigned(device.multiprocessors) * 8, 256, 0, stream>>>(L, cells.get<int>());
        return launched("cellIndexKernel");
    }));
    int* d_hist = reinterpret_cast<int*>(L.d_counts);
    const int levels = int(L.map.numSlots) + 1;
    std::size_t bytes = 0;
    HS_CUDA_TRY(cub::DeviceHistogram::HistogramEven(nullptr, bytes, cells.get<int>(), d_hist, levels, 0, int(L.map.numSlots),
                                                    samples, stream));
    HS_TRY(temp.reserve(std::max<std::size_t>(bytes, 1)));
    HS_CUDA_TRY(cub::DeviceHistogram::HistogramEven(temp.get(), bytes, cells.get<int>(), d_hist, levels, 0,
                                                    int(L.map.numSlots), samples, stream));
    return launched("cub::DeviceHistogram::HistogramEven (materialized)");
}

Status launchReadProbe2D(const Region2D& region, std::size_t pixelBytes, unsigned long long* d_sink, const Device2D& device,
                         cudaStream_t stream)
{
    const std::size_t rowBytes = std::size_t(region.width) * pixelBytes;
    if ((reinterpret_cast<std::uintptr_t>(region.d_origin) & 15u) || (region.pitch & 15u))
        return Status::error(ErrorCode::InvalidArgument, "read probe: rows must be 16-byte aligned");
    const unsigned blocks = unsigned(device.multiprocessors) * 8;
    readProbeKernel<<<blocks, 256, 0, stream>>>(region, rowBytes, d_sink);
    return launched("readProbeKernel");
}

}  // namespace hs::detail
