// `large-bins`: slot sets beyond the default 48 KiB. While they fit the device's opt-in shared
// memory, one block-private pass with dynamic shared memory; beyond that, no tiling (which
// would reread the input once per tile) but a shared hot-slot cache in front of 64-bit global
// atomics for the long tail. The cache is direct-mapped and filled from a sample by frequency.
#include "../LaunchSupport.cuh"
#include "../PrivatizedTally.cuh"
#include "Kernels.h"

namespace hs::detail {

namespace {

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

// Launched with the block-private block size (up to kPrivatizedThreadsMax): compiled to fit it, or a
// register-hungry instance (the general mapper's) would not launch at 1,024 threads at all.
template <typename T, int C, typename M>
__global__ void __launch_bounds__(kPrivatizedThreadsMax) hotCacheKernel(KernelArgs a)
{
    using Tracker = typename M::template Tracker<C>;
    __shared__ std::uint32_t blockExtrema[kExtremaWords];
    std::uint32_t* keys = sharedCounters;
    std::uint32_t* counts = sharedCounters + a.hot_entries;
    for (std::uint32_t i = threadIdx.x; i < a.hot_entries; i += blockDim.x) {
        keys[i] = a.d_hot_keys[i];
        counts[i] = 0;
    }
    initBlockExtrema(blockExtrema);
    __syncthreads();
    HotCacheVisitor visitor{keys, counts, a.hot_entries - 1, a.d_slots};
    Tracker tracker;
    walkSamples<T, C, M>(a.grid, a.map, visitor, tracker);
    tracker.foldIntoBlock(blockExtrema);
    __syncthreads();
    for (std::uint32_t i = threadIdx.x; i < a.hot_entries; i += blockDim.x)
        if (counts[i])
            atomicAdd(a.d_slots + keys[i], static_cast<unsigned long long>(counts[i]));
    if (Tracker::kTracks)
        publishBlockExtrema<C>(a.map, blockExtrema, a.d_extrema);
}

// The one-pass form runs through the table-driven launcher: its row's opt-in budget holds every
// slot, so the slot set is one tile.
struct LargeBinsPrivateFamily {
    static constexpr Strategy kStrategy = Strategy::LargeBins;
    static constexpr const char* kName = "privatizedKernel<large-bins>";
    template <int C>
    __device__ static SharedTileVisitor visitor(const KernelArgs& a) { return {a.tile_begin, a.tile_end - a.tile_begin}; }
};

}  // namespace

Status launchLargeBins(const KernelArgs& args, const LaunchContext& ctx)
{
    if (std::size_t(args.map.num_slots) * sizeof(std::uint32_t) + kStaticSharedReserve <= ctx.props.sharedPerBlockOptin)
        return launchPrivatized<LargeBinsPrivateFamily>(args, ctx);
    if (!args.d_hot_keys || args.hot_entries == 0)
        return Status::error(ErrorCode::InvalidArgument, "large-bins needs a hot-slot table");
    const std::size_t smem = std::size_t(args.hot_entries) * 2 * sizeof(std::uint32_t);
    return visitCounting(args, [&](auto tag, auto channels, auto mapper) -> Status {
        using T = decltype(tag);
        return launchOnGrid<T>(hotCacheKernel<T, decltype(channels)::value, decltype(mapper)>, "hotCacheKernel", args, ctx,
                               ctx.tuning.privatizedThreads, smem);
    });
}

}  // namespace hs::detail
