// `per-lane`: 8-bit samples counted with no atomics on the hot path. Every lane owns 256 byte
// counters, all in the lane's own bank: counter (value v, lane l) is byte v & 3 of word
// (v >> 2) * 32 + l of its warp's 8 KiB region, so a warp's 32 increments never collide whatever
// the data. Counters are indexed by value, not by bin, so any binning of 8-bit data works: values
// become slots once per block at the end.
//
// Channels: warps work in teams of C, warp c of a team counting channel c of the same 16-pixel
// groups. Each warp then needs one region whatever C is, so a block keeps ~28 warps resident for
// latency hiding (one region per channel per warp left 6 to 9 and ran latency-bound: 14 % warps
// active on 4K RGB, Nsight Compute, 2026-11-30). A team reads its groups C times, from L2.
//
// Widening: a byte counter can take at most 255 increments. A lane adds at most 16 * kGroups
// samples per iteration, so the warp folds its counters into 32-bit registers every
// kFlushIterations iterations (<= 240 increments), reading them transposed: lane l sums rows 2l
// and 2l + 1 (values 8l .. 8l + 7) over the 32 columns, starting at column l so the 32 lanes hit
// 32 banks, four bytes per 32-bit word in two 16-bit halves (32 * 240 < 2^16). The 32-bit sums
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

constexpr std::uint32_t kRegionBytes = 64 * 32 * 4;  // one warp: 64 rows of 32 lanes' words

template <int C>
struct PerLaneShape {
    // 16-pixel groups per lane per iteration: about four 16-byte loads in flight per lane.
    static constexpr int kGroups = C == 1 ? 4 : C == 2 ? 2 : 1;
    static constexpr int kFlushIterations = 255 / (16 * kGroups);
};

// Counts channel Ch of the lane's 16-pixel group (4 * C words) into its byte counters. The
// value's bits 2..7 pick the row (offset bits 7..12) and bits 0..1 the byte; the lane's column
// (bits 2..6) and the warp's region (bits 13 and up) are already in laneOffset: no bits overlap.
template <int C, int Ch>
__device__ __forceinline__ void countGroup(unsigned char* bytes, std::uint32_t laneOffset, const std::uint32_t* w)
{
#pragma unroll
    for (int p = 0; p < 16; ++p) {
        const int byte = p * C + Ch;
        const std::uint32_t x = w[byte >> 2] >> (8 * (byte & 3));
        const std::uint32_t offset = laneOffset | ((x << 5) & 0x1f80u) | (x & 3u);
        bytes[offset] = static_cast<unsigned char>(bytes[offset] + 1);
    }
}

template <int C>
__device__ __forceinline__ void countGroupChannel(int channel, unsigned char* bytes, std::uint32_t laneOffset,
                                                  const std::uint32_t* w)
{
    // `channel` is the same across the warp: the branch never diverges.
    if constexpr (C == 1) {
        countGroup<C, 0>(bytes, laneOffset, w);
    } else {
        switch (channel) {
        case 0: countGroup<C, 0>(bytes, laneOffset, w); break;
        case 1: countGroup<C, 1>(bytes, laneOffset, w); break;
        case 2: if constexpr (C > 2) countGroup<C, 2>(bytes, laneOffset, w); break;
        default: if constexpr (C > 3) countGroup<C, 3>(bytes, laneOffset, w); break;
        }
    }
}

