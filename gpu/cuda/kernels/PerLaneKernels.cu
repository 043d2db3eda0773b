// `per-lane`: 8-bit samples counted in lane columns. Every (channel, value) has 32 counters of
// its block, one per lane, at word (channel * 256 + value) * 32 + lane: a warp's 32 updates land
// in 32 banks whatever the data, and equal values in one warp never share an address. Updates are
// shared atomics whose result nobody reads, so no update waits on another (the byte counters this
// replaced were a load and a store per sample, each waiting on the last: issue-bound at 2x the
// read probe). Counters are indexed by value, not by bin, so any binning of 8-bit data works:
// values become slots once per block at the end.
//
// Feeding it: a contiguous frame (one long row) is read in steps interleaved over all warps, and
// so are rows that all share one 16-byte alignment (a region, a padded pitch), their groups
// numbered one after another. Rows of varying alignment go in contiguous parts, about four per
// warp. The loads of a warp's next step are in flight while the current one is counted (a
// register double buffer); the first step's loads are issued before the counters are cleared.
// Whole steps are counted without bound checks; only the one step that a range's end cuts is
// checked. Unaligned row heads and tails are counted pixel by pixel, a row's by one warp.
// scripts/u8_variants.cu measured the loop's shapes on the H200 first (issue 21).
//
// Width: a counter of a block takes at most the samples of its launch, <= 2^30
// (kMaxPieceSamples), so 32-bit counters cannot overflow.
#include "../LaunchSupport.cuh"
#include "../SampleWalker.cuh"
#include "Kernels.h"

