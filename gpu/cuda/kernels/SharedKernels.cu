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
        const auto kernel = sharedKernel<T, C, M>;
        const std::uint32_t tileSlots = std::uint32_t(ctx.props.sharedPerBlock / sizeof(std::uint32_t));
        return forEachTile(args.map.num_slots, tileSlots, [&](std::uint32_t begin, std::uint32_t end) -> Status {
            KernelArgs a = args;
            a.tile_begin = begin;
            a.tile_end = end;
            const std::size_t smem = std::size_t(end - begin) * sizeof(std::uint32_t);
            const int threads = ctx.tuning.threadsPerBlock;
            dim3 blocks;
            HS_TRY(gridFor(reinterpret_cast<const void*>(kernel), threads, smem, a.grid, ctx.props, groupPixels<T>(), blocks));
            kernel<<<blocks, threads, smem, ctx.stream>>>(a);
            return lastLaunchStatus("sharedKernel");
        });
    });
}

}  // namespace hs::detail
