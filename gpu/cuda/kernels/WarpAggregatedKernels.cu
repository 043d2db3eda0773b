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

struct WarpAggregatedFamily {
    static constexpr Strategy kStrategy = Strategy::WarpAggregated;
    static constexpr const char* kName = "privatizedKernel<warp-aggregated>";
    template <int C>
    __device__ static WarpAggregatedVisitor visitor(const KernelArgs& a) { return {a.tile_begin, a.tile_end - a.tile_begin}; }
};

}  // namespace

Status launchWarpAggregated(const KernelArgs& args, const LaunchContext& ctx)
{
    return launchPrivatized<WarpAggregatedFamily>(args, ctx);
}

}  // namespace hs::detail
