// `per-lane`: 8-bit samples counted with no atomics on the hot path. Every lane owns 256 byte
// counters per channel, and all of them sit in the lane's own bank: counter (value v, lane l) is
// byte v & 3 of word (v >> 2) * 32 + l of its warp's region, so a warp's 32 increments never
// collide whatever the data, and a lane's counters never meet another lane's. Counters are
// indexed by value, not by bin, so any binning of 8-bit data works: values become slots once per
// block at the end.
//
// Widening: a byte counter can take at most 255 increments. A lane adds at most 16 * kGroups
// samples per channel in one iteration, so the warp folds its counters into 32-bit registers every
// kFlushIterations iterations (<= 224 increments), reading them transposed: lane l sums rows 2l
// and 2l + 1 (values 8l .. 8l + 7) over the 32 columns, starting at column l so the 32 lanes hit
// 32 banks, four bytes per 32-bit word in two 16-bit halves (32 * 224 < 2^16). The 32-bit sums
// cannot overflow: a launch covers at most 2^30 samples (kMaxPieceSamples).
//
// Unaligned row heads and tails (at most 15 pixels each) go through the block's 32-bit value
// histogram in shared memory, which also gathers the warps' sums before the slots are published.
#include "../LaunchSupport.cuh"
#include "../SampleWalker.cuh"
#include "Kernels.h"

