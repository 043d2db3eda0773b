// `replicated`: R interleaved sub-histograms per block, lane l using copy l % R. Slot s of copy
// r lives at s * R + r, so with R = 32 every lane of a warp hits its own bank and equal slots
// never share an address: a hot bin no longer serialises the warp. R shrinks as bins grow.
#include "../LaunchSupport.cuh"
#include "../PrivatizedTally.cuh"
#include "Kernels.h"

namespace hs::detail {

namespace {

struct ReplicatedVisitor {
    std::uint32_t tileBegin;
    std::uint32_t tileSlots;
    std::uint32_t replicas;  // a power of two
    std::uint32_t copy;
    template <int C>
    __device__ void count(std::uint32_t slot)
    {
        const std::uint32_t s = slot - tileBegin;
        if (s < tileSlots)
            atomicAdd(sharedCounters + s * replicas + copy, 1u);
    }
    __device__ void flush() {}
};

template <typename T, int C, typename M>
__global__ void replicatedKernel(KernelArgs a, std::uint32_t replicas)
{
    ReplicatedVisitor visitor{a.tile_begin, a.tile_end - a.tile_begin, replicas, threadIdx.x & (replicas - 1)};
    privatizedTally<T, C, M>(a, visitor, int(replicas));
}

std::uint32_t floorPowerOfTwo(std::uint64_t v)
{
    std::uint32_t p = 1;
    while (std::uint64_t(p) * 2 <= v)
        p *= 2;
    return p;
}

}  // namespace

Status launchReplicated(const KernelArgs& args, const LaunchContext& ctx)
{
    return visitCounting(args, [&](auto tag, auto channels, auto mapper) -> Status {
        using T = decltype(tag);
        constexpr int C = decltype(channels)::value;
        using M = decltype(mapper);
        const std::size_t budget = ctx.props.sharedPerBlockOptin;
        const std::uint64_t fit = budget / (std::uint64_t(args.map.num_slots) * sizeof(std::uint32_t));
        const std::uint32_t replicas =
            floorPowerOfTwo(std::clamp<std::uint64_t>(fit, 1, std::uint64_t(ctx.tuning.replicasMax)));
        return launchTiled<T>(replicatedKernel<T, C, M>, "replicatedKernel", args, ctx.props, ctx.tuning.threadsPerBlock,
                              ctx.stream, budget, replicas, replicas);
    });
}

}  // namespace hs::detail
