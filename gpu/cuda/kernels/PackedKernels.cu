// `packed`: two 16-bit counters a shared word, so one block holds twice the slots of the 32-bit
// families in one pass (about 116,000 on the H200, where 65,536 and 100,000 bins take those two
// passes), merged by plain stores instead of atomics.
//
// A 16-bit counter must never wrap, whatever the skew, and without the atomic's return (which
// costs each update about two: scripts/bigbin_variants.cu, packed16 against rows16). So a block
// walks its samples in segments, each of which can add at most segmentBound to any one counter,
// and keeps an upper bound of its counters: before a segment could take one past 65,535, the
// block stops, moves every counter at or above settleAt into the totals (64-bit atomics; only
// skewed data has any) and takes the largest left as its bound. 16 M uniform keys settle twice a
// block, and once more at the end.
//
// The merge: 132 blocks each adding 65,536 counters into the totals by 64-bit atomics took about
// 21 us on the H200, the length of the whole read of 16 M keys. Here every block stores its packed
// words as one row of a scratch table, at the fewest bits that hold its largest counter (a last
// settle finds it), and a second kernel adds the rows up, column by column, and adds each sum into
// the totals once (an atomic nothing reads back): rows x slots x 2 bytes read at most, a quarter
// of that for uniform keys. The input is read evict-first, so that the rows stay in L2 for the sum.
#include "../LaunchSupport.cuh"
#include "Kernels.h"

#include <cub/block/block_reduce.cuh>

