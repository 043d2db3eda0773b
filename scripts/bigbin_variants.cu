// Issue 21's big-bin question, asked before any kernel joins the engine: from 65,536 bins up,
// every block-private kernel merges one full copy of the bins per block (132 blocks x 65,536
// counters = 8.6 M global atomics for a 16 M-key input), or reads its input once per tile. Which
// counting layout brings 16- and 32-bit keys at 65,536-131,072 bins, and 1 M bins, nearest the
// read probe? Each variant is checked exactly against a CPU count (output poisoned first), then
// timed with CUDA events after a warm-up (median), beside a read probe of the same bytes.
//   nvcc -O3 -arch=sm_90 -Xcompiler -fopenmp -o bigbin_variants scripts/bigbin_variants.cu && ./bigbin_variants
// Variants:
//   tiles        today's `replicated` with one copy: 32-bit counters in opt-in shared memory, one
//                launch (one read of the input) per tile of 57,344 slots.
//   packed16     two 16-bit counters per shared word, so 65,536-116,000 bins fit one block in one
//                pass. A counter that wraps is caught from the atomic's old value and spilled
//                into the 64-bit totals (below), so the counts stay exact whatever the skew.
//   clusterN     a Hopper cluster of N blocks holds one copy of the bins in their joint shared
//                memory (distributed shared memory): block r owns bins [r * per, (r + 1) * per),
//                every update goes to its owner's memory, and only one copy per cluster is
//                merged: N times fewer merge atomics, at the price of remote updates.
//   clusterN-p16 the same with packed 16-bit counters (1 M bins in 16 blocks of 128 KiB).
//   global64/32  one global atomic per key (the 1 M-bin reference), 64- or 32-bit counters.
//   partitionN   split the keys by bucket of 4,096 bins in one pass, then count each bucket in
//                shared memory (N counting blocks an SM); see partitionKernel below.
#include "ProbeCommon.cuh"

#include <cooperative_groups.h>
#include <cub/block/block_scan.cuh>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace cg = cooperative_groups;

extern __shared__ std::uint32_t smem[];

// Keys of type K, kPerVec to a 16-byte vector.
template <typename K>
struct KeyBits;
template <> struct KeyBits<std::uint32_t> {
    static constexpr int kPerVec = 4;
    __device__ static std::uint32_t key(const uint4& v, int e)
    {
        return e == 0 ? v.x : e == 1 ? v.y : e == 2 ? v.z : v.w;
    }
};
template <> struct KeyBits<std::uint16_t> {
    static constexpr int kPerVec = 8;
    __device__ static std::uint32_t key(const uint4& v, int e)
    {
        const std::uint32_t w = (e >> 1) == 0 ? v.x : (e >> 1) == 1 ? v.y : (e >> 1) == 2 ? v.z : v.w;
        return (e & 1) ? (w >> 16) : (w & 0xffffu);
    }
};

// Grid-stride over 16-byte vectors, four in flight per thread before any is counted.
template <typename K, typename F>
__device__ __forceinline__ void walk(const uint4* __restrict__ in, std::size_t n, std::size_t first, std::size_t stride, F&& count)
{
    std::size_t i = first;
    for (; i + 3 * stride < n; i += 4 * stride) {
        uint4 v[4];
#pragma unroll
        for (int k = 0; k < 4; ++k)
            v[k] = __ldg(in + i + k * stride);
#pragma unroll
        for (int k = 0; k < 4; ++k)
#pragma unroll
            for (int e = 0; e < KeyBits<K>::kPerVec; ++e)
                count(KeyBits<K>::key(v[k], e));
    }
    for (; i < n; i += stride) {
        const uint4 v = __ldg(in + i);
#pragma unroll
        for (int e = 0; e < KeyBits<K>::kPerVec; ++e)
            count(KeyBits<K>::key(v, e));
    }
}

// One update of a packed pair of 16-bit counters (bin b, its word w), exact under any count: the
// low half's wrap shows in the old value (its low 16 bits were 0xffff) and is undone; the 32-bit
// word's own wraps are counted into the high bin. Totals are two's-complement 64-bit sums.
__device__ __forceinline__ void packedAdd(std::uint32_t* w, std::uint32_t b, unsigned long long* d_out)
{
    const bool high = b & 1u;
    const std::uint32_t inc = high ? 0x10000u : 1u;
    const std::uint32_t old = atomicAdd(w, inc);
    if (old > 0xffffffffu - inc)  // the word wrapped: 2^32 = 65,536 high counts
        atomicAdd(d_out + (b | 1u), 65536ull);
    if (!high && (old & 0xffffu) == 0xffffu) {
        atomicAdd(d_out + b, 65536ull);
        const std::uint32_t before = atomicAdd(w, 0xffff0000u);  // take back the carry
        if (before < 0x10000u)  // it borrowed: the word was 2^32 below its true value
            atomicAdd(d_out + (b | 1u), static_cast<unsigned long long>(-65536ll));
    }
}

// The same rules applied after the fact, from the old value an earlier atomicAdd returned: lets a
// thread issue all its updates back to back and check them afterwards, so that several are in
// flight at once (each rule uses only its own atomic's old value).
__device__ __forceinline__ void packedCheck(std::uint32_t* w, std::uint32_t b, std::uint32_t old, unsigned long long* d_out)
{
    const bool high = b & 1u;
    const std::uint32_t inc = high ? 0x10000u : 1u;
    if (old > 0xffffffffu - inc)
        atomicAdd(d_out + (b | 1u), 65536ull);
    if (!high && (old & 0xffffu) == 0xffffu) {
        atomicAdd(d_out + b, 65536ull);
        const std::uint32_t before = atomicAdd(w, 0xffff0000u);
        if (before < 0x10000u)
            atomicAdd(d_out + (b | 1u), static_cast<unsigned long long>(-65536ll));
    }
}

