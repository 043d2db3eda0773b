// Launch tuning as plain data per architecture: every launch constant of the CUDA backend lives
// here, beside the benchmark figure that chose it. Figures are H200 (sm_90) medians from
// bench/results/2026-11-30_NVIDIA-H200_*; older architectures keep the round-1 defaults, which
// nothing has measured against, and newer ones inherit the nearest older row.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "histoscope/HistogramTypes.h"

namespace hs::detail {

// Each field named, with the round-1 default; an architecture's row names only what it changes
// (CUB's policy structs are the model).
struct ArchTuning {
    int computeMajor = 7;
    // Block-private families (shared, warp-aggregated, replicated, run-length, large-bins).
    // sm_90: 1,024 halves the blocks, and so the merges, against 512: 32,768 bins 0.066 -> 0.049 ms,
    // 4,096 bins 0.039 -> 0.034 ms, 256 bins unchanged (full-v3, TUNE_THREADS sweep).
    int privatizedThreads = 256;
    // `global-atomic` and the one-thread-per-pixel helpers (CUB's slot conversion and merge, the
    // out-of-range pass, the LUT apply): no shared memory, so block size only sets the grid's
    // granularity. 256 is the round-1 default, not swept; the grid is persistent either way.
    int simpleThreads = 256;
    // The read probe: 512 threads, four 16-byte loads in flight each, a persistent grid: about
    // 3.1 TB/s on 64 MiB including the launch (final run). Not swept; a weaker probe would only
    // flatter every ratio, so any change must raise its bandwidth.
    int probeThreads = 512;
    // `replicated`: sub-histograms per block, at most one per lane (32 puts each lane in its own bank).
    int replicasMax = 32;
    // `large-bins` beyond opt-in shared memory: direct-mapped shared hot-slot cache, a power of two.
    // 8,192 entries take 64 KiB with their keys, leaving room for three blocks per SM on sm_90
    // (65,536 bins 90 % hot: 0.042 ms, single value 0.031 ms, final run); not swept.
    int hotCacheEntries = 4096;
    // `auto`: slot counts up to this stay in the default 48 KiB (`shared`): best or within the
    // spread at 16, 256 and 4,096 bins on every distribution (final run).
    unsigned autoSharedSlotsMax = 12288;
    // `auto` beyond opt-in shared memory: the sampled top-slot share from which the hot cache
    // beats tiles; 65,536-bin Zipf (top share ~9 %) tiles at 0.082 ms against 0.106 for the
    // cache, 90 % hot caches at 0.042 against 0.071 ms (final run).
    double autoHotCacheShare = 0.25;
    // `auto` beyond opt-in shared memory, below that share: up to this many tiles of opt-in memory
    // (one pass over the input each) beat the hot cache: 65,536 bins (2 tiles) 0.086 against
    // 0.210 ms uniform, 100,000 bins (2) 0.107 against 0.201, 131,072-id Zipf tokens (3) 0.454
    // against 0.605; at 1,000,000 bins (18 tiles) the hot cache wins, 0.124 against 0.702 Zipf
    // (issue12-explore run, with the limit at 2). More tiles go to the hot cache when the sampled hot set holds at least
    // autoHotSetShare of the samples, else to plain global atomics.
    int autoTilesMax = 3;
    // `auto` beyond opt-in shared memory, below autoHotCacheShare: `packed` where its 16-bit
    // counters take the slots in at most this many passes (0: never): one pass before the tile
    // and partition rules, more (one channel) in place of `replicated`'s tiles. Off by default:
    // measured on sm_90 only (hopperTuning).
    int autoPackedPassesMax = 0;
    // `auto` inside opt-in shared memory (above autoSharedSlotsMax), one channel: one `packed`
    // pass in place of `large-bins` where the skew sample's top slot holds less than this share
    // (0: never; it then takes no sample there). Same-address updates of `packed`'s 16-bit halves
    // are serialised (a per-lane increment of 1 or 2^16) where `large-bins`' increments of 1 are
    // not, so a hot slot costs it. Off by default: measured on sm_90 only (hopperTuning).
    double autoPackedOptinShareMax = 0.0;
    double autoHotSetShare = 0.5;
    // `auto` beyond autoTilesMax tiles, below autoHotCacheShare: `partition` where the sampled
    // fullest bucket of 4,096 slots holds at most this many times a bucket's mean (or, for
    // buckets too many to sample well, the mean plus four standard deviations). Its counting
    // blocks each take a slice of one bucket, so a full bucket makes a slow block. In the engine
    // on the H200 (session 15, run 5): uniform keys at 1 M bins 0.112 ms against 0.193 for global
    // atomics, at 16 M bins 0.555 against 0.844 for the hot cache; Zipf at 1 M bins 0.177 against
    // the hot cache's 0.132. (Up to three tiles the rule below decides.) The mean is over every
    // bucket, the one that holds only the margins' slots included.
    double autoPartitionImbalanceMax = 2.5;
    // `auto` up to autoTilesMax tiles: `partition` instead of `replicated` where the buckets are
    // balanced (fullest at most autoPartitionFewTilesImbalanceMax times the mean), samples a slot
    // are at most this many (each tile's merge of a private copy of every bin is a fixed cost,
    // which fewer samples a slot amortise worse), and, with any number of tiles, at most this share
    // of sampled neighbour pairs fall in one bucket (by chance 1/16 at 65,536 bins: more means
    // tiles whose samples crowd into few buckets, which the count's lanes take one tile at a time). H200, session 16, run 4, after the split's 32-bit offsets and evict-first loads:
    // a 4K 16-bit noise frame (127 samples a slot) 0.047 ms against 0.054 for `replicated`,
    // 16 M uniform keys into 100,000 bins (168) 0.085 against 0.094; into 65,536 bins (256) 0.088
    // against 0.079; the smooth 16-bit frame (neighbours mostly in one bucket) 0.075 against 0.045.
    double autoPartitionSamplesPerSlotMax = 200;
    double autoPartitionFewTilesImbalanceMax = 1.5;  // the margin over `replicated` is some 10 %
    double autoPartitionNeighbourBucketShareMax = 0.25;
    // `partition`: counting blocks an SM (each merges 4,096 counters): 4 beat 1 and 2 on every
    // input up to 131,072 bins and tied at 1 M bins (same run). Session 21: 2 gained 2 us at 1 M
    // uniform bins and lost 0.174 -> 0.251 ms on 1 M Zipf; 8 lost 0.104 -> 0.108 ms uniform.
    int partitionCountBlocksPerSm = 4;
    // `partition`'s count: 16-byte words of places each lane loads at a time (2 or 4). A segment
    // of 1 M bins' bucket is some 33 places (five or six words), which four at a time take in two
    // rounds of eight word slots, two at a time in three of two. Two were 1-3 % faster on all five
    // cells of the A/B pass (H200, session 16, run 5: 1 M uniform keys 0.100 against 0.103 ms,
    // 100,000 0.084 against 0.085, 65,536 0.086 against 0.089, 16 M 0.531 against 0.535, a 4K
    // 16-bit noise frame 0.047 against 0.048), exact there and in run 6's self-check and sanitizers.
    int partitionCountWordsInFlight = 2;
    // `partition`: samples a chunk (split, then count) at most, a multiple of 8,192. The places
    // take two bytes a sample; 2^25 takes any input up to 32 M samples in one chunk. Smaller
    // chunks, whose places could stay in L2, lost: each relaunches both passes and merges every
    // bucket again (H200, session 21: 16 M keys into 1 M bins 0.104 ms, 2^23 0.115, 2^22 0.132).
    std::uint32_t partitionChunkSamples = 1u << 25;
    // `partition`'s count: lanes a segment (1 ... 32); 0 picks them from the expected segment
    // (about four 16-byte loads a lane). Two at 1 M bins: 0.100-0.102 against 0.104-0.106 ms, but
    // 65,536 keys 90 % hot 0.328 against 0.218 (session 21), so the rule stays.
    int partitionCountLanes = 0;
    // `partition`'s count: 16-byte loads a lane from which a segment takes twice the lanes. 2 was
    // faster than 4 or within 2 us of it on every `partition` cell of an A/B pass (H200, session
    // 21, run 4: a smooth 4K 16-bit frame 0.061 against 0.077 ms, 1 M uniform keys 0.097 against
    // 0.098, 65,536 uniform keys 0.085 against 0.083), but the self-check and sanitizers have not
    // run on it (session 22 was lent no H200): a candidate.
    int partitionCountLoadsPerLane = 4;
    // `partition`'s split: whole tiles of one channel on a 16-byte boundary read in 16-byte words:
    // 16 M keys into 1 M bins, the split 60.7 us against 65.4 (Nsight Compute), `partition` 0.098
    // ms against 0.100 in the same process (session 21, run 4).
    bool partitionSplitVectorLoads = true;
    // `partition`'s split ranks with warp runs (a vote and two shuffles a sample, one atomic for
    // a warp whose 32 samples share a bucket): always (1), never (0), or (-1) unless the skew
    // sample shows fewer than partitionWarpRunsNeighbourShareMin of neighbour pairs in one bucket
    // (by chance 1/256 at 1 M bins, 1/16 at 65,536), where independent samples never form a run
    // and the vote and shuffles cost some 8 of the split's 74 instructions a key. Always, as
    // every H200 run so far measured it; -1 is the candidate for the next H200 A/B (session 22
    // was lent no device): one-channel inputs only.
    double partitionWarpRunsNeighbourShareMin = 0.1;
    int partitionSplitWarpRuns = 1;
    // `packed`'s count: before each segment (and before the clear), one warp of the block asks L2
    // for this many of the walker's rounds of the segment's first loads (a bulk prefetch, sm_90),
    // so that DRAM keeps streaming while the block settles its counters behind its barriers
    // instead of waiting for the first loads after them. 0: no prefetch.
    int packedPrefetchRounds = 0;
    // `packed`'s count: the most pixels a block walks between two settles of its 16-bit counters
    // (16,400 ... 65,535); every settle stops the block's loads. 61,460 is fifteen 16-byte groups
    // of 32-bit keys a thread, the most a 16-bit counter allows: 131,072 Zipf tokens 0.276 ms
    // against 0.292 at twelve (49,172), and 23 settles a block and pass at eight (H200, session
    // 20, run 1, each A/B pass in one process).
    std::uint32_t packedSegmentBound = 61460;
    // `packed`'s rows' sum: blocks an SM its launch bound asks registers for (1 or 2).
    int packedReduceBlocksPerSm = 1;
    // Pixels of the skew sample behind `auto` and the hot-slot tables: 4,096 pixels estimate a
    // 25 % share to within about 1.4 % (binomial standard error) for one small gather. They are
    // 2,048 pairs of neighbours (samplePixel); where neighbours are near copies (smooth frames)
    // they count as about 2,048 samples, within 2 %.
    std::uint32_t skewSamplePixels = 4096;
    // `per-lane`: warps per block (its lane columns take 32 KiB of shared memory per channel
    // whatever the block size; 1,024 threads beat 512 on every 8-bit input on the H200,
    // scripts/u8_variants.cu, 2026-12-03).
    int perLaneMaxWarps = 32;
    // `auto` counts every 8-bit request with `per-lane` (any binning: it counts values), where
    // its counters fit. Off by default: measured on sm_90 only (hopperTuning, which later
    // architectures inherit until they have a row of their own).
    bool autoPerLane = false;
    // `auto` takes `per-lane` for 8-bit samples into fewer than 256 bins: one interleaved channel
    // always, three from this many bins each (Dispatch.cpp, measured on the H200 only).
    std::uint32_t perLaneWideBinsMin = 16;
    // Host frames go up through two pinned staging buffers of this size, so the copy of piece n+1
    // overlaps the count of piece n; 64 MiB holds a 4K RGBA f32 frame in two pieces.
    std::size_t stageBytes = std::size_t(64) << 20;
};

constexpr ArchTuning defaultTuning(int computeMajor)
{
    ArchTuning t;
    t.computeMajor = computeMajor;
    return t;
}

// sm_90 (H100, H200): the only architecture measured so far.
constexpr ArchTuning hopperTuning()
{
    ArchTuning t = defaultTuning(9);
    t.privatizedThreads = 1024;
    t.hotCacheEntries = 8192;
    // The lane-column per-lane kernel is the best strategy or within 6 % of it on every 8-bit
    // cell of the H200's benchmark (2026-12-03, session9-final): 4K RGB 0.019 ms against 0.025
    // for `shared`, 8K RGB 0.038 against 0.065, 64 MiB of bytes 0.031 against 0.045, into 2 to
    // 64 bins 0.031-0.033 against 0.138.
    t.autoPerLane = true;
    // One pass: in the engine on the H200 (session 18, run 6), 16 M keys into 65,536 bins 0.050
    // ms uniform and 0.051 Zipf against `replicated`'s 0.080 and 0.077; into 100,000 bins 0.059
    // against `partition`'s 0.087-0.090; 4K 16-bit frames 0.031 noise and smooth against 0.049
    // and 0.046. Two passes: 131,072-id Zipf tokens 0.290 ms against `replicated`'s 0.360
    // (session 19, run 4: the count without a branch an update, narrow rows, fewer settles;
    // 0.389 against 0.384 before).
    t.autoPackedPassesMax = 2;
    // H200, session 20, run 1 (A/B passes of `packed` alone, one process): one prefetch round
    // 0.285 ms on tokens against 0.292 without (two rounds 0.288, three 0.288), 16 M keys into
    // 65,536 bins 0.039 against 0.042, into 100,000 0.046 against 0.048; the sum in two blocks an
    // SM (56 registers, a 16-byte spill, one wave instead of two) 0.287 on tokens, 0.040 and 0.046.
    t.packedPrefetchRounds = 1;
    t.packedReduceBlocksPerSm = 2;
    // Same run (its matrix, before the two settings above), 16 M keys into 32,768 bins, `packed`
    // against `large-bins`: no hot key 0.035 against 0.038, Zipf (top slot 9 %) 0.038 against
    // 0.040, 10 % on one key 0.037 against 0.039, 25 % 0.044 against 0.040, 90 % 0.084 against 0.038.
    t.autoPackedOptinShareMax = 0.15;
    return t;
}

inline constexpr ArchTuning kArchTunings[] = {defaultTuning(7), defaultTuning(8), hopperTuning()};

// The equalization LUT kernel's block: a compile-time size because CUB's BlockScan takes it as a
// template argument. 512 threads scan 65,536 bins in 128-bin runs; 1,024 exceeded the register
// budget of a block on sm_90 (commit 88fef66).
inline constexpr int kEqualizeLutThreads = 512;
// The largest block a block-private family may launch with (privatizedThreads, tuned or swept):
// its kernel is compiled to fit that many threads, so a register-hungry instance (run-length on
// four f32 channels) spills a little instead of failing to launch.
inline constexpr int kPrivatizedThreadsMax = 1024;
// The skew-sample gather is one block: it reads 4,096 scattered pixels, far too few for more.
inline constexpr int kSampleGatherThreads = 256;

// The block-private families, one row each, read by launchPrivatized (LaunchSupport.cuh).
enum class SharedBudget { Default, Optin };
struct PrivatizedFamily {
    Strategy strategy;
    SharedBudget budget;  // shared memory per block the slot tiles are cut to
    bool replicate;       // one copy of the counters per lane (up to replicasMax) while they fit
};

inline constexpr PrivatizedFamily kPrivatizedFamilies[] = {
    // The brief's 48 KiB tile, kept as the textbook reference: 32,768 bins take three passes,
    // 0.095 ms against 0.047 for one opt-in pass (final run), which `auto` uses instead.
    {Strategy::Shared, SharedBudget::Default, false},
    {Strategy::WarpAggregated, SharedBudget::Optin, false},
    // Replicas while they fit, then one copy in opt-in tiles: the 65,536-bin uniform cell's best
    // (two passes, 0.086 ms against 0.195 for the hot cache, final run).
    {Strategy::Replicated, SharedBudget::Optin, true},
    {Strategy::RunLength, SharedBudget::Optin, false},
    {Strategy::LargeBins, SharedBudget::Optin, false},
};

inline const PrivatizedFamily& privatizedFamily(Strategy strategy)
{
    for (const PrivatizedFamily& f : kPrivatizedFamilies)
        if (f.strategy == strategy)
            return f;
    return kPrivatizedFamilies[0];
}

// An override for tuning runs of the benchmark: the integer in the environment variable `name`,
// where it is set and inside [lo, hi]. Anything else is ignored, so that a mistyped A/B pass runs
// the shipped value under its own name rather than some other setting.
inline bool tuningOverride(const char* name, long lo, long hi, long& value)
{
    const char* text = std::getenv(name);
    if (!text || !*text)
        return false;
    char* end = nullptr;
    const long parsed = std::strtol(text, &end, 10);
    if (*end != '\0' || parsed < lo || parsed > hi)
        return false;
    value = parsed;
    return true;
}

inline bool isPowerOfTwo(long v) { return v > 0 && (v & (v - 1)) == 0; }

// For tuning runs of the benchmark only (scripts/h200_verify.sh, TUNE_THREADS and TUNE_ENV):
// HISTOSCOPE_TUNE_THREADS (64 ... 1024) overrides the block-private block size, and
// HISTOSCOPE_TUNE_PARTITION_WORDS (2 or 4) `partition`'s words in flight,
// HISTOSCOPE_TUNE_PARTITION_CHUNK (log2 of its chunk's samples, 16 ... 25),
// HISTOSCOPE_TUNE_PARTITION_COUNT_BLOCKS (1 ... 16), HISTOSCOPE_TUNE_PARTITION_LANES (1, 2, 4 ... 32),
// HISTOSCOPE_TUNE_PARTITION_LOADS (1 ... 8), HISTOSCOPE_TUNE_PARTITION_VECTOR (0 or 1) and
// HISTOSCOPE_TUNE_PARTITION_RUNS (-1: from the sample, 0: never, 1: always),
// HISTOSCOPE_TUNE_PACKED_PREFETCH (0 ... 8), HISTOSCOPE_TUNE_PACKED_SEGMENT (16,400 ... 65,535)
// and HISTOSCOPE_TUNE_PACKED_REDUCE_BLOCKS (1 or 2) `packed`'s prefetch rounds, segment and its
// sum's blocks an SM; the shipped values are above.
inline ArchTuning tuningFor(int computeMajor)
{
    ArchTuning best = kArchTunings[0];
    for (const ArchTuning& t : kArchTunings)
        if (t.computeMajor <= computeMajor)
            best = t;
    long v = 0;
    if (tuningOverride("HISTOSCOPE_TUNE_THREADS", 64, kPrivatizedThreadsMax, v))
        best.privatizedThreads = int(v);
    if (tuningOverride("HISTOSCOPE_TUNE_PARTITION_WORDS", 2, 4, v) && v != 3)
        best.partitionCountWordsInFlight = int(v);
    if (tuningOverride("HISTOSCOPE_TUNE_PARTITION_CHUNK", 16, 25, v))  // log2 of the samples
        best.partitionChunkSamples = 1u << v;
    if (tuningOverride("HISTOSCOPE_TUNE_PARTITION_COUNT_BLOCKS", 1, 16, v))
        best.partitionCountBlocksPerSm = int(v);
    if (tuningOverride("HISTOSCOPE_TUNE_PARTITION_LANES", 1, 32, v) && isPowerOfTwo(v))
        best.partitionCountLanes = int(v);
    if (tuningOverride("HISTOSCOPE_TUNE_PARTITION_LOADS", 1, 8, v))
        best.partitionCountLoadsPerLane = int(v);
    if (tuningOverride("HISTOSCOPE_TUNE_PARTITION_VECTOR", 0, 1, v))
        best.partitionSplitVectorLoads = v == 1;
    if (tuningOverride("HISTOSCOPE_TUNE_PARTITION_RUNS", -1, 1, v))
        best.partitionSplitWarpRuns = int(v);
    if (tuningOverride("HISTOSCOPE_TUNE_PACKED_PREFETCH", 0, 8, v))
        best.packedPrefetchRounds = int(v);
    if (tuningOverride("HISTOSCOPE_TUNE_PACKED_SEGMENT", 16400, 65535, v))
        best.packedSegmentBound = std::uint32_t(v);
    if (tuningOverride("HISTOSCOPE_TUNE_PACKED_REDUCE_BLOCKS", 1, 2, v))
        best.packedReduceBlocksPerSm = int(v);
    return best;
}

}  // namespace hs::detail
