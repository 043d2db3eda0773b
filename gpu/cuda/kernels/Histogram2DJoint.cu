// Joint tiles (block-private tiles of the grid, merged sparse or dense) and global atomics.
#include "Histogram2DDevice.cuh"

#include <cooperative_groups.h>

namespace hs::detail {

namespace {

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
    int fastChannelX, fastChannelY;      // Fast2D::Channels
    std::uint32_t fastShiftX, fastShiftY;
};

// The fast form of a joint launch: one pair, one tile of 16-bit counters, and either Cb against Cr
// or channel against channel, each axis over the whole code range.
Fast2D jointFastForm(const Launch2D& L, const JointPlan& plan, JointArgs& a)
{
    if (!fastLayout(L.type, L.channels) || L.map.numPairs != 1 || plan.tiles != 1 || !plan.packed16)
        return Fast2D::None;
    const int bits = L.type == SampleType::U8 ? 8 : 16;
    const AxisMap2D& x = L.map.pair[0].x;
    const AxisMap2D& y = L.map.pair[0].y;
    if (!fullCodeRange(x.map, bits, a.fastShiftX) || !fullCodeRange(y.map, bits, a.fastShiftY))
        return Fast2D::None;
    a.fastChannelX = x.channel;
    a.fastChannelY = y.channel;
    if (x.quantity == Q2::Cb && y.quantity == Q2::Cr && L.map.codeBits == bits)
        return Fast2D::Vectorscope;
    if (x.quantity == Q2::Channel && y.quantity == Q2::Channel)
        return Fast2D::Channels;
    return Fast2D::None;
}

// Rows [r0, r1) and columns [c0, c1) of a chunk: bands of chunkRows rows, each cut into
// chunksPerBand segments of chunkCols columns.
struct ChunkBounds {
    std::int64_t r0, r1, c0, c1;
};
__device__ __forceinline__ ChunkBounds chunkBounds(const Region2D& g, std::uint32_t chunk, std::uint32_t chunksPerBand,
                                                   std::int64_t chunkRows, std::int64_t chunkCols)
{
    const std::int64_t band = chunk / chunksPerBand;
    const std::int64_t seg = chunk - band * chunksPerBand;
    ChunkBounds b;
    b.r0 = band * chunkRows;
    b.r1 = b.r0 + chunkRows < g.rows ? b.r0 + chunkRows : g.rows;
    b.c0 = seg * chunkCols;
    b.c1 = b.c0 + chunkCols < g.width ? b.c0 + chunkCols : g.width;
    return b;
}

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

template <typename T, int C, bool P16, Fast2D K>
__global__ void __launch_bounds__(K == Fast2D::None ? 256 : 1024, 1) jointKernel(const __grid_constant__ JointArgs a)
{
    const Region2D& g = a.L.region;
    const Map2D& m = a.L.map;
    // Fast forms: Cb and Cr in 32-bit integers (|sum| <= 32768 * 65535 < 2^31), or two channels;
    // a bin is a shift of the code; one pair in one tile, so the cell is the counter.
    const YccCoefficients k = yccCoefficients(m.bt709);
    const int kbr = int(k.cbr), kbg = int(k.cbg), krg = int(k.crg), krb = int(k.crb);
    const int half = 1 << (m.codeBits - 1);
    const std::uint32_t ySlots = m.pair[0].ySlots;
    auto visitFast = [&](std::int64_t, const T(&px)[4][kSlotsOf<C>], int n) {
        std::uint32_t last = 0, run = 0;
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            if (i < n) {
                std::uint32_t sx = 0, sy = 0;
                if constexpr (K == Fast2D::Vectorscope) {
                    const int r = int(pick(px[i], m.rgb[0])), gr = int(pick(px[i], m.rgb[1])), b = int(pick(px[i], m.rgb[2]));
                    sx = std::uint32_t(half + ((kbr * r + kbg * gr + 32768 * b) >> 16)) >> a.fastShiftX;
                    sy = std::uint32_t(half + ((32768 * r + krg * gr + krb * b) >> 16)) >> a.fastShiftY;
                } else if constexpr (K == Fast2D::Channels) {
                    sx = std::uint32_t(pick(px[i], a.fastChannelX)) >> a.fastShiftX;
                    sy = std::uint32_t(pick(px[i], a.fastChannelY)) >> a.fastShiftY;
                }
                const std::uint32_t s = sx * ySlots + sy;
                if (run && s == last) {
                    ++run;
                } else {
                    if (run)
                        sharedAdd<true>(last, run);
                    last = s;
                    run = 1;
                }
            }
        }
        if (run)
            sharedAdd<true>(last, run);
    };
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
        const auto [r0, r1, c0, c1] = chunkBounds(g, chunk, a.chunksPerBand, a.chunkRows, a.chunkCols);
        if constexpr (K == Fast2D::None)
            forPixels<T, C>(g, a.L.channels, r0, r1, c0, c1, threadIdx.x, blockDim.x, visit);
        else
            forPixels<T, C>(g, a.L.channels, r0, r1, c0, c1, threadIdx.x, blockDim.x, visitFast);
        if (P16 || last) {
            __syncthreads();
            mergeTile<P16>(a);
            __syncthreads();
        }
    }
}


