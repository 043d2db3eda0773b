// `partition`: slot sets too big for one block's shared memory, counted in two passes so that no
// block holds, or merges, a copy of every bin (issue 21; measured before it joined the engine in
// scripts/bigbin_variants.cu). A slot's high bits name its bucket of kPartitionBucketSlots
// slots, its low bits its place in that bucket.
//   split  Persistent blocks take tiles of the piece (a run of pixels within one row), rank each
//          sample within its bucket by a returning shared atomic on the bucket's count (with
//          warp runs, one per warp where all 32 lanes share a bucket, as on smooth frames), scan
//          the counts (cub::BlockScan), and write the tile's samples back as 16-bit places in
//          bucket order, with each bucket's start: one read of the input, two bytes a sample
//          written, all of it plain coalesced stores.
//   count  Block (p, b) adds up bucket b's places from every P-th tile in kPartitionBucketSlots
//          shared counters and merges them into the totals: every place is read once, and a
//          block merges 4,096 counters instead of a copy of every bin.
// The first split launch of a call also clears the next call's totals where the backend asks it
// to (KernelArgs::d_zero, clearsNextTotals in Dispatch.h).
// The scratch holds ArchTuning::partitionChunkSamples samples; a bigger piece goes chunk by
// chunk. Slot sets of more than kPartitionMaxBuckets buckets go in passes of that many buckets,
// each one a read of the input.
#include "../LaunchSupport.cuh"
#include "Kernels.h"

#include <cub/block/block_scan.cuh>