// Folds the warp's byte counters into each lane's 32-bit sums and clears them.
__device__ __forceinline__ void flushWarp(std::uint32_t* region, std::uint32_t (&sums)[8], int lane)
{
    __syncwarp();
#pragma unroll
    for (int rr = 0; rr < 2; ++rr) {
        std::uint32_t* row = region + (2 * lane + rr) * 32;
        std::uint32_t even = 0, odd = 0;
#pragma unroll 8
        for (int t = 0; t < 32; ++t) {
            const int column = (lane + t) & 31;
            const std::uint32_t w = row[column];
            row[column] = 0;
            even += w & 0x00ff00ffu;
            odd += (w >> 8) & 0x00ff00ffu;
        }
        sums[4 * rr + 0] += even & 0xffffu;
        sums[4 * rr + 1] += odd & 0xffffu;
        sums[4 * rr + 2] += even >> 16;
        sums[4 * rr + 3] += odd >> 16;
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
__global__ void __launch_bounds__(1024) perLaneKernel(KernelArgs a)
{
    using Shape = PerLaneShape<C>;
    constexpr int G = Shape::kGroups;
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int warpsPerBlock = blockDim.x >> 5;  // a multiple of C
    const int channel = warp % C;
    unsigned char* bytes = reinterpret_cast<unsigned char*>(perLaneShared);
    std::uint32_t* region = perLaneShared + warp * (kRegionBytes / 4);
    std::uint32_t* blockHist = perLaneShared + warpsPerBlock * (kRegionBytes / 4);  // C * 256 values
    const std::uint32_t laneOffset = std::uint32_t(warp) * kRegionBytes + 4u * std::uint32_t(lane);
    __shared__ std::uint32_t blockExtrema[kExtremaWords];

    for (int i = threadIdx.x; i < C * 256; i += blockDim.x)
        blockHist[i] = 0;
    for (int i = lane; i < int(kRegionBytes / 4); i += 32)
        region[i] = 0;
    initBlockExtrema(blockExtrema);
    __syncthreads();

    std::uint32_t sums[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int since = 0;  // iterations since the last flush: the same in every lane of the warp
    const int teamsPerBlock = warpsPerBlock / C;
    const std::int64_t team = std::int64_t(blockIdx.x) * teamsPerBlock + warp / C;
    const std::int64_t teamCount = std::int64_t(gridDim.x) * teamsPerBlock;
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
        for (std::int64_t base = team * 32 * G; base < groups; base += teamCount * 32 * G) {
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
            for (int k = 0; k < G; ++k)
                if (base + k * 32 + lane < groups)
                    countGroupChannel<C>(channel, bytes, laneOffset, words[k]);
            if (++since == Shape::kFlushIterations) {
                flushWarp(region, sums, lane);
                since = 0;
            }
        }
    }
    if (since)
        flushWarp(region, sums, lane);

#pragma unroll
    for (int i = 0; i < 8; ++i)
        if (sums[i])
            atomicAdd(blockHist + channel * 256 + 8 * lane + i, sums[i]);
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
            atomicMin(blockExtrema + 2 * c, v + std::uint32_t(__ffs(seen) - 1));
            atomicMax(blockExtrema + 2 * c + 1, v + std::uint32_t(31 - __clz(seen)));
        }
    }
    __syncthreads();
    publishBlockExtrema<C>(a.map, blockExtrema, a.d_extrema);

    clearNextTotals(a);
}

std::size_t perLaneSharedBytes(int channels, int warps)
{
    return std::size_t(warps) * kRegionBytes + std::size_t(channels) * 256 * sizeof(std::uint32_t);
}

}  // namespace

Status launchPerLane(const KernelArgs& args, const LaunchContext& ctx)
{
    if (args.type != SampleType::U8)
        return Status::error(ErrorCode::UnsupportedStrategy,
                             "strategy 'per-lane' counts 8-bit samples only, not " + std::string(sampleTypeName(args.type)));
    return visitTypeAndChannels(args.type, args.channels, [&](auto, auto channels) -> Status {
        constexpr int C = decltype(channels)::value;
        const auto kernel = perLaneKernel<C>;
        const void* entry = reinterpret_cast<const void*>(kernel);
        std::size_t fixed = 0;
        HS_TRY(ctx.cache.staticSharedBytes(entry, fixed));
        // As many whole teams as the opt-in shared memory holds regions for, up to the table's cap.
        const std::size_t budget = ctx.props.sharedPerBlockOptin - fixed;
        int warps = std::min(ctx.tuning.perLaneMaxWarps, 32) / C * C;
        while (warps > C && perLaneSharedBytes(C, warps) > budget)
            warps -= C;
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