// ---- fast joint tiles merged per cluster ----------------------------------------------------------
// One block per multiprocessor counts a band of rows into its 16-bit tile; merging each block's
// tile alone cost a global atomic per nonzero counter per block (on noise ~40K per block) or a
// dense row per block. Here the blocks of a thread-block cluster first
// add their tiles through distributed shared memory, each block summing one slice of the words
// over the whole cluster, so global memory sees one tile per cluster instead of one per block.

struct ClusterArgs {
    Launch2D L;
    std::uint32_t ySlots;
    std::uint32_t tileWords;     // padded: a multiple of 4 x blocks per cluster
    std::int64_t chunkRows;
    std::int64_t chunkCols;
    std::uint32_t chunksPerBand;
    std::uint32_t numChunks;
    bool vector;                 // 16-byte loads: rows and chunk columns 16-byte aligned
    std::uint32_t* d_rows;       // null: global atomics; else one row of 2 x tileWords sums per cluster
    int fastChannelX, fastChannelY;
    std::uint32_t fastShiftX, fastShiftY;
};

// Pixels per 16-byte-load group: 48 bytes for three channels, 32 for one or four.
template <typename T, int C>
inline constexpr int kVecLoads = C == 3 ? 3 : 2;
template <typename T, int C>
inline constexpr int kVecPixels = kVecLoads<T, C> * 16 / (C * int(sizeof(T)));

template <typename T, int C, Fast2D K>
__global__ void __launch_bounds__(1024, 1) clusterJointKernel(const __grid_constant__ ClusterArgs a)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    // Clusters exist from sm_90 on; the launcher never picks this kernel on older devices.
    __trap();
