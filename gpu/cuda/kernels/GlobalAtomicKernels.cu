// `global-atomic`: one 64-bit global atomic per sample, the brief's first working version.
#include "../LaunchSupport.cuh"
#include "../SampleWalker.cuh"
#include "Kernels.h"

namespace hs::detail {

namespace {

struct GlobalAtomicVisitor {
    unsigned long long* d_slots;
    template <int C>
    __device__ void count(std::uint32_t slot) { atomicAdd(d_slots + slot, 1ull); }
};

template <typename T, int C, typename M>
__global__ void globalAtomicKernel(KernelArgs a)
{
    GlobalAtomicVisitor visitor{a.d_slots};
    typename M::template Tracker<C> tracker;
    walkSamples<T, C, M>(a.grid, a.map, visitor, tracker);
    tracker.publishWarp(a.map, a.d_extrema);
}

}  // namespace

Status launchGlobalAtomic(const KernelArgs& args, const LaunchContext& ctx)
{
    return visitCounting(args, [&](auto tag, auto channels, auto mapper) -> Status {
        using T = decltype(tag);
        return launchOnGrid<T>(globalAtomicKernel<T, decltype(channels)::value, decltype(mapper)>, "globalAtomicKernel", args,
                               ctx, ctx.tuning.simpleThreads, 0);
    });
}

}  // namespace hs::detail
