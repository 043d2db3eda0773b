// `per-lane`: 8-bit samples counted in lane columns. Every (channel, value) has 32 counters of
// its block, one per lane, at word (channel * 256 + value) * 32 + lane: a warp's 32 updates land
// in 32 banks whatever the data, and equal values in one warp never share an address. Updates are
// shared atomics whose result nobody reads, so no update waits on another (the byte counters this
// replaced were a load and a store per sample, each waiting on the last: issue-bound at 2x the
// read probe). Counters are indexed by value, not by bin, so any binning of 8-bit data works:
// values become slots once per block at the end.
//
// Feeding it: a row is a stream of bytes, byte b of channel b % C, so it splits into a head up to
// the first 16-byte boundary (under 16 bytes, whatever the pixel size and address), 16-byte vectors
// and a tail. A vector's channels follow from its position (its phase), so vectors need not hold
// whole pixels. A contiguous frame (one long row) is read in steps interleaved over all warps; a
// frame of many rows in contiguous parts of rows, about four per warp. While a step is counted,
// the loads of the next one or two are in flight; the first steps' loads are issued before the
// counters are cleared. Whole steps are counted without bound checks; only the one step that a
// range's end cuts is checked. scripts/u8_variants.cu measured the loop's shapes on the H200 first
// (issue 21).
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
    // 16-byte vectors per lane per step, and steps in flight while one is counted; one resident
    // block of 1,024 threads of up to 64 registers. H200, scripts/u8_variants.cu on 64 MiB of
    // bytes (session 13): 64 bytes in flight a lane in one block took 22.7 us of kernel time, 32
    // in each of two blocks of 32 registers 24.3 (the probe 21.8). Small steps with more of them
    // ahead keep those bytes in flight and shorten the kernel's end: the last step is counted
    // after the last load has landed, with nothing left to overlap (a 4K RGB frame is under four
    // steps of 48 bytes a lane).
    static constexpr int kStepVecs = C <= 2 ? 2 : 1;
    static constexpr int kAhead = C <= 2 ? 2 : 3;
    static constexpr std::uint32_t kStepVectors = 32 * kStepVecs;  // a warp's step
    static constexpr std::uint32_t kWords = C * 256 * 32;
    static constexpr int kBlocksPerMultiprocessor = 1;
};

template <int C>
using Step = uint4[LaneColumnShape<C>::kStepVecs];

// Channel of the first byte of vector j of a row whose head holds headBytes: 16 = 1 (mod 3), and
// 16 = 0 (mod 1, 2, 4).
template <int C>
__device__ __forceinline__ std::uint32_t vectorPhase(std::uint32_t headBytes, std::uint32_t j)
{
    if constexpr (C == 3)
        return (headBytes + j) % 3u;
    else
        return headBytes & std::uint32_t(C - 1);
}

// Byte p of a vector of phase `phase` counts in columns + lanes[p % C] + value * 32.
template <int C>
__device__ __forceinline__ void laneColumns(std::uint32_t* (&lanes)[C], std::uint32_t* columns, std::uint32_t lane,
                                            std::uint32_t phase)
{
#pragma unroll
    for (int k = 0; k < C; ++k) {
        const std::uint32_t c = C == 3 ? (phase + k >= 3 ? phase + k - 3 : phase + k) : (phase + k) & std::uint32_t(C - 1);
        lanes[k] = columns + (c << 13) + lane;
    }
}

template <int C>
__device__ __forceinline__ void countVector(std::uint32_t* const (&lanes)[C], const uint4& v)
{
    const std::uint32_t words[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int p = 0; p < 16; ++p)
        atomicAdd(lanes[p % C] + (((words[p >> 2] >> (8 * (p & 3))) & 0xffu) << 5), 1u);
}

// The row as bytes: its head (to the first 16-byte boundary), whole vectors, and the tail.
struct RowShape {
    std::uint32_t headBytes;
    std::uint32_t vectors;
    std::uint32_t bytes;
};

template <int C>
__device__ __forceinline__ RowShape rowShape(const unsigned char* row, std::int64_t width)
{
    const std::uint32_t bytes = std::uint32_t(width * C);  // <= 2^30 (kMaxPieceSamples)
    const std::uint32_t head = min(bytes, (16u - std::uint32_t(reinterpret_cast<std::uintptr_t>(row) & 15u)) & 15u);
    return {head, (bytes - head) / 16u, bytes};
}