namespace hs::detail {

// The block's counters; declared as quads so that the dynamic shared memory is 16-byte aligned.
extern __shared__ uint4 packedQuads[];

namespace {

constexpr int kPackedThreads = 1024;
constexpr std::uint32_t kCounterMax = 0xffffu;
// A segment adds at most segmentBound (ArchTuning::packedSegmentBound, cut to whole groups by
// packedShape) to a counter, so a settle moves every counter at or above settleAt = 2^16 -
// segmentBound into the totals: after it, any segment fits. Every settle stops the block's loads,
// so segments are as long as a 16-bit counter allows; only skewed data has counters to move.
// 17 warps of 8 loads take up to 136 rows in one round trip: the H200's 132 (one a block).
constexpr int kReduceWarps = 17;
constexpr int kReduceLoads = 8;  // rows a warp loads before it adds any

// How a block's walk is cut: segments of segmentRows rows (a multiple of gridDim.y, unless all)
// by segmentWidth pixels, in each of which one block adds at most segmentBound to any counter.
struct PackedShape {
    std::int64_t segmentRows = 1;
    std::int64_t segmentWidth = 1;
    std::uint32_t segmentBound = 0;
    std::uint32_t settleAt = 0;  // kCounterMax + 1 - segmentBound
    int prefetchGroups = 0;  // of each segment's first loads, asked of L2 before its settle
};

// Without a branch: a sample outside the tile goes to its lane's own word past the tile's quads
// (kPackedDiscardQuads of them, never read), so that no update waits on a convergence barrier.
// The branch cost the count about 10 % more instructions (BSSY/BSYNC around every update in the
// SASS of session 18's run 5). A tile of every slot (kWhole: one pass) needs no test at all.
// The increment is arithmetic, 1 or 2^16: a select took four instructions where this takes two.
template <bool kWhole>
struct PackedVisitor {
    std::uint32_t tileBegin;
    std::uint32_t tileSlots;
    std::uint32_t discardWord;  // this lane's word past the tile's quads
    template <int C>
    __device__ void count(std::uint32_t slot)
    {
        std::uint32_t word;
        std::uint32_t s;
        if constexpr (kWhole) {
            s = slot;  // tileBegin is 0 and every slot is in the tile
            word = s >> 1;
        } else {
            s = slot - tileBegin;  // wraps past tileSlots when below the tile
            word = s < tileSlots ? s >> 1 : discardWord;
        }
        atomicAdd(reinterpret_cast<std::uint32_t*>(packedQuads) + word, 1u + (s & 1u) * 0xffffu);
    }
};

// A block's counters are quads of words (eight slots), so that its fixed work (the clear, the
// settles, the row's store) takes one 16-byte access for four words: with one block an SM, a
// thread owns 32 words of a 65,536-slot tile and counts only some 60-130 samples.

__device__ __forceinline__ std::uint32_t settleWord(std::uint32_t w, std::uint32_t slot, std::uint32_t settleAt,
                                                    unsigned long long* d_slots, std::uint32_t& largest)
{
    std::uint32_t lo = w & 0xffffu;
    std::uint32_t hi = w >> 16;
    if (lo >= settleAt) {
        atomicAdd(d_slots + slot, static_cast<unsigned long long>(lo));
        lo = 0;
    }
    if (hi >= settleAt) {
        atomicAdd(d_slots + slot + 1, static_cast<unsigned long long>(hi));
        hi = 0;
    }
    largest = max(largest, max(lo, hi));
    return lo | (hi << 16);
}

using PackedMax = cub::BlockReduce<std::uint32_t, kPackedThreads>;

// Moves every counter at or above settleAt into the totals; returns the largest left, the same
// in every thread of the block.
__device__ std::uint32_t settleCounters(std::uint32_t quads, std::uint32_t tileBegin, std::uint32_t settleAt,
                                        unsigned long long* d_slots, PackedMax::TempStorage& maxStorage,
                                        std::uint32_t* s_largest)
{
    __syncthreads();  // the segment's updates have landed, and the last bound has been read
    std::uint32_t largest = 0;
    uint4* q = packedQuads;
    for (std::uint32_t i = threadIdx.x; i < quads; i += blockDim.x) {
        const uint4 v = q[i];
        const std::uint32_t high = max(max(v.x, v.y), max(v.z, v.w));  // a word's high half dominates
        std::uint32_t halves = max(max(v.x & 0xffffu, v.y & 0xffffu), max(v.z & 0xffffu, v.w & 0xffffu));
        if ((high >> 16) >= settleAt || halves >= settleAt) {
            const std::uint32_t slot = tileBegin + 8 * i;
            uint4 kept;
            kept.x = settleWord(v.x, slot, settleAt, d_slots, largest);
            kept.y = settleWord(v.y, slot + 2, settleAt, d_slots, largest);
            kept.z = settleWord(v.z, slot + 4, settleAt, d_slots, largest);
            kept.w = settleWord(v.w, slot + 6, settleAt, d_slots, largest);
            q[i] = kept;
        } else {
            largest = max(largest, max(high >> 16, halves));
        }
    }
    largest = PackedMax(maxStorage).Reduce(largest, ::cuda::maximum<>{});  // thread 0's alone
    if (threadIdx.x == 0)
        *s_largest = largest;
    __syncthreads();
    return *s_largest;
}

// A block's row holds its counters at the fewest bits that hold its largest: 4, 8 or 16. 16 M
// uniform keys leave a block of 65,536 slots counters of about 2 (at most a dozen), so its row
// takes a quarter of the 16-bit one; a 4K 16-bit frame's rows are as large as the frame at 16
// bits. Slot 8i + j of the quad i: byte j of the 8-bit pair (bytes 0-3 the first word, 4-7 the
// second); the low nibble of byte j, or the high nibble of byte j - 4, of the 4-bit word.
__device__ __forceinline__ std::uint32_t lowBytes(std::uint32_t a, std::uint32_t b)
{
    return __byte_perm(a, b, 0x6420);  // the low byte of each 16-bit counter of a, then of b
}

__device__ void storeRow(uint4* d_row, std::uint32_t quads, std::uint32_t largest, std::uint32_t* d_width)
{
    const uint4* q = packedQuads;
    const std::uint32_t bits = largest <= 0xfu ? 4 : largest <= 0xffu ? 8 : 16;
    for (std::uint32_t i = threadIdx.x; i < quads; i += blockDim.x) {
        const uint4 v = q[i];
        if (bits == 4)
            reinterpret_cast<std::uint32_t*>(d_row)[i] = lowBytes(v.x, v.y) | (lowBytes(v.z, v.w) << 4);
        else if (bits == 8)
            reinterpret_cast<uint2*>(d_row)[i] = make_uint2(lowBytes(v.x, v.y), lowBytes(v.z, v.w));
        else
            d_row[i] = v;
    }
    if (threadIdx.x == 0)
        *d_width = bits;
}

template <typename T, int C, typename Mapper, bool kWhole>
__global__ void __launch_bounds__(kPackedThreads, 1) packedKernel(KernelArgs a, PackedShape shape, uint4* d_rows,
                                                                  std::uint32_t* d_widths)
{
    using Tracker = typename Mapper::template Tracker<C>;
    constexpr std::int64_t kPixelBytes = C * std::int64_t(sizeof(T));
    __shared__ std::uint32_t blockExtrema[kExtremaWords];
    __shared__ typename PackedMax::TempStorage maxStorage;
    __shared__ std::uint32_t s_largest;
    const std::uint32_t slots = a.tile_end - a.tile_begin;
    const std::uint32_t quads = (slots + 7) / 8;
    const auto segment = [&](std::int64_t r0, std::int64_t x0) {
        SampleGrid part;
        part.d_origin = a.grid.d_origin + std::size_t(r0) * a.grid.pitch + std::size_t(x0 * kPixelBytes);
        part.pitch = a.grid.pitch;
        part.width = min(shape.segmentWidth, a.grid.width - x0);
        part.rows = min(shape.segmentRows, a.grid.rows - r0);
        return part;
    };
    // The first segment's loads stream in while the block clears its counters.
    if (shape.prefetchGroups > 0 && threadIdx.x < 32)
        prefetchWalkStart<T, C>(segment(0, 0), shape.prefetchGroups);
    uint4* q = packedQuads;
    for (std::uint32_t i = threadIdx.x; i < quads; i += blockDim.x)
        q[i] = make_uint4(0, 0, 0, 0);
    initBlockExtrema(blockExtrema);
    __syncthreads();
    PackedVisitor<kWhole> visitor{a.tile_begin, slots, 4 * quads + (threadIdx.x & 31u)};
    Tracker tracker;
    std::uint32_t bound = 0;  // no counter of this block exceeds it
    for (std::int64_t r0 = 0; r0 < a.grid.rows; r0 += shape.segmentRows) {
        for (std::int64_t x0 = 0; x0 < a.grid.width; x0 += shape.segmentWidth) {
            const SampleGrid part = segment(r0, x0);
            if (bound + shape.segmentBound > kCounterMax) {
                // The settle's barriers would stop this SM's reads: its next loads stream in meanwhile.
                if (shape.prefetchGroups > 0 && threadIdx.x < 32)
                    prefetchWalkStart<T, C>(part, shape.prefetchGroups);
                bound = settleCounters(quads, a.tile_begin, shape.settleAt, a.d_slots, maxStorage, &s_largest);
            }
            walkSamples<T, C, Mapper, Load::Streaming>(part, a.map, visitor, tracker);
            bound += shape.segmentBound;
        }
    }
    tracker.foldIntoBlock(blockExtrema);
    // The last settle gives the row's width; its barriers also order the fold before the publish.
    const std::uint32_t largest = settleCounters(quads, a.tile_begin, shape.settleAt, a.d_slots, maxStorage, &s_largest);
    const std::uint32_t rowIndex = blockIdx.y * gridDim.x + blockIdx.x;
    storeRow(d_rows + std::size_t(rowIndex) * quads, quads, largest, d_widths + rowIndex);
    // Every tile walks every sample; the first one alone publishes what they all saw.
    if (Tracker::kTracks && a.tile_begin == 0)
        publishBlockExtrema<C>(a.map, blockExtrema, a.d_extrema);
    clearNextTotals(a);
}

// One row's eight counters of quad qi, added into sums, at the row's width (storeRow).
__device__ __forceinline__ void addQuad(const uint4& x, std::uint32_t bits, std::uint32_t (&sums)[8])
{
    if (bits == 16) {
        const std::uint32_t w[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            sums[2 * j] += w[j] & 0xffffu;
            sums[2 * j + 1] += w[j] >> 16;
        }
    } else if (bits == 8) {
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            sums[j] += (x.x >> (8 * j)) & 0xffu;
            sums[4 + j] += (x.y >> (8 * j)) & 0xffu;
        }
    } else if (bits == 4) {
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            sums[j] += (x.x >> (8 * j)) & 0xfu;
            sums[4 + j] += (x.x >> (8 * j + 4)) & 0xfu;
        }
    }
}