#else
    namespace cg = cooperative_groups;
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned blocksPerCluster = cluster.num_blocks();
    const unsigned rank = cluster.block_rank();
    const Region2D& g = a.L.region;
    const Map2D& m = a.L.map;
    const YccCoefficients k = yccCoefficients(m.bt709);
    const int kbr = int(k.cbr), kbg = int(k.cbg), krg = int(k.crg), krb = int(k.crb);
    const int half = 1 << (m.codeBits - 1);
    const std::uint32_t ySlots = a.ySlots;
    // A thread's run of equal cells lasts across its pixels: one atomic per run (a flat colour
    // costs one per thread, not one per pixel on one hot counter).
    std::uint32_t last = 0, run = 0;
    std::uint32_t* out = a.L.d_counts;
    const std::uint32_t slots = a.L.map.numSlots;
    // Two 16-bit counters share a word and a block may count more than 65535 pixels into one cell:
    // each atomic's old value tells exactly whether it carried out of the low half (the high
    // half's cell got a spurious 1) or out of the word (the high half lost 65536). Those rare
    // events are settled at once in the global counters, so the halves merged later plus these
    // corrections are the exact counts (mod 2^32, and every count is below 2^32).
    auto flush = [&](std::uint32_t s, std::uint32_t n) {  // n < 2^16
        const std::uint32_t add = n << ((s & 1u) * 16);
        const std::uint32_t old = atomicAdd(scopeCounters + (s >> 1), add);
        if (!(s & 1u) && (old & 0xffffu) + n > 0xffffu) {
            atomicAdd(out + s, 0x10000u);
            if (s + 1 < slots)
                atomicAdd(out + s + 1, 0xffffffffu);
        }
        if (old + add < old && (s | 1u) < slots)
            atomicAdd(out + (s | 1u), 0x10000u);
    };
    auto cell = [&](const T(&px)[kSlotsOf<C>]) {
        std::uint32_t sx = 0, sy = 0;
        if constexpr (K == Fast2D::Vectorscope) {
            const int r = int(pick(px, m.rgb[0])), gr = int(pick(px, m.rgb[1])), b = int(pick(px, m.rgb[2]));
            sx = std::uint32_t(half + ((kbr * r + kbg * gr + 32768 * b) >> 16)) >> a.fastShiftX;
            sy = std::uint32_t(half + ((32768 * r + krg * gr + krb * b) >> 16)) >> a.fastShiftY;
        } else {
            sx = std::uint32_t(pick(px, a.fastChannelX)) >> a.fastShiftX;
            sy = std::uint32_t(pick(px, a.fastChannelY)) >> a.fastShiftY;
        }
        const std::uint32_t s = sx * ySlots + sy;
        if (run && s == last && run < 0xffffu) {
            ++run;
        } else {
            if (run)
                flush(last, run);
            last = s;
            run = 1;
        }
    };
    auto visit4 = [&](std::int64_t, const T(&px)[4][kSlotsOf<C>], int n) {
#pragma unroll
        for (int i = 0; i < 4; ++i)
            if (i < n)
                cell(px[i]);
    };
    constexpr int kLoads = kVecLoads<T, C>;
    constexpr int kPixels = kVecPixels<T, C>;
    constexpr int kPerWord = 4 / int(sizeof(T));
    auto load = [&](std::uint32_t (&w)[4 * kLoads], std::int64_t r, std::int64_t col) {
        const uint4* q = reinterpret_cast<const uint4*>(g.d_origin + std::size_t(r) * g.pitch + std::size_t(col) * C * sizeof(T));
#pragma unroll
        for (int j = 0; j < kLoads; ++j) {
            const uint4 v = __ldg(q + j);
            w[4 * j] = v.x, w[4 * j + 1] = v.y, w[4 * j + 2] = v.z, w[4 * j + 3] = v.w;
        }
    };
    auto count = [&](const std::uint32_t (&w)[4 * kLoads]) {
#pragma unroll
        for (int i = 0; i < kPixels; ++i) {
            T px[C];
#pragma unroll
            for (int c = 0; c < C; ++c)
                px[c] = SampleBits<T>::from(w[(i * C + c) / kPerWord], i * C + c);
            cell(px);
        }
    };

    const std::uint32_t vecWords = a.tileWords / 4;
    uint4* tile = reinterpret_cast<uint4*>(scopeCounters);
    const std::uint32_t sliceVec = vecWords / blocksPerCluster;
    const std::uint32_t clusterIndex = blockIdx.x / blocksPerCluster;
    const std::uint32_t rounds = (a.numChunks + gridDim.x - 1) / gridDim.x;
    for (std::uint32_t round = 0; round < rounds; ++round) {
        for (std::uint32_t v = threadIdx.x; v < vecWords; v += blockDim.x)
            tile[v] = make_uint4(0, 0, 0, 0);
        __syncthreads();
        const std::uint32_t chunk = round * gridDim.x + blockIdx.x;
        if (chunk < a.numChunks) {
            const auto [r0, r1, c0, c1] = chunkBounds(g, chunk, a.chunksPerBand, a.chunkRows, a.chunkCols);
            std::int64_t tail = c0;  // columns from here on take the four-pixel walk
            if (a.vector) {
                // Groups (row, k) numbered row-major, thread t taking t, t + blockDim.x, ...: the
                // row and group advance by fixed steps, with no division per group.
                const std::uint32_t perRow = std::uint32_t((c1 - c0) / kPixels);
                tail = c0 + std::int64_t(perRow) * kPixels;
                const std::uint32_t dRow = perRow ? blockDim.x / perRow : 0, dK = perRow ? blockDim.x % perRow : 0;
                std::int64_t row = perRow ? r0 + threadIdx.x / perRow : r1;
                std::uint32_t k = perRow ? threadIdx.x % perRow : 0;
                auto advance = [&](std::int64_t& r, std::uint32_t& kk) {
                    r += dRow;
                    kk += dK;
                    if (kk >= perRow) {
                        kk -= perRow;
                        ++r;
                    }
                };
                // Two groups in flight per thread: the next one's loads go out before this one is counted.
                std::uint32_t cur[4 * kLoads] = {}, next[4 * kLoads] = {};
                if (row < r1)
                    load(cur, row, c0 + std::int64_t(k) * kPixels);
                while (row < r1) {
                    std::int64_t nextRow = row;
                    std::uint32_t nextK = k;
                    advance(nextRow, nextK);
                    if (nextRow < r1)
                        load(next, nextRow, c0 + std::int64_t(nextK) * kPixels);
                    count(cur);
                    row = nextRow;
                    k = nextK;
#pragma unroll
                    for (int e = 0; e < 4 * kLoads; ++e)
                        cur[e] = next[e];
                }
            }
            forPixels<T, C>(g, C, r0, r1, tail, c1, threadIdx.x, blockDim.x, visit4);
        }
        if (run)
            flush(last, run);
        run = 0;
        cluster.sync();  // every tile of the cluster complete and visible to the cluster
        for (std::uint32_t v = rank * sliceVec + threadIdx.x; v < (rank + 1) * sliceVec; v += blockDim.x) {
            std::uint32_t sum[8] = {0, 0, 0, 0, 0, 0, 0, 0};
            for (unsigned b = 0; b < blocksPerCluster; ++b) {
                const uint4 x = reinterpret_cast<const uint4*>(cluster.map_shared_rank(scopeCounters, b))[v];
                const std::uint32_t w4[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    sum[2 * e] += w4[e] & 0xffffu;
                    sum[2 * e + 1] += w4[e] >> 16;
                }
            }
            const std::uint32_t s0 = 8 * v;
            if (a.d_rows) {
                // The same thread owns these sums in every round: plain stores, then adds.
                uint4* row = reinterpret_cast<uint4*>(a.d_rows + std::size_t(clusterIndex) * 2 * a.tileWords + s0);
                uint4 q0 = make_uint4(sum[0], sum[1], sum[2], sum[3]), q1 = make_uint4(sum[4], sum[5], sum[6], sum[7]);
                if (round > 0) {
                    const uint4 p0 = row[0], p1 = row[1];
                    q0.x += p0.x, q0.y += p0.y, q0.z += p0.z, q0.w += p0.w;
                    q1.x += p1.x, q1.y += p1.y, q1.z += p1.z, q1.w += p1.w;
                }
                row[0] = q0;
                row[1] = q1;
            } else {
#pragma unroll
                for (int e = 0; e < 8; ++e)
                    if (sum[e] && s0 + e < slots)
                        atomicAdd(out + s0 + e, sum[e]);
            }
        }
        cluster.sync();  // no block clears its tile (or exits) while another still reads it
    }
