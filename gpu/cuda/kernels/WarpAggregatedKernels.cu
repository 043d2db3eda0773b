// `warp-aggregated`: lanes of a warp that hit the same slot are grouped (match_any through
// cooperative groups' labeled_partition) and one leader adds the group's size. On a skewed frame
// 32 shared atomics become one; on a uniform frame the grouping costs more than it saves.
#include "../LaunchSupport.cuh"
#include "../PrivatizedTally.cuh"
#include "Kernels.h"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

namespace hs::detail {

namespace {

struct WarpAggregatedVisitor {
    std::uint32_t tileBegin;
    std::uint32_t tileSlots;
    template <int C>
    __device__ void count(std::uint32_t slot)
    {
        const std::uint32_t s = slot - tileBegin;
        if (s < tileSlots) {
            const cg::coalesced_group active = cg::coalesced_threads();
            const cg::coalesced_group peers = cg::labeled_partition(active, s);
            if (peers.thread_rank() == 0)
                atomicAdd(sharedCounters + s, peers.size());
        }
    }
    __device__ void flush() {}
};

template <typename T, int C, typename M>
__global__ void warpAggregatedKernel(KernelArgs a)
{
    WarpAggregatedVisitor visitor{a.tile_begin, a.tile_end - a.tile_begin};
    privatizedTally<T, C, M>(a, visitor, 1);
}

}  // namespace

Status launchWarpAggregated(const KernelArgs& args, const LaunchContext& ctx)
{
    return visitCounting(args, [&](auto tag, auto channels, auto mapper) -> Status {
        using T = decltype(tag);
        constexpr int C = decltype(channels)::value;
        using M = decltype(mapper);
        return launchTiled<T>(warpAggregatedKernel<T, C, M>, "warpAggregatedKernel", args, ctx.props, ctx.tuning.threadsPerBlock, ctx.stream,
                              ctx.props.sharedPerBlockOptin, 1);
    });
}

}  // namespace hs::detail