namespace hs::detail {

extern __shared__ std::uint32_t perLaneShared[];

namespace {

constexpr int kRegionWords = 64 * 32;  // one channel of one warp: 64 rows of 32 lanes' words

template <int C>
struct PerLaneShape {
    // 16-pixel groups per lane per iteration: enough bytes in flight per lane, few registers.
    static constexpr int kGroups = C == 1 ? 4 : 2;
    static constexpr int kFlushIterations = 255 / (16 * kGroups);
    // The largest block the counters can fill on any device (227 KiB of opt-in shared memory):
    // the launch bound lets the compiler budget registers for exactly that.
    static constexpr int kMaxWarps = C == 1 ? 32 : C == 2 ? 16 : C == 3 ? 10 : 8;
};

// Adds one pixel's C samples to the lane's byte counters. Each channel has its own region, so the
// C loads go out before the C stores: independent chains, where one counter would serialise.
template <int C>
__device__ __forceinline__ void countPixel(unsigned char* laneBase, const std::uint32_t (&value)[C])
{
    unsigned char* counter[C];
    unsigned char old[C];
#pragma unroll
    for (int c = 0; c < C; ++c) {
        counter[c] = laneBase + c * kRegionWords * 4 + ((value[c] & 0xfcu) << 5) + (value[c] & 3u);
        old[c] = *counter[c];
    }
#pragma unroll
    for (int c = 0; c < C; ++c)
        *counter[c] = static_cast<unsigned char>(old[c] + 1);
}

// Folds the warp's byte counters into each lane's 32-bit sums and clears them.
template <int C>
__device__ __forceinline__ void flushWarp(std::uint32_t* region, std::uint32_t (&sums)[C][8], int lane)
{
    __syncwarp();
#pragma unroll
    for (int c = 0; c < C; ++c)
#pragma unroll
        for (int rr = 0; rr < 2; ++rr) {
            std::uint32_t* row = region + c * kRegionWords + (2 * lane + rr) * 32;
            std::uint32_t even = 0, odd = 0;
#pragma unroll 8
            for (int t = 0; t < 32; ++t) {
                const int column = (lane + t) & 31;
                const std::uint32_t w = row[column];
                row[column] = 0;
                even += w & 0x00ff00ffu;
                odd += (w >> 8) & 0x00ff00ffu;
            }
            sums[c][4 * rr + 0] += even & 0xffffu;
            sums[c][4 * rr + 1] += odd & 0xffffu;
            sums[c][4 * rr + 2] += even >> 16;
            sums[c][4 * rr + 3] += odd >> 16;
        }
    __syncwarp();
}

template <int C>
__device__ __forceinline__ void countPixelShared(const unsigned char* pixel, std::uint32_t* blockHist)
{
#pragma unroll
    for (int c = 0; c < C; ++c)
        atomicAdd(blockHist + c * 256 + pixel[c], 1u);
}

template <int C>
__global__ void __launch_bounds__(PerLaneShape<C>::kMaxWarps * 32) perLaneKernel(KernelArgs a)
{
    using Shape = PerLaneShape<C>;
    constexpr int G = Shape::kGroups;
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int warpsPerBlock = blockDim.x >> 5;
    std::uint32_t* blockHist = perLaneShared;  // C * 256 values
    std::uint32_t* region = perLaneShared + C * 256 + warp * C * kRegionWords;
    unsigned char* laneBase = reinterpret_cast<unsigned char*>(region) + 4 * lane;
    __shared__ std::uint32_t blockExtrema[kExtremaWords];

    for (int i = threadIdx.x; i < C * 256; i += blockDim.x)
        blockHist[i] = 0;
    for (int i = lane; i < C * kRegionWords; i += 32)
        region[i] = 0;
    initBlockExtrema(blockExtrema);
    __syncthreads();

    std::uint32_t sums[C][8];
#pragma unroll
    for (int c = 0; c < C; ++c)
#pragma unroll
        for (int i = 0; i < 8; ++i)
            sums[c][i] = 0;
    int since = 0;  // iterations since the last flush: the same in every lane of the warp
    const std::int64_t warpIndex = std::int64_t(blockIdx.x) * warpsPerBlock + warp;
    const std::int64_t warpCount = std::int64_t(gridDim.x) * warpsPerBlock;
    const std::int64_t firstThread = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::int64_t threadCount = std::int64_t(gridDim.x) * blockDim.x;

    for (std::int64_t r = blockIdx.y; r < a.grid.rows; r += gridDim.y) {
        const unsigned char* row = a.grid.d_origin + std::size_t(r) * a.grid.pitch;
        const std::int64_t head = alignedHead(row, C, a.grid.width);
        const std::int64_t groups = (a.grid.width - head) / 16;
        const std::int64_t tail = head + groups * 16;
        for (std::int64_t i = firstThread; i < head; i += threadCount)
            countPixelShared<C>(row + i * C, blockHist);
        for (std::int64_t i = tail + firstThread; i < a.grid.width; i += threadCount)
            countPixelShared<C>(row + i * C, blockHist);

        const uint4* vec = reinterpret_cast<const uint4*>(row + head * C);
        for (std::int64_t base = warpIndex * 32 * G; base < groups; base += warpCount * 32 * G) {
            // All of the iteration's loads first, so they are in flight together.
            std::uint32_t words[G][4 * C];
#pragma unroll
            for (int k = 0; k < G; ++k) {
                const std::int64_t g = base + k * 32 + lane;
#pragma unroll
                for (int j = 0; j < C; ++j) {
                    const uint4 v = g < groups ? __ldg(vec + g * C + j) : make_uint4(0, 0, 0, 0);
                    words[k][4 * j + 0] = v.x;
                    words[k][4 * j + 1] = v.y;
                    words[k][4 * j + 2] = v.z;
                    words[k][4 * j + 3] = v.w;
                }
            }
#pragma unroll
            for (int k = 0; k < G; ++k) {
                if (base + k * 32 + lane >= groups)
                    continue;
                const std::uint32_t* w = words[k];
                // 16 pixels of C bytes: pixel p's channel c is byte p * C + c of the group.
#pragma unroll
                for (int p = 0; p < 16; ++p) {
                    std::uint32_t value[C];
#pragma unroll
                    for (int c = 0; c < C; ++c) {
                        const int byte = p * C + c;
                        value[c] = (w[byte >> 2] >> (8 * (byte & 3))) & 0xffu;
                    }
                    countPixel<C>(laneBase, value);
                }
            }
            if (++since == Shape::kFlushIterations) {
                flushWarp<C>(region, sums, lane);
                since = 0;
            }
        }
    }
    if (since)
        flushWarp<C>(region, sums, lane);

#pragma unroll
    for (int c = 0; c < C; ++c)
#pragma unroll
        for (int i = 0; i < 8; ++i)
            if (sums[c][i])
                atomicAdd(blockHist + c * 256 + 8 * lane + i, sums[c][i]);
    __syncthreads();

    // Values become slots; each warp also finds the lowest and highest value it holds.
    for (int i = threadIdx.x; i < C * 256; i += blockDim.x) {
        const int c = i >> 8;
        const std::uint32_t v = std::uint32_t(i & 255);
        const std::uint32_t n = blockHist[i];
        const ChannelMap& m = a.map.ch[c];
        if (n && m.active)
            atomicAdd(a.d_slots + slotOf(m, std::uint8_t(v)), static_cast<unsigned long long>(n));
        const unsigned seen = __ballot_sync(0xffffffffu, n != 0);
        if (lane == 0 && seen) {
            atomicMin(blockExtrema + 2 * c, (v - std::uint32_t(lane)) + std::uint32_t(__ffs(seen) - 1));
            atomicMax(blockExtrema + 2 * c + 1, (v - std::uint32_t(lane)) + std::uint32_t(31 - __clz(seen)));
        }
    }
    __syncthreads();
    publishBlockExtrema<C>(a.map, blockExtrema, a.d_extrema);

    // The totals of the next call, cleared here instead of by a launch of their own.
    for (std::int64_t i = firstThread; i < std::int64_t(a.zero_words); i += threadCount)
        a.d_zero[i] = 0;
}

}  // namespace

bool perLaneCounts(const KernelArgs& args) { return args.type == SampleType::U8; }

std::size_t perLaneSharedBytes(int channels, int warps)
{
    return (std::size_t(channels) * 256 + std::size_t(warps) * channels * kRegionWords) * sizeof(std::uint32_t);
}

Status launchPerLane(const KernelArgs& args, const LaunchContext& ctx)
{
    if (!perLaneCounts(args))
        return Status::error(ErrorCode::UnsupportedStrategy,
                             "strategy 'per-lane' counts 8-bit samples only, not " + std::string(sampleTypeName(args.type)));
    return visitTypeAndChannels(args.type, args.channels, [&](auto, auto channels) -> Status {
        constexpr int C = decltype(channels)::value;
        const auto kernel = perLaneKernel<C>;
        const void* entry = reinterpret_cast<const void*>(kernel);
        std::size_t fixed = 0;
        HS_TRY(ctx.cache.staticSharedBytes(entry, fixed));
        // As many warps as the opt-in shared memory holds regions for, up to the table's cap.
        const std::size_t budget = ctx.props.sharedPerBlockOptin - fixed;
        int warps = std::min(ctx.tuning.perLaneMaxWarps, PerLaneShape<C>::kMaxWarps);
        while (warps > 1 && perLaneSharedBytes(C, warps) > budget)
            --warps;
        const std::size_t smem = perLaneSharedBytes(C, warps);
        if (smem > budget)
            return Status::error(ErrorCode::UnsupportedStrategy, "per-lane counters do not fit this device's shared memory");
        HS_TRY(ctx.cache.allowDynamicShared(entry, smem, ctx.props.sharedPerBlockOptin));
        dim3 blocks;
        HS_TRY(gridFor(entry, warps * 32, smem, args.grid, ctx, 16, blocks));
        kernel<<<blocks, warps * 32, smem, ctx.stream>>>(args);
        return lastLaunchStatus("perLaneKernel");
    });
}

}  // namespace hs::detail