__device__ __forceinline__ void mergePacked(const std::uint32_t* words, std::uint32_t numWords, std::uint32_t firstBin,
                                            std::uint32_t bins, unsigned long long* d_out)
{
    for (std::uint32_t i = threadIdx.x; i < numWords; i += blockDim.x) {
        const std::uint32_t w = words[i];
        const std::uint32_t b = firstBin + 2 * i;
        if ((w & 0xffffu) && b < bins)
            atomicAdd(d_out + b, static_cast<unsigned long long>(w & 0xffffu));
        if ((w >> 16) && b + 1 < bins)
            atomicAdd(d_out + b + 1, static_cast<unsigned long long>(w >> 16));
    }
}

template <typename K>
__global__ void __launch_bounds__(1024) tileKernel(const uint4* __restrict__ in, std::size_t n, std::uint32_t begin,
                                                  std::uint32_t slots, unsigned long long* d_out)
{
    for (std::uint32_t i = threadIdx.x; i < slots; i += blockDim.x)
        smem[i] = 0;
    __syncthreads();
    walk<K>(in, n, std::size_t(blockIdx.x) * blockDim.x + threadIdx.x, std::size_t(gridDim.x) * blockDim.x,
            [&](std::uint32_t k) {
                const std::uint32_t s = k - begin;
                if (s < slots)
                    atomicAdd(smem + s, 1u);
            });
    __syncthreads();
    for (std::uint32_t i = threadIdx.x; i < slots; i += blockDim.x)
        if (smem[i])
            atomicAdd(d_out + begin + i, static_cast<unsigned long long>(smem[i]));
}

template <typename K>
__global__ void __launch_bounds__(1024) packedKernel(const uint4* __restrict__ in, std::size_t n, std::uint32_t bins,
                                                    unsigned long long* d_out)
{
    const std::uint32_t words = (bins + 1) / 2;
    for (std::uint32_t i = threadIdx.x; i < words; i += blockDim.x)
        smem[i] = 0;
    __syncthreads();
    walk<K>(in, n, std::size_t(blockIdx.x) * blockDim.x + threadIdx.x, std::size_t(gridDim.x) * blockDim.x,
            [&](std::uint32_t k) { packedAdd(smem + (k >> 1), k, d_out); });
    __syncthreads();
    mergePacked(smem, words, 0, bins, d_out);
}

// Packed counters for bins [begin, begin + slots) (even begin), every update of a step's keys
// issued before any is checked.
template <typename K>
__global__ void __launch_bounds__(1024) packedBatchKernel(const uint4* __restrict__ in, std::size_t n, std::uint32_t begin,
                                                         std::uint32_t slots, std::uint32_t bins, unsigned long long* d_out)
{
    constexpr int P = KeyBits<K>::kPerVec;
    constexpr int V = 16 / P;  // vectors a step: 16 keys in flight
    const std::uint32_t words = (slots + 1) / 2;
    for (std::uint32_t i = threadIdx.x; i < words; i += blockDim.x)
        smem[i] = 0;
    __syncthreads();
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    auto step = [&](const uint4 (&v)[V], int vecs) {
        std::uint32_t old[V * P];
#pragma unroll
        for (int j = 0; j < V * P; ++j) {
            const std::uint32_t s = KeyBits<K>::key(v[j / P], j % P) - begin;
            old[j] = 0;
            if (j / P < vecs && s < slots)
                old[j] = atomicAdd(smem + (s >> 1), (s & 1u) ? 0x10000u : 1u);
        }
#pragma unroll
        for (int j = 0; j < V * P; ++j) {
            const std::uint32_t s = KeyBits<K>::key(v[j / P], j % P) - begin;
            if (j / P < vecs && s < slots && (old[j] >= 0xffff0000u || (old[j] & 0xffffu) == 0xffffu))
                packedCheck(smem + (s >> 1), begin + s, old[j], d_out);
        }
    };
    for (; i + (V - 1) * stride < n; i += V * stride) {
        uint4 v[V];
#pragma unroll
        for (int k = 0; k < V; ++k)
            v[k] = __ldg(in + i + k * stride);
        step(v, V);
    }
    for (; i < n; i += stride) {
        uint4 v[V];
        v[0] = __ldg(in + i);
#pragma unroll
        for (int k = 1; k < V; ++k)
            v[k] = v[0];
        step(v, 1);
    }
    __syncthreads();
    mergePacked(smem, words, begin, begin + slots, d_out);
}

// The merge alone (every counter of a block nonzero, none counted): what a full copy of the bins
// per block costs to add into the 64-bit totals. Not a count: timed only.
__global__ void __launch_bounds__(1024) mergeOnlyKernel(std::uint32_t slots, unsigned long long* d_out)
{
    for (std::uint32_t i = threadIdx.x; i < slots; i += blockDim.x)
        smem[i] = 1 + (i & 1);
    __syncthreads();
    for (std::uint32_t i = threadIdx.x; i < slots; i += blockDim.x)
        if (smem[i])
            atomicAdd(d_out + i, static_cast<unsigned long long>(smem[i]));
}

// Block r of a cluster owns bins [r << shift, (r + 1) << shift).
template <typename K, bool Packed>
__global__ void __launch_bounds__(1024) clusterKernel(const uint4* __restrict__ in, std::size_t n, std::uint32_t bins,
                                                     std::uint32_t shift, unsigned long long* d_out)
{
    cg::cluster_group cluster = cg::this_cluster();
    const std::uint32_t per = 1u << shift;
    const std::uint32_t words = Packed ? per / 2 : per;
    for (std::uint32_t i = threadIdx.x; i < words; i += blockDim.x)
        smem[i] = 0;
    cluster.sync();
    const std::uint32_t mask = per - 1;
    walk<K>(in, n, std::size_t(blockIdx.x) * blockDim.x + threadIdx.x, std::size_t(gridDim.x) * blockDim.x,
            [&](std::uint32_t k) {
                std::uint32_t* owner = cluster.map_shared_rank(smem, k >> shift);
                if constexpr (Packed)
                    packedAdd(owner + ((k & mask) >> 1), k, d_out);
                else
                    atomicAdd(owner + (k & mask), 1u);
            });
    cluster.sync();  // every remote update has landed, and no block reads another's memory after this
    const std::uint32_t firstBin = cluster.block_rank() << shift;
    if constexpr (Packed) {
        mergePacked(smem, words, firstBin, bins, d_out);
    } else {
        for (std::uint32_t i = threadIdx.x; i < words; i += blockDim.x)
            if (smem[i] && firstBin + i < bins)
                atomicAdd(d_out + firstBin + i, static_cast<unsigned long long>(smem[i]));
    }
}