template <int C>
__device__ __forceinline__ void countRowEnds(std::uint32_t* columns, std::uint32_t lane, const unsigned char* row,
                                             const RowShape& shape)
{
    for (std::uint32_t b = lane; b < shape.headBytes; b += 32)
        atomicAdd(columns + (((b % C) * 256u + __ldg(row + b)) << 5) + lane, 1u);
    for (std::uint32_t b = shape.headBytes + shape.vectors * 16u + lane; b < shape.bytes; b += 32)
        atomicAdd(columns + (((b % C) * 256u + __ldg(row + b)) << 5) + lane, 1u);
}

// Vectors s + k * 32 + lane of the step that starts at vector s; checked, only those below end.
template <int C, bool Checked>
__device__ __forceinline__ void loadStep(Step<C>& v, const uint4* vec, std::uint32_t s, std::uint32_t end, std::uint32_t lane)
{
#pragma unroll
    for (int k = 0; k < LaneColumnShape<C>::kStepVecs; ++k) {
        const std::uint32_t j = s + k * 32 + lane;
        v[k] = (!Checked || j < end) ? __ldg(vec + j) : make_uint4(0, 0, 0, 0);
    }
}

// Three channels find each vector's columns from its phase; the others once a range (`lanes`).
template <int C, bool Checked>
__device__ __forceinline__ void countStep(std::uint32_t* columns, std::uint32_t* const (&lanes)[C], const Step<C>& v,
                                          std::uint32_t s, std::uint32_t end, std::uint32_t lane, std::uint32_t headBytes)
{
#pragma unroll
    for (int k = 0; k < LaneColumnShape<C>::kStepVecs; ++k) {
        const std::uint32_t j = s + k * 32 + lane;
        if (Checked && j >= end)
            continue;
        if constexpr (C == 3) {
            std::uint32_t* vectorLanes[3];
            laneColumns<3>(vectorLanes, columns, lane, vectorPhase<3>(headBytes, j));
            countVector<3>(vectorLanes, v[k]);
        } else {
            countVector<C>(lanes, v[k]);
        }
    }
}

// A step is whole when all its vectors lie below end; the bound checks cost the engine's kernel
// 12-15 % against the same loop without them (u8_variants, session 13: 64 MiB of bytes 27.2
// against 24.3 us, an 8K RGB frame 37.0 against 32.3).
__device__ __forceinline__ bool wholeStep(std::uint32_t s, std::uint32_t end, std::uint32_t stepVectors)
{
    return end >= stepVectors && s <= end - stepVectors;
}

template <int C>
struct Pipeline {
    Step<C> ring[LaneColumnShape<C>::kAhead];  // the next steps' vectors, nearest first
};

// The first kAhead steps' loads (begin, begin + stride, ...), those that are whole; issued before
// the block clears its counters, so that their latency hides the clear.
template <int C>
__device__ __forceinline__ void primeSteps(Pipeline<C>& p, const uint4* vec, std::uint32_t begin, std::uint32_t end,
                                           std::uint32_t stride, std::uint32_t lane)
{
    using Shape = LaneColumnShape<C>;
#pragma unroll
    for (int a = 0; a < Shape::kAhead; ++a) {
        const std::uint32_t s = begin + std::uint32_t(a) * stride;
        if (s >= begin && wholeStep(s, end, Shape::kStepVectors))  // s >= begin: no wrap past 2^32
            loadStep<C, false>(p.ring[a], vec, s, end, lane);
    }
}

// Steps at begin, begin + stride, ... below end, primed by primeSteps. A row holds at most 2^30
// samples (kMaxPieceSamples): its vector numbers fit 32 bits.
template <int C>
__device__ __forceinline__ void countRange(std::uint32_t* columns, std::uint32_t lane, const uint4* vec, Pipeline<C>& p,
                                           std::uint32_t begin, std::uint32_t end, std::uint32_t stride,
                                           std::uint32_t headBytes)
{
    using Shape = LaneColumnShape<C>;
    constexpr int kAhead = Shape::kAhead;
    std::uint32_t* lanes[C];
    laneColumns<C>(lanes, columns, lane, C == 3 ? 0u : vectorPhase<C>(headBytes, 0));
    // The step kAhead strides on, if it is whole, joins the ring as this one is counted.
    const std::uint64_t aheadSpan = std::uint64_t(kAhead) * stride;
    std::uint32_t s = begin;
    while (wholeStep(s, end, Shape::kStepVectors)) {
        const bool load = end - Shape::kStepVectors - s >= aheadSpan;  // s is whole: no wrap
        Step<C> incoming;
        if (load)
            loadStep<C, false>(incoming, vec, s + std::uint32_t(kAhead) * stride, end, lane);
        countStep<C, false>(columns, lanes, p.ring[0], s, end, lane, headBytes);
#pragma unroll
        for (int a = 0; a + 1 < kAhead; ++a)
#pragma unroll
            for (int k = 0; k < Shape::kStepVecs; ++k)
                p.ring[a][k] = p.ring[a + 1][k];
#pragma unroll
        for (int k = 0; k < Shape::kStepVecs; ++k)
            p.ring[kAhead - 1][k] = incoming[k];
        s += stride;
    }
    if (s < end) {
        Step<C> last;
        loadStep<C, true>(last, vec, s, end, lane);
        countStep<C, true>(columns, lanes, last, s, end, lane, headBytes);
    }
}