__device__ __forceinline__ uint4 loadQuad(const uint4* d_row, std::uint32_t qi, std::uint32_t bits)
{
    // Read once: evict-first, so that the rows still to be read stay in L2.
    if (bits == 16)
        return __ldcs(d_row + qi);
    if (bits == 8) {
        const uint2 v = __ldcs(reinterpret_cast<const uint2*>(d_row) + qi);
        return make_uint4(v.x, v.y, 0, 0);
    }
    if (bits == 4)
        return make_uint4(__ldcs(reinterpret_cast<const unsigned int*>(d_row) + qi), 0, 0, 0);
    return make_uint4(0, 0, 0, 0);
}

// Adds the rows into the totals: a block takes 32 quads (256 slots), each of its warps every
// kReduceWarps-th row (kReduceLoads rows issued before any is added; a row's width is the same
// for the whole warp), and one lane a quad adds its eight sums in. A column of r rows sums to at
// most r x 65,535 < 2^32 for r < 65,537 rows (blocks).
template <int kBlocksPerSm>
__global__ void __launch_bounds__(kReduceWarps * 32, kBlocksPerSm) packedReduceKernel(const uint4* __restrict__ d_rows,
                                                                        const std::uint32_t* __restrict__ d_widths,
                                                                        std::uint32_t rows, std::uint32_t quads,
                                                                        std::uint32_t tileBegin, std::uint32_t slots,
                                                                        unsigned long long* d_slots)
{
    __shared__ std::uint32_t s_sums[kReduceWarps][8][33];
    // The dynamic shared memory (declared once, as the count's quads) holds each row's width here.
    auto* s_widths = reinterpret_cast<std::uint32_t*>(packedQuads);
    for (std::uint32_t r = threadIdx.x; r < rows; r += blockDim.x)
        s_widths[r] = d_widths[r];
    __syncthreads();
    const std::uint32_t lane = threadIdx.x & 31u;
    const std::uint32_t warp = threadIdx.x >> 5;
    const std::uint32_t qi = blockIdx.x * 32 + lane;
    std::uint32_t sums[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    if (qi < quads) {
        // Loads issued as a batch: one at a time, each waited for its own latency (10.9 us for
        // 132 rows of 65,536 slots on the H200, Nsight Compute, 21 % issue).
        for (std::uint32_t r0 = warp; r0 < rows; r0 += kReduceWarps * kReduceLoads) {
            uint4 x[kReduceLoads];
            std::uint32_t bits[kReduceLoads];
#pragma unroll
            for (int k = 0; k < kReduceLoads; ++k) {
                const std::uint32_t r = r0 + k * kReduceWarps;
                bits[k] = r < rows ? s_widths[r] : 0;
                x[k] = loadQuad(d_rows + std::size_t(r) * quads, qi, bits[k]);
            }
#pragma unroll
            for (int k = 0; k < kReduceLoads; ++k)
                addQuad(x[k], bits[k], sums);
        }
    }
#pragma unroll
    for (int j = 0; j < 8; ++j)
        s_sums[warp][j][lane] = sums[j];
    __syncthreads();
    if (warp == 0 && qi < quads) {
        for (int k = 1; k < kReduceWarps; ++k)
#pragma unroll
            for (int j = 0; j < 8; ++j)
                sums[j] += s_sums[k][j][lane];
#pragma unroll
        for (int j = 0; j < 8; ++j)
            if (sums[j] && 8 * qi + j < slots)
                // One writer a slot: the atomic only spares the warp a wait for the total's load.
                atomicAdd(d_slots + tileBegin + 8 * qi + j, static_cast<unsigned long long>(sums[j]));
    }
}

// The most pixels of one row, cut to `width`, that one of `blocksX` blocks walks: its share of the
// 16-byte groups, plus the unaligned head (< 16 pixels) and tail (< a group), which one block takes.
std::int64_t blockRowPixels(std::int64_t width, std::int64_t blocksX, int groupPixels)
{
    const std::int64_t groups = (width + groupPixels - 1) / groupPixels;
    const std::int64_t threads = blocksX * kPackedThreads;
    const std::int64_t perThread = (groups + threads - 1) / threads;
    return std::min<std::int64_t>(width, perThread * kPackedThreads * groupPixels + 16 + groupPixels);
}

// Segments a block walks at most `bound` pixels of (a pixel adds one to one counter of each
// channel, never two to one counter): as many whole groups a thread as fit, since the walker
// keeps a last partial round's loads in flight together too.
PackedShape packedShape(const SampleGrid& grid, dim3 blocks, int groupPixels, std::uint32_t bound)
{
    PackedShape shape;
    shape.segmentWidth = std::max<std::int64_t>(1, grid.width);
    if (blockRowPixels(shape.segmentWidth, blocks.x, groupPixels) > std::int64_t(bound)) {
        const std::int64_t groupsPerThread = (std::int64_t(bound) - 16 - groupPixels) / (std::int64_t(kPackedThreads) * groupPixels);
        shape.segmentWidth = std::max<std::int64_t>(1, groupsPerThread) * blocks.x * kPackedThreads * groupPixels;
    }
    const std::int64_t rowPixels = blockRowPixels(shape.segmentWidth, blocks.x, groupPixels);
    const std::int64_t rowsPerBlock = std::max<std::int64_t>(1, std::int64_t(bound) / rowPixels);
    shape.segmentRows = std::max<std::int64_t>(1, std::min<std::int64_t>(grid.rows, rowsPerBlock * blocks.y));
    const std::int64_t blockRows = (shape.segmentRows + blocks.y - 1) / blocks.y;
    shape.segmentBound = std::uint32_t(std::min<std::int64_t>(blockRows * rowPixels, kCounterMax + 1));
    shape.settleAt = kCounterMax + 1 - shape.segmentBound;
    return shape;
}

}  // namespace