template <typename K>
__global__ void global64Kernel(const uint4* __restrict__ in, std::size_t n, unsigned long long* d_out)
{
    walk<K>(in, n, std::size_t(blockIdx.x) * blockDim.x + threadIdx.x, std::size_t(gridDim.x) * blockDim.x,
            [&](std::uint32_t k) { atomicAdd(d_out + k, 1ull); });
}

template <typename K>
__global__ void global32Kernel(const uint4* __restrict__ in, std::size_t n, std::uint32_t* d_c)
{
    walk<K>(in, n, std::size_t(blockIdx.x) * blockDim.x + threadIdx.x, std::size_t(gridDim.x) * blockDim.x,
            [&](std::uint32_t k) { atomicAdd(d_c + k, 1u); });
}

__global__ void widenKernel(const std::uint32_t* d_c, std::uint32_t bins, unsigned long long* d_out)
{
    for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < bins; i += gridDim.x * blockDim.x)
        d_out[i] = d_c[i];
}

// rows16: packed 16-bit counters that cannot wrap, and a merge by plain stores. packed16 above
// needed the atomic's return to catch a wrapping counter, which made every update cost about two,
// and merged by 64-bit global atomics (132 copies of 65,536 counters: about 21 us). Here a block
// keeps an upper bound of its counters (the keys it has counted since it last looked): before a
// step could take one past 65,535, it stops, moves every counter at or above kRowsFlush into the
// totals (skewed keys only), and takes the largest left as the new bound. So updates are plain
// shared reductions, exact under any skew. At the end each block stores its packed counters as a
// row, and one reduction pass adds the rows into the totals: the merge reads rows x bins x 2 bytes
// once, with no atomics.
constexpr int kRowsThreads = 1024;
constexpr int kRowsKeys = 8;  // keys a thread counts a step
constexpr std::uint32_t kRowsFlush = 32768;

template <typename K>
__global__ void __launch_bounds__(kRowsThreads, 1) rowsKernel(const uint4* __restrict__ in, std::size_t nVecs,
                                                            std::uint32_t begin, std::uint32_t slots,
                                                            std::uint32_t* __restrict__ d_rows,
                                                            unsigned long long* __restrict__ d_out)
{
    constexpr int P = KeyBits<K>::kPerVec;
    constexpr int V = kRowsKeys / P;
    constexpr std::uint32_t kStepKeys = std::uint32_t(kRowsThreads) * kRowsKeys;
    __shared__ std::uint32_t s_max;
    const std::uint32_t words = (slots + 1) / 2;
    const unsigned lane = threadIdx.x & 31u;
    const std::size_t per = (nVecs + gridDim.x - 1) / gridDim.x;
    const std::size_t first = min(nVecs, std::size_t(blockIdx.x) * per);
    const std::size_t last = min(nVecs, first + per);
    for (std::uint32_t i = threadIdx.x; i < words; i += kRowsThreads)
        smem[i] = 0;
    __syncthreads();
    std::uint32_t bound = 0;
    for (std::size_t base = first; base < last; base += std::size_t(kRowsThreads) * V) {
        uint4 v[V];
        bool ok[V];
#pragma unroll
        for (int k = 0; k < V; ++k) {
            const std::size_t idx = base + std::size_t(k) * kRowsThreads + threadIdx.x;
            ok[k] = idx < last;
            v[k] = ok[k] ? __ldg(in + idx) : make_uint4(0, 0, 0, 0);
        }
        if (bound + kStepKeys > 65535u) {
            __syncthreads();
            std::uint32_t m = 0;
            for (std::uint32_t i = threadIdx.x; i < words; i += kRowsThreads) {
                const std::uint32_t w = smem[i];
                std::uint32_t lo = w & 0xffffu, hi = w >> 16;
                if (lo >= kRowsFlush || hi >= kRowsFlush) {
                    if (lo >= kRowsFlush) {
                        atomicAdd(d_out + begin + 2 * i, static_cast<unsigned long long>(lo));
                        lo = 0;
                    }
                    if (hi >= kRowsFlush) {
                        atomicAdd(d_out + begin + 2 * i + 1, static_cast<unsigned long long>(hi));
                        hi = 0;
                    }
                    smem[i] = lo | (hi << 16);
                }
                m = max(m, max(lo, hi));
            }
            m = __reduce_max_sync(0xffffffffu, m);
            if (threadIdx.x == 0)
                s_max = 0;
            __syncthreads();
            if (lane == 0)
                atomicMax(&s_max, m);
            __syncthreads();
            bound = s_max;
        }
#pragma unroll
        for (int k = 0; k < V; ++k)
#pragma unroll
            for (int e = 0; e < P; ++e) {
                const std::uint32_t s = KeyBits<K>::key(v[k], e) - begin;
                if (ok[k] && s < slots)
                    atomicAdd(smem + (s >> 1), (s & 1u) ? 0x10000u : 1u);
            }
        bound += kStepKeys;
    }
    __syncthreads();
    std::uint32_t* row = d_rows + std::size_t(blockIdx.x) * words;
    for (std::uint32_t i = threadIdx.x; i < words; i += kRowsThreads)
        row[i] = smem[i];
}

