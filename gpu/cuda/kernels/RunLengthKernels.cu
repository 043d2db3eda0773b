// `run-length`: each thread keeps, per channel, the slot it saw last and how many times in a
// row, and adds the run with one atomic when it ends. A heavy hitter found by sampling gets a
// register counter of its own, so a 90%-one-bin frame issues almost no atomics at all.
#include "../LaunchSupport.cuh"
#include "../PrivatizedTally.cuh"
#include "Kernels.h"

namespace hs::detail {

namespace {

template <int NumChannels>
struct RunLengthVisitor {
    std::uint32_t tileBegin;
    std::uint32_t tileSlots;
    std::uint32_t hot;
    std::uint32_t hotCount = 0;
    std::uint32_t current[NumChannels];
    std::uint32_t run[NumChannels];

    __device__ RunLengthVisitor(std::uint32_t begin, std::uint32_t slots, std::uint32_t hotSlot)
        : tileBegin(begin), tileSlots(slots), hot(hotSlot)
    {
#pragma unroll
        for (int c = 0; c < NumChannels; ++c) {
            current[c] = 0xffffffffu;
            run[c] = 0;
        }
    }

    __device__ void add(std::uint32_t slot, std::uint32_t n)
    {
        const std::uint32_t s = slot - tileBegin;
        if (n && s < tileSlots)
            atomicAdd(sharedCounters + s, n);
    }

    template <int C>
    __device__ void count(std::uint32_t slot)
    {
        if (slot == hot) {
            ++hotCount;
        } else if (slot == current[C]) {
            ++run[C];
        } else {
            add(current[C], run[C]);
            current[C] = slot;
            run[C] = 1;
        }
    }

    __device__ void flush()
    {
#pragma unroll
        for (int c = 0; c < NumChannels; ++c)
            add(current[c], run[c]);
        add(hot, hotCount);
    }
};

struct RunLengthFamily {
    static constexpr Strategy kStrategy = Strategy::RunLength;
    static constexpr const char* kName = "privatizedKernel<run-length>";
    template <int C>
    __device__ static RunLengthVisitor<C> visitor(const KernelArgs& a)
    {
        return RunLengthVisitor<C>(a.tile_begin, a.tile_end - a.tile_begin, a.hot_slot);
    }
};

}  // namespace

Status launchRunLength(const KernelArgs& args, const LaunchContext& ctx) { return launchPrivatized<RunLengthFamily>(args, ctx); }

}  // namespace hs::detail
