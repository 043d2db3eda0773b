// `large-bins`: slot sets beyond the default 48 KiB. While they fit the device's opt-in shared
// memory, one block-private pass with dynamic shared memory; beyond that, no tiling (which
// would reread the input once per tile) but a shared hot-slot cache in front of 64-bit global
// atomics for the long tail. The cache is direct-mapped and filled from a sample by frequency.
#include "../LaunchSupport.cuh"
#include "../PrivatizedTally.cuh"
#include "Kernels.h"

namespace hs::detail {

namespace {

template <typename T, int C, typename M>
__global__ void largeBinsPrivateKernel(KernelArgs a)
{
    SharedTileVisitor visitor{a.tile_begin, a.tile_end - a.tile_begin};
    privatizedTally<T, C, M>(a, visitor, 1);
}

struct HotCacheVisitor {
    const std::uint32_t* keys;
    std::uint32_t* counts;
    std::uint32_t mask;
    unsigned long long* d_slots;
    template <int C>
    __device__ void count(std::uint32_t slot)
    {
        const std::uint32_t e = slot & mask;
        if (keys[e] == slot)
            atomicAdd(counts + e, 1u);
        else
            atomicAdd(d_slots + slot, 1ull);
    }
};

template <typename T, int C, typename M>
__global__ void hotCacheKernel(KernelArgs a)
{
    std::uint32_t* keys = sharedCounters;
    std::uint32_t* counts = sharedCounters + a.hot_entries;
    for (std::uint32_t i = threadIdx.x; i < a.hot_entries; i += blockDim.x) {
        keys[i] = a.d_hot_keys[i];
        counts[i] = 0;
    }
    __syncthreads();
    HotCacheVisitor visitor{keys, counts, a.hot_entries - 1, a.d_slots};
    walkSamples<T, C, M>(a.grid, a.map, visitor);
    __syncthreads();
    for (std::uint32_t i = threadIdx.x; i < a.hot_entries; i += blockDim.x)
        if (counts[i])
            atomicAdd(a.d_slots + keys[i], static_cast<unsigned long long>(counts[i]));
}

}  // namespace

Status launchLargeBins(const KernelArgs& args, const LaunchContext& ctx)
{
    return visitCounting(args, [&](auto tag, auto channels, auto mapper) -> Status {
        using T = decltype(tag);
        constexpr int C = decltype(channels)::value;
        using M = decltype(mapper);
        const std::size_t budget = ctx.props.sharedPerBlockOptin;
        const int threads = ctx.tuning.threadsPerBlock;
        dim3 blocks;
        if (std::size_t(args.map.num_slots) * sizeof(std::uint32_t) <= budget) {
            const auto kernel = largeBinsPrivateKernel<T, C, M>;
            const std::size_t smem = std::size_t(args.map.num_slots) * sizeof(std::uint32_t);
            HS_TRY(allowDynamicShared(reinterpret_cast<const void*>(kernel), smem));
            KernelArgs a = args;
            a.tile_begin = 0;
            a.tile_end = args.map.num_slots;
            HS_TRY(gridFor(reinterpret_cast<const void*>(kernel), threads, smem, a.grid, ctx.props, groupPixels<T>(), blocks));
            kernel<<<blocks, threads, smem, ctx.stream>>>(a);
            return lastLaunchStatus("largeBinsPrivateKernel");
        }
        if (!args.d_hot_keys || args.hot_entries == 0)
            return Status::error(ErrorCode::InvalidArgument, "large-bins needs a hot-slot table");
        const auto kernel = hotCacheKernel<T, C, M>;
        const std::size_t smem = std::size_t(args.hot_entries) * 2 * sizeof(std::uint32_t);
        HS_TRY(allowDynamicShared(reinterpret_cast<const void*>(kernel), smem));
        HS_TRY(gridFor(reinterpret_cast<const void*>(kernel), threads, smem, args.grid, ctx.props, groupPixels<T>(), blocks));
        kernel<<<blocks, threads, smem, ctx.stream>>>(args);
        return lastLaunchStatus("hotCacheKernel");
    });
}

}  // namespace hs::detail