// Adds the rows' packed counters into the totals: a block takes 32 words, its 8 warps every 8th
// row each (coalesced 128-byte loads), and sums them in shared memory.
__global__ void __launch_bounds__(256) rowsReduceKernel(const std::uint32_t* __restrict__ d_rows, std::uint32_t rows,
                                                        std::uint32_t words, std::uint32_t begin, std::uint32_t slots,
                                                        unsigned long long* __restrict__ d_out)
{
    __shared__ std::uint32_t s_lo[8][33], s_hi[8][33];
    const std::uint32_t lane = threadIdx.x & 31u, g = threadIdx.x >> 5;
    const std::uint32_t w = blockIdx.x * 32 + lane;
    std::uint32_t lo = 0, hi = 0;
    if (w < words) {
#pragma unroll 4
        for (std::uint32_t r = g; r < rows; r += 8) {
            const std::uint32_t x = __ldg(d_rows + std::size_t(r) * words + w);
            lo += x & 0xffffu;
            hi += x >> 16;
        }
    }
    s_lo[g][lane] = lo;
    s_hi[g][lane] = hi;
    __syncthreads();
    if (g == 0 && w < words) {
        for (int k = 1; k < 8; ++k) {
            lo += s_lo[k][lane];
            hi += s_hi[k][lane];
        }
        d_out[begin + 2 * w] += lo;
        if (2 * w + 1 < slots)
            d_out[begin + 2 * w + 1] += hi;
    }
}

// Partition first, then count in shared memory (the issue's first big-bin question). A bin's
// high bits name its bucket of 2^12 bins, its low bits its slot in that bucket.
//   pass 1  Each block takes a tile of kTile keys, ranks them by bucket in shared memory (one
//           returning shared atomic a key on the bucket's counter), scans the buckets' counts
//           (cub::BlockScan), and writes the tile's slots back in bucket order as 16-bit values,
//           with the start of every bucket in the tile: one read of the keys and one write of
//           half their size (for 32-bit keys), nothing global but plain coalesced stores.
//   pass 2  Block (p, b) counts bucket b's slots from every P-th tile into 4,096 shared counters
//           and adds them into the 64-bit totals: groups of G lanes read one tile's segment with
//           16-byte loads, so a bucket's keys are read once in all, and each block merges 4,096
//           counters instead of a full copy of the bins.
constexpr int kPartThreads = 512;
constexpr int kPartKeysPerThread = 16;
constexpr std::uint32_t kTile = kPartThreads * kPartKeysPerThread;  // 8,192 keys
constexpr std::uint32_t kSlotShift = 12;
constexpr std::uint32_t kSlots = 1u << kSlotShift;
constexpr std::uint32_t kMaxBuckets = 1024;

// Mode bits (the engine's splitKernel against this one, session 15 run 2): kVote ranks a warp
// whose 32 samples share a bucket with one atomic; kScalar loads one key per lane and load
// (adjacent lanes, adjacent keys) instead of four keys a 16-byte vector; kPersistent loops a
// resident grid over the tiles instead of one block a tile.
constexpr int kVote = 1, kScalar = 2, kPersistent = 4;

template <typename K, int Mode>
__global__ void __launch_bounds__(kPartThreads, 2) partitionKernel(const uint4* __restrict__ in, std::size_t n,
                                                               std::uint32_t numBuckets, std::uint16_t* __restrict__ d_slots,
                                                               std::uint32_t* __restrict__ d_offsets)
{
    constexpr int P = KeyBits<K>::kPerVec;
    constexpr int V = kPartKeysPerThread / P;  // vectors a thread
    using Scan = cub::BlockScan<std::uint32_t, kPartThreads>;
    __shared__ typename Scan::TempStorage scanStorage;
    __shared__ std::uint32_t s_count[kMaxBuckets];
    __shared__ __align__(16) std::uint16_t s_stage[kTile];
    const std::uint32_t numTiles = std::uint32_t((n + kTile - 1) / kTile);
    const unsigned lane = threadIdx.x & 31u;
    for (std::uint32_t tile = blockIdx.x; tile < numTiles; tile += (Mode & kPersistent) ? gridDim.x : numTiles) {
    const std::size_t firstKey = std::size_t(tile) * kTile;
    const std::uint32_t inTile = n - firstKey < kTile ? std::uint32_t(n - firstKey) : kTile;
    for (std::uint32_t b = threadIdx.x; b < numBuckets; b += kPartThreads)
        s_count[b] = 0;
    __syncthreads();
    std::uint32_t key[kPartKeysPerThread];
    bool valid[kPartKeysPerThread];
    if constexpr ((Mode & kScalar) != 0) {
        const K* keys = reinterpret_cast<const K*>(in) + firstKey;
#pragma unroll
        for (int j = 0; j < kPartKeysPerThread; ++j) {
            const std::uint32_t local = j * kPartThreads + threadIdx.x;
            valid[j] = local < inTile;
            key[j] = valid[j] ? std::uint32_t(__ldg(keys + local)) : 0u;
        }
    } else {
        uint4 v[V];
#pragma unroll
        for (int j = 0; j < V; ++j) {
            const std::uint32_t local = (j * kPartThreads + threadIdx.x) * P;
            v[j] = local < inTile ? __ldg(in + (firstKey + local) / P) : make_uint4(0, 0, 0, 0);
        }
#pragma unroll
        for (int j = 0; j < V; ++j)
#pragma unroll
            for (int e = 0; e < P; ++e) {
                valid[j * P + e] = (j * kPartThreads + threadIdx.x) * P + e < inTile;
                key[j * P + e] = KeyBits<K>::key(v[j], e);
            }
    }
    std::uint32_t rank[kPartKeysPerThread];
#pragma unroll
    for (int k = 0; k < kPartKeysPerThread; ++k) {
        const std::uint32_t b = valid[k] ? key[k] >> kSlotShift : 0xffffu;
        if constexpr ((Mode & kVote) != 0) {
            const std::uint32_t first = __shfl_sync(0xffffffffu, b, 0);
            if (__all_sync(0xffffffffu, b == first)) {
                if (first != 0xffffu) {
                    std::uint32_t base = 0;
                    if (lane == 0)
                        base = atomicAdd(s_count + first, 32u);
                    rank[k] = __shfl_sync(0xffffffffu, base, 0) + lane;
                }
                continue;
            }
        }
        if (b != 0xffffu)
            rank[k] = atomicAdd(s_count + b, 1u);
    }
    __syncthreads();
    // Up to two buckets a thread (kMaxBuckets = 2 x kPartThreads).
    std::uint32_t counts[2] = {0, 0};
    const std::uint32_t b0 = 2 * threadIdx.x;
    if (b0 < numBuckets)
        counts[0] = s_count[b0];
    if (b0 + 1 < numBuckets)
        counts[1] = s_count[b0 + 1];
    std::uint32_t starts[2];
    Scan(scanStorage).ExclusiveSum(counts, starts);
    __syncthreads();
    std::uint32_t* row = d_offsets + std::size_t(tile) * (numBuckets + 1);
    if (b0 < numBuckets) {
        s_count[b0] = starts[0];
        row[b0] = starts[0];
    }
    if (b0 + 1 < numBuckets) {
        s_count[b0 + 1] = starts[1];
        row[b0 + 1] = starts[1];
    }
    if (threadIdx.x == 0)
        row[numBuckets] = inTile;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kPartKeysPerThread; ++k)
        if (valid[k])
            s_stage[s_count[key[k] >> kSlotShift] + rank[k]] = std::uint16_t(key[k] & (kSlots - 1));
    __syncthreads();
    uint4* out = reinterpret_cast<uint4*>(d_slots + std::size_t(tile) * kTile);
    const uint4* stage = reinterpret_cast<const uint4*>(s_stage);
    for (std::uint32_t i = threadIdx.x; i * 8 < inTile; i += kPartThreads)
        out[i] = stage[i];
    __syncthreads();
    }
}

