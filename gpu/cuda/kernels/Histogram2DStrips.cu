// The 2-D histogram kernels. Three block-private designs beside plain global atomics and CUB:
//  - column strips (waveform, parade): a block owns a strip of x slots (columns) and with it every
//    counter of those slots, so it counts in shared memory and stores its counters once, plainly:
//    no clearing pass, no atomics on global memory, each counter written exactly once;
//  - joint tiles (channel x channel, Cb x Cr, hue x saturation): a block counts a chunk of pixels
//    into a private tile of the grid, then merges it sparse (one global atomic per nonzero counter)
//    or, when most counters are nonzero, stores it whole for a reduction kernel;
//  - 16-bit counters, two to a word, wherever a proven bound keeps every count below 2^16.
// Pixels are read four at a time with 32-bit loads where the address allows.
#include "Histogram2DDevice.cuh"

namespace hs::detail {

namespace {

// ---- column strips ----------------------------------------------------------------------------

struct StripArgs {
    Launch2D L;
    std::int64_t regionWidth;    // the whole region's width (pieces of columns start at L.region.col0)
    std::uint32_t binsPerItem;
    std::uint32_t binItems;
    std::uint32_t ySlotsTotal;
    std::uint32_t colStride;     // counters per x slot in shared memory (fast forms: padded)
    int batch;                   // fast forms: rows a thread loads before counting them (1..kMaxBatch)
    std::uint32_t yOffset[kMaxPairs];
    int fastChannel[kMaxPairs];          // Fast2D::Channels: each pair's channel and shift
    std::uint32_t fastShift[kMaxPairs];  // (Fast2D::Luma: fastShift[0])
};

// The fast form of a strip launch, if the request has one: one bin per column over the whole
// region, and every pair's value axis a channel (or the one pair's luma) over the whole code range.
Fast2D stripFastForm(const Launch2D& L, std::int64_t regionWidth, StripArgs& a)
{
    if (!fastLayout(L.type, L.channels))
        return Fast2D::None;
    const ChannelMap& xm = L.map.pair[0].x.map;
    if (xm.mode != MapMode::Identity || xm.ilo != 0 || std::int64_t(xm.irange) != regionWidth)
        return Fast2D::None;
    const int bits = L.type == SampleType::U8 ? 8 : 16;
    bool channels = true;
    for (int p = 0; p < L.map.numPairs; ++p) {
        const AxisMap2D& y = L.map.pair[p].y;
        channels = channels && y.quantity == Q2::Channel && fullCodeRange(y.map, bits, a.fastShift[p]);
        a.fastChannel[p] = y.channel;
    }
    if (channels)
        return Fast2D::Channels;
    if (L.map.numPairs == 1 && L.map.pair[0].y.quantity == Q2::Luma && L.map.codeBits == bits
        && fullCodeRange(L.map.pair[0].y.map, bits, a.fastShift[0]))
        return Fast2D::Luma;
    return Fast2D::None;
}

__host__ __device__ inline std::int64_t firstColumn(const ChannelMap& m, std::uint64_t bin, std::int64_t width)
{
    // bin(c) = floor((c - lo) * bins / range) >= bin  <=>  c - lo >= ceil(bin * range / bins); the
    // product fits in 64 bits: bin <= 2^24 and range <= 2^35.
    const std::uint64_t offset = (bin * m.irange + m.num_bins - 1) / m.num_bins;
    const std::int64_t c = m.ilo + std::int64_t(offset);
    return c < 0 ? 0 : c > width ? width : c;
}


// Fast strips: a thread loads this many rows of its four-pixel group before counting any of them,
// so that each thread has several loads in flight (one row at a time left the strips latency
// bound: 12 bytes per thread in flight). Bounded by the registers the words take.
template <typename T, int C>
inline constexpr int kMaxBatch = C == 0 ? 1 : (24 / kGroupWords<T, C> < 1 ? 1 : (24 / kGroupWords<T, C> > 8 ? 8 : 24 / kGroupWords<T, C>));

// Column groups of [c0, c1) shared by the block's threads as in forPixels, each thread walking down
// its rows `batch` at a time: all of a batch's loads first, then its counting. Groups that are not
// whole or not 4-byte aligned, and strips wider than the block, take forPixels' one-row walk.
template <typename T, int C, typename F>
__device__ __forceinline__ void forPixelsBatched(const Region2D& g, std::int64_t c0, std::int64_t c1, int batch, F& f)
{
    constexpr int kWords = kGroupWords<T, C>;
    constexpr int kBatch = kMaxBatch<T, C>;
    if (c1 <= c0 || g.rows <= 0)
        return;
    const std::uint64_t groups = std::uint64_t(c1 - c0 + 3) / 4;
    const bool aligned = ((reinterpret_cast<std::uintptr_t>(g.d_origin) | g.pitch | std::uintptr_t(c0 * C * sizeof(T))) & 3u) == 0;
    if (groups > blockDim.x || !aligned || (c1 - c0) % 4 != 0) {
        forPixels<T, C>(g, C, 0, g.rows, c0, c1, threadIdx.x, blockDim.x, f);
        return;
    }
    const std::uint32_t rowsPer = blockDim.x / std::uint32_t(groups);
    const std::uint32_t gi = threadIdx.x % std::uint32_t(groups);
    const std::uint32_t rOff = threadIdx.x / std::uint32_t(groups);
    if (rOff >= rowsPer)
        return;
    const std::int64_t col = c0 + 4 * std::int64_t(gi);
    const unsigned char* base = g.d_origin + std::size_t(col) * C * sizeof(T);
    const std::int64_t step = std::int64_t(rowsPer);
    batch = batch < 1 ? 1 : batch > kBatch ? kBatch : batch;
    for (std::int64_t r = rOff; r < g.rows; r += step * batch) {
        std::uint32_t w[kBatch][kWords];
#pragma unroll
        for (int k = 0; k < kBatch; ++k) {
            const std::int64_t rr = r + k * step;
            if (k < batch && rr < g.rows) {
                const unsigned int* q = reinterpret_cast<const unsigned int*>(base + std::size_t(rr) * g.pitch);
#pragma unroll
                for (int j = 0; j < kWords; ++j)
                    w[k][j] = __ldg(q + j);
            }
        }
#pragma unroll
        for (int k = 0; k < kBatch; ++k) {
            if (k < batch && r + k * step < g.rows) {
                T px[4][C];
                unpack4<T, C>(w[k], px);
                f(col, px, 4);
            }
        }
    }
}

template <typename T, int C, bool P16, Fast2D K>
__global__ void __launch_bounds__(K == Fast2D::None ? 256 : 1024, 1) stripKernel(const __grid_constant__ StripArgs a)
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

