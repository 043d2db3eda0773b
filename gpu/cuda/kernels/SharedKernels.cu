// `shared`: a block-private histogram in the default 48 KiB of shared memory, over a
// grid-stride loop. Slot sets larger than that are counted in tiles, one pass per tile.
#include "../LaunchSupport.cuh"
#include "../PrivatizedTally.cuh"
#include "Kernels.h"

namespace hs::detail {

namespace {

template <typename T, int C, typename M>
__global__ void sharedKernel(KernelArgs a)
{
    SharedTileVisitor visitor{a.tile_begin, a.tile_end - a.tile_begin};
    privatizedTally<T, C, M>(a, visitor, 1);
}

}  // namespace

Status launchShared(const KernelArgs& args, const LaunchContext& ctx)
{
    return visitCounting(args, [&](auto tag, auto channels, auto mapper) -> Status {
        using T = decltype(tag);
        constexpr int C = decltype(channels)::value;
        using M = decltype(mapper);
        return launchTiled<T>(sharedKernel<T, C, M>, "sharedKernel", args, ctx.props, ctx.tuning.threadsPerBlock, ctx.stream,
                              ctx.props.sharedPerBlock, 1);
    });
}

}  // namespace hs::detail