template <int G>
__global__ void __launch_bounds__(kPartThreads) bucketCountKernel(const std::uint16_t* __restrict__ d_slots,
                                                                 const std::uint32_t* __restrict__ d_offsets,
                                                                 std::uint32_t numTiles, std::uint32_t numBuckets,
                                                                 std::uint32_t bins, unsigned long long* d_out)
{
    __shared__ std::uint32_t s_cnt[kSlots];
    for (std::uint32_t i = threadIdx.x; i < kSlots; i += kPartThreads)
        s_cnt[i] = 0;
    __syncthreads();
    const std::uint32_t b = blockIdx.y;
    const std::uint32_t parts = gridDim.x;
    const std::uint32_t group = threadIdx.x / G, lane = threadIdx.x % G;
    constexpr std::uint32_t kGroups = kPartThreads / G;
    std::uint32_t t = blockIdx.x + parts * group;
    std::uint32_t s = 0, e = 0;
    if (t < numTiles) {
        s = __ldg(d_offsets + std::size_t(t) * (numBuckets + 1) + b);
        e = __ldg(d_offsets + std::size_t(t) * (numBuckets + 1) + b + 1);
    }
    while (t < numTiles) {
        const std::uint32_t next = t + parts * kGroups;
        std::uint32_t ns = 0, ne = 0;
        if (next < numTiles) {
            ns = __ldg(d_offsets + std::size_t(next) * (numBuckets + 1) + b);
            ne = __ldg(d_offsets + std::size_t(next) * (numBuckets + 1) + b + 1);
        }
        const uint4* seg = reinterpret_cast<const uint4*>(d_slots + std::size_t(t) * kTile);
        const std::uint32_t vEnd = (e + 7) / 8;
        for (std::uint32_t vi = s / 8 + lane; vi < vEnd; vi += 4 * G) {
            uint4 w[4];
#pragma unroll
            for (int k = 0; k < 4; ++k)
                w[k] = vi + k * G < vEnd ? __ldg(seg + vi + k * G) : make_uint4(0, 0, 0, 0);
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                const std::uint32_t first = (vi + k * G) * 8;
                const std::uint32_t words[4] = {w[k].x, w[k].y, w[k].z, w[k].w};
#pragma unroll
                for (int h = 0; h < 8; ++h) {
                    const std::uint32_t idx = first + h;
                    if (idx >= s && idx < e)
                        atomicAdd(s_cnt + ((words[h / 2] >> (16 * (h & 1))) & 0xffffu), 1u);
                }
            }
        }
        t = next;
        s = ns;
        e = ne;
    }
    __syncthreads();
    for (std::uint32_t i = threadIdx.x; i < kSlots; i += kPartThreads) {
        const std::uint32_t c = s_cnt[i];
        const std::uint32_t bin = (b << kSlotShift) + i;
        if (c && bin < bins)
            atomicAdd(d_out + bin, static_cast<unsigned long long>(c));
    }
}

struct Input {
    std::string name;
    int keyBytes;
    std::uint32_t bins;
    std::vector<std::uint32_t> keys;  // held as 32-bit; 16-bit inputs are packed on upload
};

static Input makeInput(const std::string& name, int keyBytes, std::size_t n, std::uint32_t bins, double zipf,
                       std::uint64_t seed)
{
    Input in{name, keyBytes, bins, std::vector<std::uint32_t>(n)};
    std::vector<double> cdf;
    std::vector<std::uint32_t> rankToKey(bins);
    if (zipf > 0) {
        cdf.resize(bins);
        double s = 0;
        for (std::uint32_t r = 0; r < bins; ++r)
            cdf[r] = (s += 1.0 / std::pow(double(r + 1), zipf));
        for (double& c : cdf)
            c /= s;
        for (std::uint32_t r = 0; r < bins; ++r)
            rankToKey[r] = r;
        std::shuffle(rankToKey.begin(), rankToKey.end(), std::mt19937_64(seed ^ 0x5eed));
    }
#pragma omp parallel
    {
        std::mt19937_64 rng(seed + 7919 * omp_get_thread_num());
        std::uniform_real_distribution<double> u(0.0, 1.0);
#pragma omp for schedule(static)
        for (std::int64_t i = 0; i < std::int64_t(n); ++i) {
            if (zipf > 0) {
                const std::size_t r = std::lower_bound(cdf.begin(), cdf.end(), u(rng)) - cdf.begin();
                in.keys[i] = rankToKey[std::min<std::size_t>(r, bins - 1)];
            } else {
                in.keys[i] = std::uint32_t(rng() % bins);
            }
        }
    }
    return in;
}