Status launchPacked(const KernelArgs& args, PackedScratch& scratch, const LaunchContext& ctx)
{
    return visitCounting(args, [&](auto tag, auto channels, auto mapper) -> Status {
        using T = decltype(tag);
        constexpr int C = decltype(channels)::value;
        using M = decltype(mapper);
        std::size_t fixed = 0;  // the same static shared memory in both kernels
        HS_TRY(ctx.cache.staticSharedBytes(reinterpret_cast<const void*>(packedKernel<T, C, M, true>), fixed));
        const std::uint32_t maxTile = packedPassSlots(ctx.props.sharedPerBlockOptin, fixed);
        const std::uint32_t tiles = (args.map.num_slots + maxTile - 1) / maxTile;
        if (tiles == 0)
            return Status::success();
        const auto kernel = tiles == 1 ? packedKernel<T, C, M, true> : packedKernel<T, C, M, false>;
        const void* entry = reinterpret_cast<const void*>(kernel);
        // Even tiles of whole quads, so that every tile's rows are alike.
        const std::uint32_t tileSlots = std::min(maxTile, ((args.map.num_slots + tiles - 1) / tiles + 7) & ~7u);
        const std::size_t smem = std::size_t(tileSlots / 8 + kPackedDiscardQuads) * sizeof(uint4);
        HS_TRY(ctx.cache.allowDynamicShared(entry, smem, ctx.props.sharedPerBlockOptin));
        dim3 blocks;
        HS_TRY(gridFor(entry, kPackedThreads, smem, args.grid, ctx, groupPixels<T>(), blocks));
        PackedShape shape = packedShape(args.grid, blocks, groupPixels<T>(), ctx.tuning.packedSegmentBound);
        shape.prefetchGroups = ctx.tuning.packedPrefetchRounds * walkDepth<C>();
        if (shape.segmentBound > kCounterMax)
            return Status::error(ErrorCode::InvalidArgument, "packed: a segment could overflow a 16-bit counter");
        const std::uint32_t rows = blocks.x * blocks.y;
        HS_TRY(scratch.rows.reserve(std::size_t(rows) * (tileSlots / 8) * sizeof(uint4)));
        HS_TRY(scratch.widths.reserve(std::size_t(rows) * sizeof(std::uint32_t)));
        auto* d_rows = scratch.rows.get<uint4>();
        auto* d_widths = scratch.widths.get<std::uint32_t>();
        KernelArgs a = args;
        a.replicas = 1;
        for (std::uint32_t begin = 0; begin < args.map.num_slots; begin += tileSlots) {
            a.tile_begin = begin;
            a.tile_end = std::min(args.map.num_slots, begin + tileSlots);
            const std::uint32_t slots = a.tile_end - begin;
            const std::uint32_t quads = (slots + 7) / 8;
            kernel<<<blocks, kPackedThreads, std::size_t(quads + kPackedDiscardQuads) * sizeof(uint4), ctx.stream>>>(
                a, shape, d_rows, d_widths);
            HS_TRY(lastLaunchStatus("packedKernel"));
            a.d_zero = nullptr;  // the first tile's launch cleared the next call's totals
            a.zero_words = 0;
            const auto reduce = ctx.tuning.packedReduceBlocksPerSm >= 2 ? packedReduceKernel<2> : packedReduceKernel<1>;
            reduce<<<(quads + 31) / 32, kReduceWarps * 32, rows * sizeof(std::uint32_t), ctx.stream>>>(
                d_rows, d_widths, rows, quads, begin, slots, args.d_slots);
            HS_TRY(lastLaunchStatus("packedReduceKernel"));
        }
        return Status::success();
    });
}

}  // namespace hs::detail