namespace hs::detail {

namespace {

constexpr int kSplitThreads = 512;
constexpr int kCountThreads = 512;
constexpr std::uint32_t kBucketSlots = kPartitionBucketSlots;
constexpr std::uint32_t kNoBucket = 0xffffu;
// Scratch per tile: every tile's places start at a multiple of this, 16-byte aligned.
constexpr std::uint32_t kTileSamples = 8192;
static_assert(kPartitionMaxBuckets == 2 * kSplitThreads, "the split scans two buckets a thread");
static_assert(kPartitionMaxBuckets < kNoBucket, "a bucket index and its place share one word");

// 16 samples a thread in registers (five pixels of three channels): 64 registers, two blocks an SM.
template <int C>
constexpr int splitPixelsPerThread() { return 16 / C; }
template <int C>
constexpr std::int64_t splitTilePixels() { return std::int64_t(kSplitThreads) * splitPixelsPerThread<C>(); }

struct SplitShape {
    std::int64_t tilesPerRow = 1;
    std::int64_t firstTile = 0;       // of the piece: this launch's chunk
    std::uint32_t numTiles = 0;       // in the chunk
    std::uint32_t firstBucket = 0;    // this pass's buckets
    std::uint32_t numBuckets = 0;
    bool vectorLoads = true;          // ArchTuning::partitionSplitVectorLoads
};

template <typename T, int C, typename M, bool kWarpRuns>
__global__ void __launch_bounds__(kSplitThreads, 2) splitKernel(KernelArgs a, SplitShape s, std::uint16_t* d_places,
                                                            std::uint32_t* d_starts)
{
    constexpr int kPixels = splitPixelsPerThread<C>();
    constexpr int kSamples = kPixels * C;
    constexpr std::int64_t kTilePixels = splitTilePixels<C>();
    static_assert(kTilePixels * C <= kTileSamples, "a tile's samples fit its scratch");
    // A whole tile of one channel on a 16-byte boundary (long rows: 1-D keys) is read in 16-byte
    // words, the block's threads interleaved word by word: a load and no address arithmetic per
    // sample, where the split is bound by issue slots.
    // (Not for 8-bit samples through the general mapper: that instance then spilled 104 bytes.)
    constexpr bool kVectorLoads = C == 1 && (kSamples * sizeof(T)) % 16 == 0
                               && !(sizeof(T) == 1 && std::is_same_v<M, GeneralMapper>);
    constexpr int kSamplesPerWord = 4 / int(sizeof(T));
    using Scan = cub::BlockScan<std::uint32_t, kSplitThreads>;
    using Tracker = typename M::template Tracker<C>;
    __shared__ typename Scan::TempStorage scanStorage;
    __shared__ std::uint32_t s_count[kPartitionMaxBuckets];
    __shared__ __align__(16) std::uint16_t s_stage[kTileSamples];
    __shared__ std::uint32_t blockExtrema[kExtremaWords];
    initBlockExtrema(blockExtrema);
    clearNextTotals(a);
    __syncthreads();
    Tracker tracker;
    const unsigned lane = threadIdx.x & 31u;
    const std::uint32_t firstSlot = s.firstBucket << kPartitionBucketShift;

    for (std::uint32_t t = blockIdx.x; t < s.numTiles; t += gridDim.x) {
        const std::int64_t tile = s.firstTile + t;
        // One row (1-D keys) needs no 64-bit division.
        std::int64_t r = 0, column = tile;
        if (tile >= s.tilesPerRow) {
            r = tile / s.tilesPerRow;
            column = tile - r * s.tilesPerRow;
        }
        const std::int64_t x0 = column * kTilePixels;
        const std::int64_t pixels = min(kTilePixels, a.grid.width - x0);
        const unsigned char* row = a.grid.d_origin + std::size_t(r) * a.grid.pitch + std::size_t(x0) * C * sizeof(T);
        for (std::uint32_t b = threadIdx.x; b < s.numBuckets; b += kSplitThreads)
            s_count[b] = 0;
        __syncthreads();

        // Every load of the tile is issued before the first sample is used: a load behind a
        // branch on the previous sample's slot waited for it (H200, session 15: this kernel at
        // 97.5 us for 16 M keys, one load in flight a thread, against 54 us with all 16).
        // A pixel past the tile's end reads the tile's first pixel instead (and is not counted),
        // so that no load sits behind a branch.
        // Offsets within the tile are 32-bit: 64-bit index arithmetic cost a dozen instructions a
        // sample.
        const std::uint32_t tilePixels = std::uint32_t(pixels);
        const bool vectorTile = kVectorLoads && s.vectorLoads && tilePixels == std::uint32_t(kTilePixels)
                             && (reinterpret_cast<std::uintptr_t>(row) & 15u) == 0;
        T v[kSamples];
        if (vectorTile) {
            if constexpr (kVectorLoads) {
                const uint4* words = reinterpret_cast<const uint4*>(row);
#pragma unroll
                for (int q = 0; q < int(kSamples * sizeof(T) / 16); ++q) {
                    const uint4 w = loadWord<Load::Streaming>(words + q * kSplitThreads + threadIdx.x);
                    const std::uint32_t parts[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
                    for (int e = 0; e < 4 * kSamplesPerWord; ++e)
                        v[q * 4 * kSamplesPerWord + e] = SampleBits<T>::from(parts[e / kSamplesPerWord], e);
                }
            }
        } else {
#pragma unroll
            for (int j = 0; j < kPixels; ++j) {
                const std::uint32_t p = std::uint32_t(j) * kSplitThreads + threadIdx.x;
                const unsigned char* pixel = row + (p < tilePixels ? p : 0u) * std::uint32_t(C * sizeof(T));
#pragma unroll
                for (int c = 0; c < C; ++c)
                    v[j * C + c] = loadSample<T, Load::Streaming>(pixel + c * sizeof(T));
            }
        }
        // (bucket << 16) | place, or kNoBucket << 16 for no sample, an inactive channel or a
        // slot outside this pass's buckets.
        std::uint32_t packed[kSamples];
#pragma unroll
        for (int j = 0; j < kPixels; ++j) {
            const bool present = vectorTile || std::uint32_t(j) * kSplitThreads + threadIdx.x < tilePixels;
            staticFor<C>([&](auto channel) {
                constexpr int c = decltype(channel)::value;
                packed[j * C + c] = kNoBucket << 16;
                if (a.map.ch[c].active) {
                    // A pixel past the tile's end holds the tile's first pixel again: the extremes
                    // may see it twice, and the count must not see it.
                    tracker.template see<c>(v[j * C + c]);
                    const std::uint32_t slot = M::slot(a.map.ch[c], v[j * C + c]) - firstSlot;
                    const std::uint32_t b = slot >> kPartitionBucketShift;
                    packed[j * C + c] = present && b < s.numBuckets ? (b << 16) | (slot & (kBucketSlots - 1))
                                                                    : kNoBucket << 16;
                }
            });
        }
        // Ranks are below kTileSamples (13 bits): two to a register, so that the tile's samples,
        // places and ranks fit 64 registers without spilling.
        // With warp runs, a warp whose samples share a bucket is ranked by one atomic: a vote and
        // two shuffles a sample, which independent samples never use (KernelArgs::split_warp_runs
        // says where they may). Without branches: one predicated atomic a sample, and both
        // shuffles on every warp, since the split is bound by issue and nested branches cost each
        // sample a convergence barrier.
        std::uint32_t rank2[kSamples / 2 + 1] = {};
#pragma unroll
        for (int k = 0; k < kSamples; ++k) {
            const std::uint32_t b = packed[k] >> 16;
            std::uint32_t r = 0;
            if constexpr (kWarpRuns) {
                const bool run = __all_sync(0xffffffffu, b == __shfl_sync(0xffffffffu, b, 0));
                if (b != kNoBucket && (!run || lane == 0))
                    r = atomicAdd(s_count + b, run ? 32u : 1u);
                const std::uint32_t base = __shfl_sync(0xffffffffu, r, 0);
                r = run ? base + lane : r;
            } else {
                if (b != kNoBucket)
                    r = atomicAdd(s_count + b, 1u);
            }
            rank2[k / 2] |= r << (16 * (k & 1));
        }
        __syncthreads();

        std::uint32_t counts[2] = {0, 0};
        const std::uint32_t b0 = 2 * threadIdx.x;
        if (b0 < s.numBuckets)
            counts[0] = s_count[b0];
        if (b0 + 1 < s.numBuckets)
            counts[1] = s_count[b0 + 1];
        std::uint32_t starts[2];
        std::uint32_t staged = 0;
        Scan(scanStorage).ExclusiveSum(counts, starts, staged);
        __syncthreads();
        std::uint32_t* startRow = d_starts + std::size_t(t) * (s.numBuckets + 1);
        if (b0 < s.numBuckets) {
            s_count[b0] = starts[0];
            startRow[b0] = starts[0];
        }
        if (b0 + 1 < s.numBuckets) {
            s_count[b0 + 1] = starts[1];
            startRow[b0 + 1] = starts[1];
        }
        if (threadIdx.x == 0)
            startRow[s.numBuckets] = staged;
        __syncthreads();

#pragma unroll
        for (int k = 0; k < kSamples; ++k) {
            const std::uint32_t b = packed[k] >> 16;
            if (b != kNoBucket)
                s_stage[s_count[b] + ((rank2[k / 2] >> (16 * (k & 1))) & 0xffffu)] = std::uint16_t(packed[k] & 0xffffu);
        }
        __syncthreads();
        uint4* out = reinterpret_cast<uint4*>(d_places + std::size_t(t) * kTileSamples);
        const uint4* stage = reinterpret_cast<const uint4*>(s_stage);
        for (std::uint32_t i = threadIdx.x; i * 8 < staged; i += kSplitThreads)
            out[i] = stage[i];
        // The next tile clears s_count, which the staging above read: the barrier before the
        // copy-out orders them, and the copy-out reads only s_stage.
    }

    if constexpr (Tracker::kTracks) {
        tracker.foldIntoBlock(blockExtrema);
        __syncthreads();
        // Every pass sees every sample; the first alone publishes.
        if (s.firstBucket == 0)
            publishBlockExtrema<C>(a.map, blockExtrema, a.d_extrema);
    }
}

struct CountShape {
    std::uint32_t numTiles = 0;
    std::uint32_t numBuckets = 0;
    std::uint32_t firstSlot = 0;
    std::uint32_t numSlots = 0;
};

// Groups of G lanes read one tile's segment of bucket blockIdx.y with 16-byte loads, U in flight.
template <int G, int U>
__global__ void __launch_bounds__(kCountThreads) bucketCountKernel(const std::uint16_t* __restrict__ d_places,
                                                                  const std::uint32_t* __restrict__ d_starts, CountShape s,
                                                                  unsigned long long* d_slots)
{
    __shared__ std::uint32_t s_counters[kBucketSlots];
    for (std::uint32_t i = threadIdx.x; i < kBucketSlots; i += kCountThreads)
        s_counters[i] = 0;
    __syncthreads();
    const std::uint32_t b = blockIdx.y;
    const std::uint32_t parts = gridDim.x;
    constexpr std::uint32_t kGroups = kCountThreads / G;
    const std::uint32_t group = threadIdx.x / G, lane = threadIdx.x % G;
    const std::size_t rowWords = std::size_t(s.numBuckets) + 1;
    std::uint32_t t = blockIdx.x + parts * group;
    std::uint32_t begin = 0, end = 0;
    if (t < s.numTiles) {
        begin = __ldg(d_starts + t * rowWords + b);
        end = __ldg(d_starts + t * rowWords + b + 1);
    }
    while (t < s.numTiles) {
        // The next tile's bounds load while this tile's places are counted.
        const std::uint32_t next = t + parts * kGroups;
        std::uint32_t nextBegin = 0, nextEnd = 0;
        if (next < s.numTiles) {
            nextBegin = __ldg(d_starts + next * rowWords + b);
            nextEnd = __ldg(d_starts + next * rowWords + b + 1);
        }
        const uint4* segment = reinterpret_cast<const uint4*>(d_places + std::size_t(t) * kTileSamples);
        const std::uint32_t vecEnd = (end + 7) / 8;
        for (std::uint32_t v = begin / 8 + lane; v < vecEnd; v += U * G) {
            uint4 w[U];
#pragma unroll
            for (int k = 0; k < U; ++k)
                w[k] = v + k * G < vecEnd ? __ldcs(segment + v + k * G) : make_uint4(0, 0, 0, 0);
#pragma unroll
            for (int k = 0; k < U; ++k) {
                const std::uint32_t first = (v + k * G) * 8;
                const std::uint32_t words[4] = {w[k].x, w[k].y, w[k].z, w[k].w};
#pragma unroll
                for (int h = 0; h < 8; ++h)
                    if (first + h >= begin && first + h < end)
                        atomicAdd(s_counters + ((words[h / 2] >> (16 * (h & 1))) & 0xffffu), 1u);
            }
        }
        t = next;
        begin = nextBegin;
        end = nextEnd;
    }
    __syncthreads();
    const std::uint32_t firstSlot = s.firstSlot + (b << kPartitionBucketShift);
    for (std::uint32_t i = threadIdx.x; i < kBucketSlots; i += kCountThreads) {
        const std::uint32_t c = s_counters[i];
        if (c && firstSlot + i < s.numSlots)
            atomicAdd(d_slots + firstSlot + i, static_cast<unsigned long long>(c));
    }
}

template <int G, int U>
Status launchBucketCount(std::uint32_t parts, const std::uint16_t* d_places, const std::uint32_t* d_starts,
                         const CountShape& shape, unsigned long long* d_slots, cudaStream_t stream)
{
    bucketCountKernel<G, U><<<dim3(parts, shape.numBuckets), kCountThreads, 0, stream>>>(d_places, d_starts, shape, d_slots);
    return lastLaunchStatus("bucketCountKernel");
}

template <int U>
Status launchBucketCountOf(int g, std::uint32_t parts, const std::uint16_t* d_places, const std::uint32_t* d_starts,
                           const CountShape& shape, unsigned long long* d_slots, cudaStream_t stream)
{
    switch (g) {
    case 1: return launchBucketCount<1, U>(parts, d_places, d_starts, shape, d_slots, stream);
    case 2: return launchBucketCount<2, U>(parts, d_places, d_starts, shape, d_slots, stream);
    case 4: return launchBucketCount<4, U>(parts, d_places, d_starts, shape, d_slots, stream);
    case 8: return launchBucketCount<8, U>(parts, d_places, d_starts, shape, d_slots, stream);
    case 16: return launchBucketCount<16, U>(parts, d_places, d_starts, shape, d_slots, stream);
    default: return launchBucketCount<32, U>(parts, d_places, d_starts, shape, d_slots, stream);
    }
}

// Lanes a segment: about tuning.partitionCountLoadsPerLane 16-byte loads each for a segment of
// the expected size, taken partitionCountWordsInFlight (2 or 4) at a time.
Status launchCount(std::uint32_t samplesPerTile, std::uint32_t parts, const ArchTuning& tuning,
                   const std::uint16_t* d_places, const std::uint32_t* d_starts, const CountShape& shape,
                   unsigned long long* d_slots, cudaStream_t stream)
{
    const double vecsPerSegment = double(samplesPerTile) / shape.numBuckets / 8 + 1;
    int g = 1;
    while (g < 32 && 2 * g * tuning.partitionCountLoadsPerLane <= vecsPerSegment)
        g *= 2;
    if (tuning.partitionCountLanes > 0)
        g = tuning.partitionCountLanes;
    const int wordsInFlight = tuning.partitionCountWordsInFlight;
    if (wordsInFlight == 2)
        return launchBucketCountOf<2>(g, parts, d_places, d_starts, shape, d_slots, stream);
    return launchBucketCountOf<4>(g, parts, d_places, d_starts, shape, d_slots, stream);
}

}  // namespace

Status launchPartition(const KernelArgs& args, PartitionScratch& scratch, const LaunchContext& ctx)
{
    if (args.grid.width <= 0 || args.grid.rows <= 0 || args.map.num_slots == 0)
        return Status::success();
    return visitCounting(args, [&](auto tag, auto channels, auto mapper) -> Status {
        using T = decltype(tag);
        constexpr int C = decltype(channels)::value;
        using M = decltype(mapper);
        constexpr std::int64_t tilePixels = splitTilePixels<C>();
        const std::uint32_t chunkTiles = std::max<std::uint32_t>(1, ctx.tuning.partitionChunkSamples / kTileSamples);
        const std::int64_t tilesPerRow = (args.grid.width + tilePixels - 1) / tilePixels;
        const std::int64_t totalTiles = tilesPerRow * args.grid.rows;
        const std::uint32_t allBuckets = std::uint32_t((std::uint64_t(args.map.num_slots) + kBucketSlots - 1) >> kPartitionBucketShift);
        const std::uint32_t passBuckets = std::min(allBuckets, kPartitionMaxBuckets);
        const std::uint32_t scratchTiles = std::uint32_t(std::min<std::int64_t>(totalTiles, chunkTiles));
        HS_TRY(scratch.places.reserve(std::size_t(scratchTiles) * kTileSamples * sizeof(std::uint16_t)));
        HS_TRY(scratch.starts.reserve(std::size_t(scratchTiles) * (passBuckets + 1) * sizeof(std::uint32_t)));
        auto* d_places = scratch.places.get<std::uint16_t>();
        auto* d_starts = scratch.starts.get<std::uint32_t>();

        // Ranks without warp runs only for one channel, where the sample can tell (several
        // channels keep one instance).
        const bool warpRuns = C > 1 || args.split_warp_runs;
        const auto split = warpRuns ? splitKernel<T, C, M, true> : splitKernel<T, C, M, C != 1>;
        int perMultiprocessor = 0;
        HS_TRY(ctx.cache.blocksPerMultiprocessor(reinterpret_cast<const void*>(split), kSplitThreads, 0, perMultiprocessor));
        if (perMultiprocessor < 1)
            return Status::error(ErrorCode::CudaError, "splitKernel does not fit on a multiprocessor");
        const std::int64_t resident = std::int64_t(perMultiprocessor) * ctx.props.multiprocessors;
        KernelArgs splitArgs = args;

        for (std::uint32_t firstBucket = 0; firstBucket < allBuckets; firstBucket += kPartitionMaxBuckets) {
            SplitShape shape;
            shape.tilesPerRow = tilesPerRow;
            shape.firstBucket = firstBucket;
            shape.numBuckets = std::min(kPartitionMaxBuckets, allBuckets - firstBucket);
            shape.vectorLoads = ctx.tuning.partitionSplitVectorLoads;
            CountShape count;
            count.numBuckets = shape.numBuckets;
            count.firstSlot = firstBucket << kPartitionBucketShift;
            count.numSlots = args.map.num_slots;
            // Enough counting blocks for tuning.partitionCountBlocksPerSm an SM; each merges 4,096 counters.
            const std::uint32_t parts = std::uint32_t(std::max<long>(
                1, std::lround(double(ctx.tuning.partitionCountBlocksPerSm) * ctx.props.multiprocessors / shape.numBuckets)));
            for (std::int64_t firstTile = 0; firstTile < totalTiles; firstTile += chunkTiles) {
                shape.firstTile = firstTile;
                shape.numTiles = std::uint32_t(std::min<std::int64_t>(chunkTiles, totalTiles - firstTile));
                const unsigned blocks = unsigned(std::min<std::int64_t>(resident, shape.numTiles));
                split<<<blocks, kSplitThreads, 0, ctx.stream>>>(splitArgs, shape, d_places, d_starts);
                HS_TRY(lastLaunchStatus("splitKernel"));
                splitArgs.d_zero = nullptr;  // the first launch cleared the next call's totals
                splitArgs.zero_words = 0;
                count.numTiles = shape.numTiles;
                HS_TRY(launchCount(std::uint32_t(tilePixels * C), std::min(parts, shape.numTiles), ctx.tuning,
                                   d_places, d_starts, count, args.d_slots, ctx.stream));
            }
        }
        return Status::success();
    });
}

}  // namespace hs::detail