struct Runner {
    const Input& in;
    const uint4* d_in;
    std::size_t vecs;
    unsigned long long* d_out;
    std::uint32_t* d_c32;
    std::vector<unsigned long long> expected;
    cudaDeviceProp prop;
    int repeats;
    double probeMs = 0;
    int failures = 0;
    std::uint16_t* d_slots = nullptr;     // the partition's scratch: kTile 16-bit slots a tile
    std::uint32_t* d_offsets = nullptr;   // and numBuckets + 1 starts a tile

    void report(const char* name, const std::string& shape, bool exact, double ms)
    {
        std::printf("%-22s %-14s %-26s | %s | %.4f ms | x probe %.2f\n", in.name.c_str(), name, shape.c_str(),
                    exact ? "exact" : "MISMATCH", ms, ms / probeMs);
        std::fflush(stdout);
        if (!exact)
            failures++;
    }

    template <typename Launch>
    void run(const char* name, const std::string& shape, Launch launch)
    {
        const std::size_t bytes = std::size_t(in.bins) * sizeof(unsigned long long);
        CHECK(cudaMemset(d_out, 0xa5, bytes));
        auto whole = [&] {
            CHECK(cudaMemsetAsync(d_out, 0, bytes));
            launch();
        };
        whole();
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        std::vector<unsigned long long> got(in.bins);
        CHECK(cudaMemcpy(got.data(), d_out, bytes, cudaMemcpyDeviceToHost));
        const bool exact = got == expected;
        report(name, shape, exact, exact ? medianEventMs(whole, repeats) : 0.0);
    }