#endif
}

// Adds the clusters' rows to the counters (which hold the overflow corrections).
__global__ void clusterRowsKernel(const std::uint32_t* d_rows, std::uint32_t numRows, std::uint32_t rowSlots,
                                  std::uint32_t slots, std::uint32_t* d_out)
{
    const std::uint32_t s = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
    if (s >= slots)
        return;
    uint4 acc = make_uint4(0, 0, 0, 0);
    for (std::uint32_t r = 0; r < numRows; ++r) {
        const uint4 v = __ldg(reinterpret_cast<const uint4*>(d_rows + std::size_t(r) * rowSlots + s));
        acc.x += v.x, acc.y += v.y, acc.z += v.z, acc.w += v.w;
    }
    const std::uint32_t a4[4] = {acc.x, acc.y, acc.z, acc.w};
#pragma unroll
    for (int e = 0; e < 4; ++e)
        if (s + e < slots)
            d_out[s + e] += a4[e];
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



// The fast joint form with cluster merging. Returns false in `ran` when the device cannot place a
// cluster of this kernel (the caller then runs the per-block form).
template <typename T, int C, Fast2D K>
Status launchClusterJoint(const Launch2D& L, const JointPlan& plan, const JointArgs& fast, JointScratch& scratch,
                          const Device2D& device, const Tuning2D& tuning, cudaStream_t stream, bool& ran)
{
    ran = false;
    if (device.computeMajor < 9)
        return Status::success();  // no thread-block clusters before Hopper: the per-block form runs
    void (*kernel)(ClusterArgs) = clusterJointKernel<T, C, K>;
    const void* entry = reinterpret_cast<const void*>(kernel);
    constexpr int kThreads = 1024;
    const std::uint32_t slotWords = (plan.tileSlots + 1) / 2;
    int blocksPerCluster = 1;
    while (blocksPerCluster * 2 <= std::min(tuning.cluster, 16))
        blocksPerCluster *= 2;
    int clusters = 0;
    std::uint32_t tileWords = 0;
    std::size_t bytes = 0;
    cudaLaunchConfig_t config{};
    cudaLaunchAttribute attribute{};
    for (;; blocksPerCluster /= 2) {
        if (blocksPerCluster < 1)
            return Status::success();
        const std::uint32_t quantum = 4u * std::uint32_t(blocksPerCluster);
        tileWords = (slotWords + quantum - 1) / quantum * quantum;
        bytes = std::size_t(tileWords) * 4;
        if (bytes + kScopeSharedReserve > device.sharedOptin)
            continue;
        config = cudaLaunchConfig_t{};
        config.blockDim = dim3(kThreads);
        config.gridDim = dim3(unsigned(blocksPerCluster));
        config.dynamicSmemBytes = bytes;
        config.stream = stream;
        attribute.id = cudaLaunchAttributeClusterDimension;
        attribute.val.clusterDim.x = unsigned(blocksPerCluster);
        attribute.val.clusterDim.y = 1;
        attribute.val.clusterDim.z = 1;
        config.attrs = &attribute;
        config.numAttrs = 1;
        // Asked once per kernel and cluster size: the driver's answers cost host microseconds per launch.
        const auto key = std::make_pair(entry, blocksPerCluster);
        if (const auto it = scratch.clusters.find(key); it != scratch.clusters.end()) {
            clusters = it->second;
        } else {
            HS_TRY(scratch.cache.allowDynamicShared(entry, bytes, device.sharedOptin));
            if (blocksPerCluster > 8)
                HS_CUDA_TRY(cudaFuncSetAttribute(entry, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
            clusters = 0;
            if (cudaOccupancyMaxActiveClusters(&clusters, entry, &config) != cudaSuccess) {
                cudaGetLastError();  // this size is refused: try a smaller cluster
                clusters = 0;
            }
            scratch.clusters.emplace(key, clusters);
        }
        if (clusters > 0)
            break;
    }
    ClusterArgs a{};
    a.L = L;
    a.ySlots = L.map.pair[0].ySlots;
    a.tileWords = tileWords;
    a.fastChannelX = fast.fastChannelX;
    a.fastChannelY = fast.fastChannelY;
    a.fastShiftX = fast.fastShiftX;
    a.fastShiftY = fast.fastShiftY;
    const std::uint64_t resident = std::uint64_t(clusters) * std::uint64_t(blocksPerCluster);
    const std::uint64_t width = std::uint64_t(L.region.width), rows = std::uint64_t(L.region.rows);
    const std::uint64_t groupPixels = std::uint64_t(kVecPixels<T, C>);
    // One chunk per resident block (the spill lifts the 65535-pixel bound): bands of whole rows,
    // or pieces of rows when there are fewer rows than blocks. `chunkPixels` (tests) forces a size.
    if (tuning.chunkPixels > 0) {
        const std::uint64_t target = std::uint64_t(tuning.chunkPixels);
        a.chunkCols = std::int64_t(width <= target ? width : std::max<std::uint64_t>(groupPixels, target / groupPixels * groupPixels));
        a.chunkRows = std::int64_t(std::max<std::uint64_t>(1, target / std::uint64_t(a.chunkCols)));
    } else if (rows >= resident) {
        a.chunkCols = std::int64_t(width);
        a.chunkRows = std::int64_t((rows + resident - 1) / resident);
    } else {
        const std::uint64_t segments = resident / rows;
        const std::uint64_t cols = (width + segments - 1) / segments;
        a.chunkCols = std::int64_t(std::min(width, (cols + groupPixels - 1) / groupPixels * groupPixels));
        a.chunkRows = 1;
    }
    const std::uint64_t bands = (rows + std::uint64_t(a.chunkRows) - 1) / std::uint64_t(a.chunkRows);
    const std::uint64_t perBand = (width + std::uint64_t(a.chunkCols) - 1) / std::uint64_t(a.chunkCols);
    const std::uint64_t chunks = bands * perBand;
    if (chunks > 0x7fffffffu)
        return Status::error(ErrorCode::InvalidArgument, "too many chunks for one launch");
    a.chunksPerBand = std::uint32_t(perBand);
    a.numChunks = std::uint32_t(chunks);
    const std::uint64_t perCluster = std::uint64_t(blocksPerCluster);
    const std::uint64_t blocks = std::min((chunks + perCluster - 1) / perCluster * perCluster, resident);
    const std::size_t pixelBytes = std::size_t(C) * sizeof(T);
    a.vector = ((reinterpret_cast<std::uintptr_t>(L.region.d_origin) | L.region.pitch) & 15u) == 0
        && (perBand == 1 || (std::size_t(a.chunkCols) * pixelBytes) % 16 == 0);
    a.d_rows = nullptr;
    const std::uint64_t numRows = blocks / perCluster;
    if (tuning.clusterDense) {
        HS_TRY(scratch.dense.reserve(numRows * 2 * tileWords * 4));
        a.d_rows = scratch.dense.get<std::uint32_t>();
    }
    config.gridDim = dim3(unsigned(blocks));
    HS_CUDA_TRY(cudaLaunchKernelEx(&config, kernel, a));
    HS_TRY(launched("clusterJointKernel"));
    if (a.d_rows) {
        const std::uint32_t quads = (L.map.numSlots + 3) / 4;
        clusterRowsKernel<<<(quads + 255) / 256, 256, 0, stream>>>(a.d_rows, std::uint32_t(numRows), 2 * tileWords,
                                                                   L.map.numSlots, L.d_counts);
        HS_TRY(launched("clusterRowsKernel"));
    }
    scratch.lastCluster = blocksPerCluster;
    ran = true;
    return Status::success();
}

}  // namespace

JointPlan planJoint(const Launch2D& L, const Device2D& device, const Tuning2D& tuning)
{
    JointPlan plan;
    const std::uint64_t slots = L.map.numSlots;
    const std::size_t budget = device.sharedOptin > kScopeSharedReserve ? device.sharedOptin - kScopeSharedReserve : 4096;
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
        JointArgs a{};
        void (*kernel)(JointArgs) = plan.packed16 ? jointKernel<T, C, true, Fast2D::None> : jointKernel<T, 0, false, Fast2D::None>;
        int threads = std::min(tuning.threads, 256);
        if constexpr (C > 0) {
            const Fast2D fast = tuning.fast ? jointFastForm(L, plan, a) : Fast2D::None;
            if (fast == Fast2D::Vectorscope)
                kernel = jointKernel<T, C, true, Fast2D::Vectorscope>;
            else if (fast == Fast2D::Channels)
                kernel = jointKernel<T, C, true, Fast2D::Channels>;
            if (fast != Fast2D::None)
                threads = 1024;  // one block per multiprocessor (its tile fills shared memory): many threads
            if (fast != Fast2D::None && tuning.cluster > 0 && L.map.numSlots == plan.tileSlots) {
                bool ran = false;
                if (fast == Fast2D::Vectorscope)
                    HS_TRY((launchClusterJoint<T, C, Fast2D::Vectorscope>(L, plan, a, scratch, device, tuning, stream, ran)));
                else
                    HS_TRY((launchClusterJoint<T, C, Fast2D::Channels>(L, plan, a, scratch, device, tuning, stream, ran)));
                if (ran)
                    return Status::success();
            }
        }
        scratch.lastCluster = 0;
        const void* entry = reinterpret_cast<const void*>(kernel);
        HS_TRY(scratch.cache.allowDynamicShared(entry, plan.sharedBytes, device.sharedOptin));
        int perSm = 0;
        HS_TRY(scratch.cache.blocksPerMultiprocessor(entry, threads, plan.sharedBytes, perSm));
        if (perSm < 1)
            return Status::error(ErrorCode::CudaError, "the joint kernel does not fit on a multiprocessor");
        const std::uint64_t resident = std::uint64_t(perSm) * std::uint64_t(device.multiprocessors);
        const std::uint64_t pixels = std::uint64_t(L.region.width) * std::uint64_t(L.region.rows);
        // Chunks: at most 65535 pixels with 16-bit counters (the bound), else a few per block.
        std::uint64_t target = plan.packed16 ? kPacked16Max : std::max<std::uint64_t>(1, (pixels + resident * 4 - 1) / (resident * 4));
        if (plan.packed16)
            target = std::min<std::uint64_t>(target, std::max<std::uint64_t>(4096, (pixels + resident - 1) / resident));
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
            kernel<<<unsigned(blocks), threads, plan.sharedBytes, stream>>>(a);
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


}  // namespace hs::detail
