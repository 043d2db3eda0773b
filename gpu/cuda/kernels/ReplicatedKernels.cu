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

struct ReplicatedFamily {
    static constexpr Strategy kStrategy = Strategy::Replicated;
    static constexpr const char* kName = "privatizedKernel<replicated>";
    template <int C>
    __device__ static ReplicatedVisitor visitor(const KernelArgs& a)
    {
        return {a.tile_begin, a.tile_end - a.tile_begin, a.replicas, threadIdx.x & (a.replicas - 1)};
    }
};

}  // namespace

Status launchReplicated(const KernelArgs& args, const LaunchContext& ctx) { return launchPrivatized<ReplicatedFamily>(args, ctx); }

}  // namespace hs::detail