    template <typename Kernel>
    int blocksFor(Kernel kernel, std::size_t smemBytes)
    {
        CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smemBytes)));
        int perSm = 0;
        CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, 1024, smemBytes));
        return perSm * prop.multiProcessorCount;
    }

    template <int G>
    void launchBucketCount(std::uint32_t parts, std::uint32_t numTiles, std::uint32_t numBuckets)
    {
        bucketCountKernel<G><<<dim3(parts, numBuckets), kPartThreads>>>(d_slots, d_offsets, numTiles, numBuckets, in.bins, d_out);
    }

    // blocksPerSm: how many counting blocks an SM gets (more blocks, more merges of 4,096 counters).
    template <typename K, int Mode>
    void launchSplit(std::size_t n, std::uint32_t numTiles, std::uint32_t numBuckets)
    {
        const auto kernel = partitionKernel<K, Mode>;
        unsigned blocks = numTiles;
        if (Mode & kPersistent) {
            int perSm = 0;
            CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, kPartThreads, 0));
            blocks = std::min<unsigned>(numTiles, unsigned(perSm * prop.multiProcessorCount));
        }
        kernel<<<blocks, kPartThreads>>>(d_in, n, numBuckets, d_slots, d_offsets);
    }

    template <typename K>
    void partition(int blocksPerSm, int mode = 0)
    {
        const std::uint32_t numBuckets = (in.bins + kSlots - 1) / kSlots;
        if (numBuckets > kMaxBuckets)
            return;
        const std::size_t n = vecs * KeyBits<K>::kPerVec;
        const std::uint32_t numTiles = std::uint32_t((n + kTile - 1) / kTile);
        const double vecsPerSegment = double(kTile) / numBuckets / 8 + 1;
        int g = 1;
        while (g < 32 && 2 * g * 4 <= vecsPerSegment)
            g *= 2;
        const std::uint32_t parts =
            std::max<std::uint32_t>(1, std::uint32_t(std::lround(double(blocksPerSm) * prop.multiProcessorCount / numBuckets)));
        auto count = [&] {
            switch (g) {
            case 1: launchBucketCount<1>(parts, numTiles, numBuckets); break;
            case 2: launchBucketCount<2>(parts, numTiles, numBuckets); break;
            case 4: launchBucketCount<4>(parts, numTiles, numBuckets); break;
            case 8: launchBucketCount<8>(parts, numTiles, numBuckets); break;
            case 16: launchBucketCount<16>(parts, numTiles, numBuckets); break;
            default: launchBucketCount<32>(parts, numTiles, numBuckets); break;
            }
        };
        auto split = [&] {
            switch (mode) {
            case 0: launchSplit<K, 0>(n, numTiles, numBuckets); break;
            case kVote: launchSplit<K, kVote>(n, numTiles, numBuckets); break;
            case kScalar: launchSplit<K, kScalar>(n, numTiles, numBuckets); break;
            case kPersistent: launchSplit<K, kPersistent>(n, numTiles, numBuckets); break;
            default: launchSplit<K, kVote | kScalar | kPersistent>(n, numTiles, numBuckets); break;
            }
        };
        const std::string shape = std::to_string(numBuckets) + "b x " + std::to_string(parts) + "p, G" + std::to_string(g)
                                + (mode ? ", mode " + std::to_string(mode) : std::string());
        run(("partition" + std::to_string(blocksPerSm)).c_str(), shape, [&] {
            split();
            count();
        });
        // The two passes apart (the split's output stays as the run left it: the count reads it).
        const double splitMs = medianEventMs(split, repeats);
        const double countMs = medianEventMs(count, repeats);
        std::printf("%-22s %-14s %-26s | timed only | split %.4f ms (x probe %.2f), count %.4f ms (x probe %.2f)\n",
                    in.name.c_str(), ("partition" + std::to_string(blocksPerSm)).c_str(), shape.c_str(), splitMs,
                    splitMs / probeMs, countMs, countMs / probeMs);
    }

    template <typename K>
    void tiles()
    {
        const std::uint32_t tile = 57344;
        const int blocks = blocksFor(tileKernel<K>, tile * 4);
        const int passes = int((in.bins + tile - 1) / tile);
        run("tiles", std::to_string(passes) + " passes, " + std::to_string(blocks) + " blocks", [&] {
            for (std::uint32_t b = 0; b < in.bins; b += tile) {
                const std::uint32_t slots = std::min(tile, in.bins - b);
                tileKernel<K><<<blocks, 1024, slots * 4>>>(d_in, vecs, b, slots, d_out);
            }
        });
    }

    template <typename K>
    void packed()
    {
        const std::size_t bytes = std::size_t((in.bins + 1) / 2) * 4;
        if (bytes > prop.sharedMemPerBlockOptin)
            return;
        const int blocks = blocksFor(packedKernel<K>, bytes);
        run("packed16", "1 pass, " + std::to_string(blocks) + " blocks", [&] {
            packedKernel<K><<<blocks, 1024, bytes>>>(d_in, vecs, in.bins, d_out);
        });
    }

    template <typename K>
    void packedBatch()
    {
        const std::uint32_t tileMax = std::uint32_t(std::min<std::size_t>(prop.sharedMemPerBlockOptin / 2, 65536u * 2)) & ~1u;
        const std::uint32_t tiles = (in.bins + tileMax - 1) / tileMax;
        const std::uint32_t tile = ((in.bins + tiles - 1) / tiles + 1) & ~1u;
        const int blocks = blocksFor(packedBatchKernel<K>, std::size_t(tile / 2) * 4);
        run("packed16-batch", std::to_string(tiles) + " pass(es), " + std::to_string(blocks) + " blocks", [&] {
            for (std::uint32_t b = 0; b < in.bins; b += tile) {
                const std::uint32_t slots = std::min(tile, in.bins - b);
                packedBatchKernel<K><<<blocks, 1024, std::size_t((slots + 1) / 2) * 4>>>(d_in, vecs, b, slots, in.bins, d_out);
            }
        });
    }

    // rows16 with waves blocks an SM in turn (more blocks: fewer keys each, more rows to add).
    template <typename K>
    void rows16(int waves)
    {
        const std::uint32_t maxSlots = std::uint32_t(prop.sharedMemPerBlockOptin / 4) * 2;
        const std::uint32_t tiles = (in.bins + maxSlots - 1) / maxSlots;
        if (tiles > 3)
            return;
        const std::uint32_t tile = ((in.bins + tiles - 1) / tiles + 1) & ~1u;
        const std::uint32_t words = tile / 2;
        const std::size_t bytes = std::size_t(words) * 4;
        const int blocks = blocksFor(rowsKernel<K>, bytes) * waves;
        std::uint32_t* d_rows = nullptr;
        CHECK(cudaMalloc(&d_rows, std::size_t(blocks) * words * 4));
        auto count = [&](std::uint32_t b) {
            rowsKernel<K><<<blocks, kRowsThreads, bytes>>>(d_in, vecs, b, std::min(tile, in.bins - b), d_rows, d_out);
        };
        auto reduce = [&](std::uint32_t b) {
            const std::uint32_t slots = std::min(tile, in.bins - b);
            rowsReduceKernel<<<((slots + 1) / 2 + 31) / 32, 256>>>(d_rows, blocks, (slots + 1) / 2, b, slots, d_out);
        };
        const std::string shape = std::to_string(tiles) + " pass(es), " + std::to_string(blocks) + " blocks";
        run(("rows16-w" + std::to_string(waves)).c_str(), shape, [&] {
            for (std::uint32_t b = 0; b < in.bins; b += tile) {
                count(b);
                reduce(b);
            }
        });
        const double countMs = medianEventMs([&] { count(0); }, repeats);
        const double reduceMs = medianEventMs([&] { reduce(0); }, repeats);
        std::printf("%-22s %-14s %-26s | timed only | first tile's count %.4f ms (x probe %.2f), its reduction %.4f ms\n",
                    in.name.c_str(), ("rows16-w" + std::to_string(waves)).c_str(), shape.c_str(), countMs, countMs / probeMs,
                    reduceMs);
        CHECK(cudaFree(d_rows));
    }

    void mergeOnly()
    {
        const std::uint32_t slots = std::min<std::uint32_t>(in.bins, 57344);
        const int blocks = blocksFor(mergeOnlyKernel, slots * 4);
        const double ms = medianEventMs([&] { mergeOnlyKernel<<<blocks, 1024, slots * 4>>>(slots, d_out); }, repeats);
        std::printf("%-22s %-14s %-26s | timed only | %.4f ms | x probe %.2f\n", in.name.c_str(), "merge-only",
                    (std::to_string(blocks) + " blocks x " + std::to_string(slots)).c_str(), ms, ms / probeMs);
    }

    template <typename K, bool Packed>
    void cluster(int size)
    {
        std::uint32_t shift = 0;
        while ((std::uint64_t(size) << shift) < in.bins)
            ++shift;
        const std::size_t bytes = (std::size_t(1) << shift) * 4 / (Packed ? 2 : 1);
        std::string name = "cluster" + std::to_string(size) + (Packed ? "-p16" : "");
        if (bytes > prop.sharedMemPerBlockOptin) {
            std::printf("%-22s %-14s does not fit (%zu bytes a block)\n", in.name.c_str(), name.c_str(), bytes);
            return;
        }
        const auto kernel = clusterKernel<K, Packed>;
        CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
        if (size > 8)
            CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
        cudaLaunchConfig_t cfg{};
        cudaLaunchAttribute attr[1];
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = size;
        attr[0].val.clusterDim.y = 1;
        attr[0].val.clusterDim.z = 1;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
        cfg.blockDim = dim3(1024);
        cfg.dynamicSmemBytes = bytes;
        cfg.gridDim = dim3(size);
        int clusters = 0;
        const cudaError_t e = cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg);
        if (e != cudaSuccess || clusters == 0) {
            std::printf("%-22s %-14s cannot launch (%s, %d clusters)\n", in.name.c_str(), name.c_str(),
                        cudaGetErrorString(e), clusters);
            cudaGetLastError();
            return;
        }
        cfg.gridDim = dim3(clusters * size);
        run(name.c_str(), std::to_string(clusters) + " clusters of " + std::to_string(size), [&] {
            CHECK(cudaLaunchKernelEx(&cfg, kernel, d_in, vecs, in.bins, shift, d_out));
        });
    }

    template <typename K>
    void global()
    {
        const int blocks = prop.multiProcessorCount * 8;
        run("global64", std::to_string(blocks) + " x 256", [&] { global64Kernel<K><<<blocks, 256>>>(d_in, vecs, d_out); });
        run("global32", "+ widen", [&] {
            CHECK(cudaMemsetAsync(d_c32, 0, std::size_t(in.bins) * 4));
            global32Kernel<K><<<blocks, 256>>>(d_in, vecs, d_c32);
            widenKernel<<<prop.multiProcessorCount * 4, 256>>>(d_c32, in.bins, d_out);
        });
    }
};