    const std::uint32_t counters = (s1 - s0) * a.colStride;
    zeroShared(P16 ? (counters + 1) / 2 : counters);
    __syncthreads();

    // Fast forms: the column is its own slot, a value's bin is a shift of it.
    auto visitFast = [&](std::int64_t col, const T(&px)[4][kSlotsOf<C>], int n) {
        const std::uint32_t lx0 = std::uint32_t(col + a.L.region.col0) - s0;
        if constexpr (K == Fast2D::Channels) {
#pragma unroll 1
            for (int p = 0; p < m.numPairs; ++p) {
                const std::uint32_t base = lx0 * a.colStride + a.yOffset[p];
                const int ch = a.fastChannel[p];
                const std::uint32_t shift = a.fastShift[p];
#pragma unroll
                for (int i = 0; i < 4; ++i)
                    if (i < n)
                        sharedAdd<P16>(base + i * a.colStride + (std::uint32_t(pick(px[i], ch)) >> shift), 1u);
            }
        } else if constexpr (K == Fast2D::Luma) {
            const YccCoefficients k = yccCoefficients(m.bt709);
            const std::uint32_t kr = std::uint32_t(k.yr), kg = std::uint32_t(k.yg), kb = std::uint32_t(k.yb);
            const int cr = m.rgb[0], cg = m.rgb[1], cb = m.rgb[2];
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                if (i < n) {
                    // Luma coefficients are positive and sum to 2^16: the sum fits 32 bits for 16-bit codes.
                    const std::uint32_t y = (kr * std::uint32_t(pick(px[i], cr)) + kg * std::uint32_t(pick(px[i], cg))
                                             + kb * std::uint32_t(pick(px[i], cb)) + 32768u) >> 16;
                    sharedAdd<P16>((lx0 + i) * a.colStride + (y >> a.fastShift[0]), 1u);
                }
            }
        }
    };
    auto visit = [&](std::int64_t col, const T(&px)[4][kSlotsOf<C>], int n) {
        std::uint32_t lx[4];
#pragma unroll
        for (int i = 0; i < 4; ++i)
            lx[i] = (slotOfInteger(xm, col + i + a.L.region.col0) - s0) * a.colStride;
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
    if constexpr (K == Fast2D::None)
        forPixels<T, C>(a.L.region, a.L.channels, 0, a.L.region.rows, c0, c1, threadIdx.x, blockDim.x, visit);
    else
        forPixelsBatched<T, C>(a.L.region, c0, c1, a.batch, visitFast);
    __syncthreads();

    // Each counter of slots [s0, s1) belongs to this block alone: store it, coalesced per pair.
    for (int p = 0; p < m.numPairs; ++p) {
        const std::uint32_t ySlots = m.pair[p].ySlots;
        const std::uint32_t n = (s1 - s0) * ySlots;
        std::uint32_t* out = a.L.d_counts + m.pair[p].base + std::size_t(s0) * ySlots;
        for (std::uint32_t k = threadIdx.x; k < n; k += blockDim.x) {
            const std::uint32_t lx = k / ySlots;
            const std::uint32_t sy = k - lx * ySlots;
            out[k] = sharedGet<P16>(lx * a.colStride + a.yOffset[p] + sy);
        }
    }
}


}  // namespace

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
    // Counters of one x slot span a multiple of 32 words for the common y bins (256, 3 x 256 with
    // margins rounded): every column's counter of a value would sit in the same bank. An odd word
    // stride puts neighbouring columns in different banks.
    std::uint64_t colStride = ySlotsTotal;
    if (tuning.stripPad) {
        if (plan.packed16) {
            colStride = (colStride + 1) / 2 * 2;
            if ((colStride / 2) % 2 == 0)
                colStride += 2;
        } else {
            colStride |= 1;
        }
    }
    const std::uint64_t bytesPerBin = colStride * (plan.packed16 ? 2 : 4);
    const std::size_t budget = device.sharedOptin > kScopeSharedReserve ? device.sharedOptin - kScopeSharedReserve : 0;
    if (bytesPerBin + 4 > budget)
        return plan;
    const std::uint64_t avgCols = std::max<std::uint64_t>(1, xm.irange / xm.num_bins);
    std::uint64_t perItem = std::max<std::uint64_t>(1, tuning.stripColumns / avgCols);
    perItem = std::min<std::uint64_t>(perItem, (budget - 4) / bytesPerBin);
    perItem = std::min<std::uint64_t>(perItem, xm.num_bins);
    plan.binsPerItem = std::uint32_t(perItem);
    plan.binItems = std::uint32_t((xm.num_bins + perItem - 1) / perItem);
    plan.blocks = plan.binItems + 3;
    plan.colStride = std::uint32_t(colStride);
    const std::uint64_t counters = perItem * colStride;
    plan.sharedBytes = std::size_t(plan.packed16 ? (counters + 1) / 2 : counters) * 4;
    plan.fits = true;
    return plan;
}