template <int C>
__global__ void __launch_bounds__(1024, LaneColumnShape<C>::kBlocksPerMultiprocessor) perLaneKernel(KernelArgs a)
{
    using Shape = LaneColumnShape<C>;
    std::uint32_t* columns = perLaneShared;
    __shared__ std::uint32_t blockExtrema[kExtremaWords];
    __shared__ std::uint32_t valueCounts[C * 256];

    const std::uint32_t lane = threadIdx.x & 31u;
    const std::int64_t warp = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    const std::int64_t warps = (std::int64_t(gridDim.x) * blockDim.x) >> 5;
    const std::int64_t rows = a.grid.rows;
    // One long row (a contiguous frame): step k of warp w is the row's step k * warps + w, so the
    // warps read one stretch of memory together and a warp's loads never restart.
    const unsigned char* row = a.grid.d_origin;
    const RowShape shape = rows == 1 ? rowShape<C>(row, a.grid.width) : RowShape{0, 0, 0};
    const uint4* vec = reinterpret_cast<const uint4*>(row + shape.headBytes);
    const std::uint32_t begin = std::uint32_t(warp * Shape::kStepVectors);
    const std::uint32_t stride = std::uint32_t(warps * Shape::kStepVectors);
    Pipeline<C> pipeline;
    if (rows == 1)
        primeSteps<C>(pipeline, vec, begin, shape.vectors, stride, lane);

    uint4* words = reinterpret_cast<uint4*>(columns);
    for (std::uint32_t i = threadIdx.x; i < Shape::kWords / 4; i += blockDim.x)
        words[i] = make_uint4(0, 0, 0, 0);
    initBlockExtrema(blockExtrema);
    __syncthreads();

    if (rows == 1) {
        if (warp == 0)
            countRowEnds<C>(columns, lane, row, shape);
        countRange<C>(columns, lane, vec, pipeline, begin, shape.vectors, stride, shape.headBytes);
    } else {
        // Rows are cut in contiguous parts, about four per warp, whatever their number.
        const std::int64_t parts = max(std::int64_t(1), (4 * warps + rows - 1) / rows);
        for (std::int64_t item = warp; item < rows * parts; item += warps) {
            const std::int64_t r = item / parts, part = item - r * parts;
            const unsigned char* partRow = a.grid.d_origin + std::size_t(r) * a.grid.pitch;
            const RowShape partShape = rowShape<C>(partRow, a.grid.width);
            if (part == 0)
                countRowEnds<C>(columns, lane, partRow, partShape);
            const uint4* partVec = reinterpret_cast<const uint4*>(partRow + partShape.headBytes);
            const std::uint32_t from = std::uint32_t(std::uint64_t(partShape.vectors) * part / parts);
            const std::uint32_t to = std::uint32_t(std::uint64_t(partShape.vectors) * (part + 1) / parts);
            primeSteps<C>(pipeline, partVec, from, to, Shape::kStepVectors, lane);
            countRange<C>(columns, lane, partVec, pipeline, from, to, Shape::kStepVectors, partShape.headBytes);
        }
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
    // Where every value has a slot of its own (256 bins a channel), there is nothing to gather.
    const std::uint32_t slots = a.map.num_slots;
    const bool gathered = slots < C * 256u;
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
        // A persistent grid, no larger than the work: a step of every lane covers kStepVecs
        // vectors of 16 bytes.
        const std::int64_t bytes = args.grid.rows * args.grid.width * C;
        const std::int64_t blockBytes = std::int64_t(threads) * Shape::kStepVecs * 16;
        const std::int64_t needed = std::max<std::int64_t>(1, (bytes + blockBytes - 1) / blockBytes);
        const int blocks = int(std::min<std::int64_t>(needed, std::int64_t(perMultiprocessor) * ctx.props.multiprocessors));
        kernel<<<blocks, threads, smem, ctx.stream>>>(args);
        return lastLaunchStatus("perLaneKernel");
    });
}

}  // namespace hs::detail