template <typename K>
static int measure(const Input& in, const cudaDeviceProp& prop, int repeats)
{
    std::vector<K> host(in.keys.begin(), in.keys.end());
    const std::size_t bytes = host.size() * sizeof(K);
    void* d_in = nullptr;
    unsigned long long* d_out = nullptr;
    std::uint32_t* d_c32 = nullptr;
    unsigned long long* sink = nullptr;
    CHECK(cudaMalloc(&d_in, bytes));
    CHECK(cudaMalloc(&d_out, std::size_t(in.bins) * 8));
    CHECK(cudaMalloc(&d_c32, std::size_t(in.bins) * 4));
    CHECK(cudaMalloc(&sink, 8));
    CHECK(cudaMemcpy(d_in, host.data(), bytes, cudaMemcpyHostToDevice));
    Runner r{in, static_cast<const uint4*>(d_in), bytes / 16, d_out, d_c32, std::vector<unsigned long long>(in.bins, 0), prop,
             repeats};
    for (std::uint32_t k : in.keys)
        r.expected[k]++;
    r.probeMs = medianEventMs([&] { readProbe<<<prop.multiProcessorCount * 8, 256>>>(r.d_in, r.vecs, sink); }, repeats);
    std::printf("%-22s %-14s %-26s | %.0f GB/s | %.4f ms\n", in.name.c_str(), "read-probe", "", bytes / r.probeMs / 1e6,
                r.probeMs);
    const std::size_t numTiles = (host.size() + kTile - 1) / kTile;
    const std::uint32_t numBuckets = (in.bins + kSlots - 1) / kSlots;
    CHECK(cudaMalloc(&r.d_slots, numTiles * kTile * sizeof(std::uint16_t)));
    CHECK(cudaMalloc(&r.d_offsets, numTiles * (numBuckets + 1) * sizeof(std::uint32_t)));
    r.tiles<K>();
    for (int waves : {1, 2})
        r.rows16<K>(waves);
    // Session 18 asked about rows16 alone: ROWS_ONLY=1 skips the partition's modes (session 15).
    if (!std::getenv("ROWS_ONLY")) {
        r.partition<K>(2);
        for (int perSm : {1, 4})
            r.partition<K>(perSm);
        for (int mode : {kVote, kScalar, kPersistent, kVote | kScalar | kPersistent})
            r.partition<K>(4, mode);
    } else {
        r.partition<K>(2);
    }
    // Measured in session 12 (packed 16-bit counters, the merge alone): PACKED=1 runs them again.
    if (std::getenv("PACKED")) {
        r.packed<K>();
        r.packedBatch<K>();
        r.mergeOnly();
    }
    // Measured in session 12's first run and slower everywhere (remote updates to distributed
    // shared memory cost more than the merges they save): CLUSTERS=1 runs them again.
    if (std::getenv("CLUSTERS")) {
        for (int size : {2, 4, 8, 16})
            r.cluster<K, false>(size);
        for (int size : {2, 4, 8, 16})
            r.cluster<K, true>(size);
    }
    if (in.bins >= 500000)
        r.global<K>();
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_c32));
    CHECK(cudaFree(sink));
    CHECK(cudaFree(r.d_slots));
    CHECK(cudaFree(r.d_offsets));
    return r.failures;
}

int main(int argc, char** argv)
{
    const int repeats = argc > 1 ? std::atoi(argv[1]) : 30;
    cudaDeviceProp prop{};
    CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device: %s, %d SMs, opt-in shared %zu, L2 %d MiB\n", prop.name, prop.multiProcessorCount,
                prop.sharedMemPerBlockOptin, prop.l2CacheSize >> 20);
    const std::size_t m16 = std::size_t(16) << 20;
    int failures = 0;
    failures += measure<std::uint16_t>(makeInput("gray16-4k-noise-65536", 2, 3840 * 2160, 65536, 0, 1), prop, repeats);
    failures += measure<std::uint32_t>(makeInput("keys16M-uniform-65536", 4, m16, 65536, 0, 2), prop, repeats);
    failures += measure<std::uint32_t>(makeInput("keys16M-zipf-65536", 4, m16, 65536, 1.1, 3), prop, repeats);
    failures += measure<std::uint32_t>(makeInput("keys16M-uniform-100000", 4, m16, 100000, 0, 4), prop, repeats);
    failures += measure<std::uint32_t>(makeInput("tokens100M-zipf-131072", 4, 100000000, 131072, 1.0, 5), prop, repeats);
    failures += measure<std::uint32_t>(makeInput("keys16M-uniform-1M", 4, m16, 1000000, 0, 6), prop, repeats);
    failures += measure<std::uint32_t>(makeInput("keys16M-zipf-1M", 4, m16, 1000000, 1.1, 7), prop, repeats);
    // A hot key wraps its 16-bit counters many times: the packed variants' exactness on skew.
    Input hot = makeInput("keys16M-hot90-65536", 4, m16, 65536, 0, 8);
    for (std::size_t i = 0; i < hot.keys.size(); ++i)
        if (i % 10 != 0)
            hot.keys[i] = i % 10 < 5 ? 12344 : 12345;  // both halves of one packed word
    failures += measure<std::uint32_t>(hot, prop, repeats);
    std::printf("bigbin variants: %s (%d mismatches)\n", failures ? "MISMATCH" : "all exact", failures);
    return failures ? 1 : 0;
}