namespace hs::detail {

extern __shared__ std::uint32_t perLaneShared[];

namespace {

template <int C>
struct LaneColumnShape {
    // uint4 vectors per group: a group holds whole pixels and starts on channel 0.
    static constexpr int kVecs = (16 % C == 0) ? 1 : C;
    static constexpr int kGroupPixels = 16 * kVecs / C;
    // Groups per lane per step, and one resident block of 1,024 threads of up to 64 registers.
    // H200, scripts/u8_variants.cu on 64 MiB of bytes (session 13): four groups in one block took
    // 22.7 us of kernel time, two groups in each of two blocks of 32 registers 24.3 (the probe
    // 21.8). Three channels take one group (48 bytes), four take two.
    static constexpr int kGroups = C == 3 ? 1 : C == 4 ? 2 : 4;
    static constexpr std::uint32_t kWords = C * 256 * 32;
    static constexpr int kBlocksPerMultiprocessor = 1;
};

__device__ __forceinline__ void countValue(std::uint32_t* columns, std::uint32_t lane, int c, std::uint32_t value)
{
    atomicAdd(columns + ((std::uint32_t(c) * 256u + value) << 5) + lane, 1u);
}

template <int C>
__device__ __forceinline__ void countGroup(std::uint32_t* columns, std::uint32_t lane,
                                           const uint4 (&v)[LaneColumnShape<C>::kVecs])
{
#pragma unroll
    for (int q = 0; q < LaneColumnShape<C>::kVecs; ++q) {
        const std::uint32_t words[4] = {v[q].x, v[q].y, v[q].z, v[q].w};
#pragma unroll
        for (int p = 0; p < 16; ++p)
            countValue(columns, lane, (q * 16 + p) % C, (words[p >> 2] >> (8 * (p & 3))) & 0xffu);
    }
}

template <int C>
using Step = uint4[LaneColumnShape<C>::kGroups][LaneColumnShape<C>::kVecs];

// Where a range's group g lies. One long row (a contiguous frame), or rows whose pitch keeps every
// row's 16-byte alignment the same (a region of a frame, padded rows), where the groups of all
// rows are numbered one after another: g is group g % groupsPerRow of row g / groupsPerRow.
template <int C>
struct LongRow {
    const uint4* base;
    __device__ __forceinline__ const uint4* at(std::uint32_t g) const { return base + g * LaneColumnShape<C>::kVecs; }
};

template <int C>
struct AlignedRows {
    const uint4* base;  // row 0's first whole group
    std::uint32_t groupsPerRow;
    std::size_t pitchVecs;
    __device__ __forceinline__ const uint4* at(std::uint32_t g) const
    {
        const std::uint32_t r = g / groupsPerRow;
        return base + std::size_t(r) * pitchVecs + (g - r * groupsPerRow) * LaneColumnShape<C>::kVecs;
    }
};

// The lane's groups of the step that starts at group s: s + k * 32 + lane. Checked, only those
// below `end` (a step that `end` cuts); a whole step needs no check, and the checks cost the
// engine's kernel 12-15 % against the same loop without them (u8_variants, session 13: 64 MiB of
// bytes 27.2 against 24.3 us, an 8K RGB frame 37.0 against 32.3).
template <int C, bool Checked, typename Locator>
__device__ __forceinline__ void loadStep(Step<C>& v, const Locator& groups, std::uint32_t s, std::uint32_t end,
                                         std::uint32_t lane)
{
    using Shape = LaneColumnShape<C>;
#pragma unroll
    for (int k = 0; k < Shape::kGroups; ++k) {
        const std::uint32_t g = s + k * 32 + lane;
        if (!Checked || g < end) {
            const uint4* group = groups.at(g);
#pragma unroll
            for (int q = 0; q < Shape::kVecs; ++q)
                v[k][q] = __ldg(group + q);
        } else {
#pragma unroll
            for (int q = 0; q < Shape::kVecs; ++q)
                v[k][q] = make_uint4(0, 0, 0, 0);
        }
    }
}

template <int C, bool Checked>
__device__ __forceinline__ void countStep(std::uint32_t* columns, const Step<C>& v, std::uint32_t s, std::uint32_t end,
                                          std::uint32_t lane)
{
#pragma unroll
    for (int k = 0; k < LaneColumnShape<C>::kGroups; ++k)
        if (!Checked || s + k * 32 + lane < end)
            countGroup<C>(columns, lane, v[k]);
}

template <int C>
__device__ __forceinline__ void countPixel(std::uint32_t* columns, std::uint32_t lane, const unsigned char* pixel)
{
#pragma unroll
    for (int c = 0; c < C; ++c)
        countValue(columns, lane, c, pixel[c]);
}

// A row's unaligned head (pixels before the first 16-byte boundary), its whole groups after it,
// and its tail. A head is under 16 pixels unless no pixel of the row is 16-byte aligned (odd
// addresses of 2- and 4-channel pixels): then the whole row is its head.
struct RowShape {
    std::int64_t head;
    std::int64_t groups;
};

template <int C>
__device__ __forceinline__ RowShape rowShape(const unsigned char* row, std::int64_t width)
{
    const std::int64_t head = alignedHead(row, C, width);
    return {head, (width - head) / LaneColumnShape<C>::kGroupPixels};
}

template <int C>
__device__ __forceinline__ void countRowEnds(std::uint32_t* columns, std::uint32_t lane, const unsigned char* row,
                                             const RowShape& shape, std::int64_t width)
{
    for (std::int64_t i = lane; i < shape.head; i += 32)
        countPixel<C>(columns, lane, row + i * C);
    for (std::int64_t i = shape.head + shape.groups * LaneColumnShape<C>::kGroupPixels + lane; i < width; i += 32)
        countPixel<C>(columns, lane, row + i * C);
}

// Steps at begin, begin + stride, ... below end, each of 32 * kGroups groups, the next step's
// loads in flight while the current one is counted; `current` holds the first step's groups when
// that step is whole (firstStep). Whole steps go unchecked; the one step that `end` cuts, if any,
// is counted with checks. A row holds at most 2^30 samples (kMaxPieceSamples): its group numbers
// fit 32 bits.
template <int C, typename Locator>
__device__ __forceinline__ void countRange(std::uint32_t* columns, std::uint32_t lane, const Locator& vec, Step<C>& current,
                                           std::uint32_t begin, std::uint32_t end, std::uint32_t stride)
{
    constexpr std::uint32_t kStepGroups = 32 * LaneColumnShape<C>::kGroups;
    std::uint32_t s = begin;
    if (end >= kStepGroups && s <= end - kStepGroups) {
        for (;;) {
            const bool more = end - kStepGroups - s >= stride;  // the next step is whole as well
            Step<C> next;
            if (more)
                loadStep<C, false>(next, vec, s + stride, end, lane);
            countStep<C, false>(columns, current, s, end, lane);
            s += stride;
            if (!more)
                break;
#pragma unroll
            for (int k = 0; k < LaneColumnShape<C>::kGroups; ++k)
#pragma unroll
                for (int q = 0; q < LaneColumnShape<C>::kVecs; ++q)
                    current[k][q] = next[k][q];
        }
    }
    if (s < end) {
        loadStep<C, true>(current, vec, s, end, lane);
        countStep<C, true>(columns, current, s, end, lane);
    }
}

// The first step's loads, issued before the block clears its counters so that their latency
// hides the clear; only a whole step is loaded here (countRange's contract).
template <int C, typename Locator>
__device__ __forceinline__ void firstStep(Step<C>& current, const Locator& vec, std::uint32_t begin, std::uint32_t end,
                                          std::uint32_t lane)
{
    constexpr std::uint32_t kStepGroups = 32 * LaneColumnShape<C>::kGroups;
    if (end >= kStepGroups && begin <= end - kStepGroups)
        loadStep<C, false>(current, vec, begin, end, lane);
}

// Rows of one alignment (a region, padded rows): their groups in one sequence, read as the long
// row is; each warp counts the unaligned ends of its rows. A 4K RGB region cut into parts of rows
// (countRowParts) read its 24.9 MB at 2.1x the probe (H200, session 13): a part was under one
// step, so no load was in flight while one was counted. Out of line, like countRowParts, so that
// the registers of their row arithmetic are not the contiguous frame's loop's.
template <int C>
__device__ __noinline__ void countAlignedRows(std::uint32_t* columns, std::uint32_t lane, SampleGrid grid,
                                              RowShape shape, std::uint32_t begin, std::uint32_t stride,
                                              std::int64_t warp, std::int64_t warps)
{
    const AlignedRows<C> groups{reinterpret_cast<const uint4*>(grid.d_origin + shape.head * C),
                                std::uint32_t(shape.groups), grid.pitch / 16};
    const std::uint32_t total = std::uint32_t(grid.rows * shape.groups);
    Step<C> current;
    firstStep<C>(current, groups, begin, total, lane);
    for (std::int64_t r = warp; r < grid.rows; r += warps)
        countRowEnds<C>(columns, lane, grid.d_origin + std::size_t(r) * grid.pitch, shape, grid.width);
    countRange<C>(columns, lane, groups, current, begin, total, stride);
}

// Rows of varying alignment (a pitch that is no multiple of 16): contiguous parts of rows, about
// four per warp.
template <int C>
__device__ __noinline__ void countRowParts(std::uint32_t* columns, std::uint32_t lane, SampleGrid grid,
                                           std::int64_t warp, std::int64_t warps)
{
    constexpr std::uint32_t kStepGroups = 32 * LaneColumnShape<C>::kGroups;
    const std::int64_t rows = grid.rows;
    const std::int64_t parts = max(std::int64_t(1), (4 * warps + rows - 1) / rows);
    Step<C> current;
    for (std::int64_t item = warp; item < rows * parts; item += warps) {
        const std::int64_t r = item / parts, part = item - r * parts;
        const unsigned char* row = grid.d_origin + std::size_t(r) * grid.pitch;
        const RowShape shape = rowShape<C>(row, grid.width);
        if (part == 0)
            countRowEnds<C>(columns, lane, row, shape, grid.width);
        const LongRow<C> groups{reinterpret_cast<const uint4*>(row + shape.head * C)};
        const std::uint32_t from = std::uint32_t(shape.groups * part / parts);
        const std::uint32_t to = std::uint32_t(shape.groups * (part + 1) / parts);
        firstStep<C>(current, groups, from, to, lane);
        countRange<C>(columns, lane, groups, current, from, to, kStepGroups);
    }
}

template <int C>
__global__ void __launch_bounds__(1024, LaneColumnShape<C>::kBlocksPerMultiprocessor) perLaneKernel(KernelArgs a)
{
    using Shape = LaneColumnShape<C>;
    constexpr std::uint32_t kStepGroups = 32 * Shape::kGroups;
    std::uint32_t* columns = perLaneShared;
    __shared__ std::uint32_t blockExtrema[kExtremaWords];
    __shared__ std::uint32_t valueCounts[C * 256];

    const std::uint32_t lane = threadIdx.x & 31u;
    const std::int64_t warp = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    const std::int64_t warps = (std::int64_t(gridDim.x) * blockDim.x) >> 5;
    const std::int64_t rows = a.grid.rows;
    const unsigned char* origin = a.grid.d_origin;
    // Every row starts as far from a 16-byte boundary as the first: one shape for all rows.
    const RowShape shape = rowShape<C>(origin, a.grid.width);
    const uint4* body = reinterpret_cast<const uint4*>(origin + shape.head * C);
    const std::uint32_t begin = std::uint32_t(warp * kStepGroups);
    const std::uint32_t stride = std::uint32_t(warps * kStepGroups);
    const auto clearCounters = [&] {
        uint4* words = reinterpret_cast<uint4*>(columns);
        for (std::uint32_t i = threadIdx.x; i < Shape::kWords / 4; i += blockDim.x)
            words[i] = make_uint4(0, 0, 0, 0);
        initBlockExtrema(blockExtrema);
        __syncthreads();
    };
    Step<C> current;

    if (rows == 1) {
        // One long row (a contiguous frame): step k of warp w is the row's step k * warps + w, so
        // the warps read one stretch of memory together and a warp's loads never restart.
        const LongRow<C> groups{body};
        firstStep<C>(current, groups, begin, std::uint32_t(shape.groups), lane);
        clearCounters();
        if (warp == 0)
            countRowEnds<C>(columns, lane, origin, shape, a.grid.width);
        countRange<C>(columns, lane, groups, current, begin, std::uint32_t(shape.groups), stride);
    } else if (a.grid.pitch % 16 == 0) {
        clearCounters();
        countAlignedRows<C>(columns, lane, a.grid, shape, begin, stride, warp, warps);
    } else {
        clearCounters();
        countRowParts<C>(columns, lane, a.grid, warp, warps);
    }
    __syncthreads();

    // Each value's block count; each warp also finds the lowest and highest value it holds. A
    // value's 32 columns are read rotated by the value, so a warp's 32 reads hit 32 banks.
    for (std::uint32_t i = threadIdx.x; i < C * 256u; i += blockDim.x) {
        const int c = int(i >> 8);
        const std::uint32_t v = i & 255u;
        std::uint32_t n = 0;
#pragma unroll 8
        for (std::uint32_t l = 0; l < 32; ++l)
            n += columns[(i << 5) + ((l + i) & 31u)];
        valueCounts[i] = n;
        const unsigned seen = __ballot_sync(0xffffffffu, n != 0);
        if (lane == 0 && seen) {
            atomicMin(blockExtrema + 2 * c, v + std::uint32_t(__ffs(seen) - 1));
            atomicMax(blockExtrema + 2 * c + 1, v + std::uint32_t(31 - __clz(seen)));
        }
    }
    __syncthreads();
    // Values become slots. Wide bins gather many values in one slot: summed here first, so a block
    // adds one total per slot (132 blocks each adding 128 values into one of 2 bins queued 16,896
    // atomics on one address: 0.059 ms for 64 MiB of bytes against 0.038 into 256 bins).
    // Where every value has a slot of its own (one bin per value over all 256), there is nothing
    // to gather; any other binning may send many values to one slot.
    const std::uint32_t slots = a.map.num_slots;
    bool ownSlots = true;
#pragma unroll
    for (int c = 0; c < C; ++c) {
        const ChannelMap& m = a.map.ch[c];
        if (m.active && !(m.mode == MapMode::Identity && m.ilo <= 0 && m.ilo + std::int64_t(m.num_bins) >= 256))
            ownSlots = false;
    }
    const bool gathered = !ownSlots && slots <= Shape::kWords;
    if (gathered)
        for (std::uint32_t i = threadIdx.x; i < slots; i += blockDim.x)
            columns[i] = 0;
    __syncthreads();
    for (std::uint32_t i = threadIdx.x; i < C * 256u; i += blockDim.x) {
        const std::uint32_t n = valueCounts[i];
        const ChannelMap& m = a.map.ch[i >> 8];
        if (!n || !m.active)
            continue;
        const std::uint32_t slot = slotOf(m, std::uint8_t(i & 255u));
        if (gathered)
            atomicAdd(columns + slot, n);
        else
            atomicAdd(a.d_slots + slot, static_cast<unsigned long long>(n));
    }
    __syncthreads();
    if (gathered)
        for (std::uint32_t i = threadIdx.x; i < slots; i += blockDim.x)
            if (const std::uint32_t n = columns[i])
                atomicAdd(a.d_slots + i, static_cast<unsigned long long>(n));
    __syncthreads();
    publishBlockExtrema<C>(a.map, blockExtrema, a.d_extrema);

    clearNextTotals(a);
}

}  // namespace

Status launchPerLane(const KernelArgs& args, const LaunchContext& ctx)
{
    if (args.type != SampleType::U8)
        return Status::error(ErrorCode::UnsupportedStrategy,
                             "strategy 'per-lane' counts 8-bit samples only, not " + std::string(sampleTypeName(args.type)));
    return visitTypeAndChannels(args.type, args.channels, [&](auto, auto channels) -> Status {
        constexpr int C = decltype(channels)::value;
        using Shape = LaneColumnShape<C>;
        const auto kernel = perLaneKernel<C>;
        const void* entry = reinterpret_cast<const void*>(kernel);
        std::size_t fixed = 0;
        HS_TRY(ctx.cache.staticSharedBytes(entry, fixed));
        const std::size_t smem = Shape::kWords * sizeof(std::uint32_t);
        if (smem + fixed > ctx.props.sharedPerBlockOptin)
            return Status::error(ErrorCode::UnsupportedStrategy, "per-lane counters do not fit this device's shared memory");
        HS_TRY(ctx.cache.allowDynamicShared(entry, smem, ctx.props.sharedPerBlockOptin));
        const int threads = std::clamp(ctx.tuning.perLaneMaxWarps, 1, 32) * 32;
        int perMultiprocessor = 0;
        HS_TRY(ctx.cache.blocksPerMultiprocessor(entry, threads, smem, perMultiprocessor));
        if (perMultiprocessor < 1)
            return Status::error(ErrorCode::CudaError, "perLaneKernel does not fit on a multiprocessor");
        // A persistent grid, no larger than the work: a step of every warp covers kStepGroups
        // groups of 16 bytes.
        const std::int64_t bytes = args.grid.rows * args.grid.width * C;
        const std::int64_t blockBytes = std::int64_t(threads) * Shape::kGroups * Shape::kVecs * 16;
        const std::int64_t needed = std::max<std::int64_t>(1, (bytes + blockBytes - 1) / blockBytes);
        const int blocks = int(std::min<std::int64_t>(needed, std::int64_t(perMultiprocessor) * ctx.props.multiprocessors));
        kernel<<<blocks, threads, smem, ctx.stream>>>(args);
        return lastLaunchStatus("perLaneKernel");
    });
}

}  // namespace hs::detail
