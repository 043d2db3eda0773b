// `shared`: a block-private histogram in the default 48 KiB of shared memory, over a
// grid-stride loop. Slot sets larger than that are counted in tiles, one pass per tile.
#include "../PrivatizedTally.cuh"
#include "Kernels.h"

namespace hs::detail {

namespace {

struct SharedFamily {
    static constexpr Strategy kStrategy = Strategy::Shared;
    static constexpr const char* kName = "privatizedKernel<shared>";
    template <int C>
    __device__ static SharedTileVisitor visitor(const KernelArgs& a) { return {a.tile_begin, a.tile_end - a.tile_begin}; }
};

}  // namespace

Status launchShared(const KernelArgs& args, const LaunchContext& ctx) { return launchPrivatized<SharedFamily>(args, ctx); }

}  // namespace hs::detail