Status launchStrips(const Launch2D& L, const StripPlan& plan, const Tuning2D& tuning, LaunchCache& cache,
                    const Device2D& device, cudaStream_t stream)
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
    a.colStride = plan.colStride;
    a.batch = std::max(1, tuning.stripBatch);
    return visitTypeChannels2D(L.type, L.channels, [&](auto tag, auto channels) -> Status {
        using T = decltype(tag);
        constexpr int C = decltype(channels)::value;
        void (*kernel)(StripArgs) = plan.packed16 ? stripKernel<T, C, true, Fast2D::None> : stripKernel<T, 0, false, Fast2D::None>;
        int threads = std::min(tuning.threads, 256);
        if constexpr (C > 0) {
            if (tuning.fast && plan.packed16) {
                const Fast2D fast = stripFastForm(L, a.regionWidth, a);
                if (fast == Fast2D::Channels)
                    kernel = stripKernel<T, C, true, Fast2D::Channels>;
                else if (fast == Fast2D::Luma)
                    kernel = stripKernel<T, C, true, Fast2D::Luma>;
                if (fast != Fast2D::None)
                    threads = std::clamp(tuning.fastStripThreads, 32, 1024);
            }
        }
        HS_TRY(cache.allowDynamicShared(reinterpret_cast<const void*>(kernel), plan.sharedBytes, device.sharedOptin));
        kernel<<<plan.blocks, threads, plan.sharedBytes, stream>>>(a);
        return launched("stripKernel");
    });
}


}  // namespace hs::detail
