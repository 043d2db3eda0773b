// Host-side helpers every kernel family uses to pick <T, C> and a launch shape.
#pragma once

#include "../src/RequestPlan.h"
#include "KernelArgs.h"
#include "SampleWalker.cuh"
#include "kernels/Kernels.h"

#include <algorithm>
#include <type_traits>

namespace hs::detail {

// Calls f(T{}, std::integral_constant<int, C>{}) for the request's sample type and channel count.
template <typename F>
Status visitTypeAndChannels(SampleType type, int channels, F&& f)
{
    return visitSampleType(type, [&](auto tag) -> Status {
        switch (channels) {
        case 1: return f(tag, std::integral_constant<int, 1>{});
        case 2: return f(tag, std::integral_constant<int, 2>{});
        case 3: return f(tag, std::integral_constant<int, 3>{});
        case 4: return f(tag, std::integral_constant<int, 4>{});
        }
        return Status::error(ErrorCode::InvalidArgument, "channel count outside 1..4");
    });
}

// True when every active channel bins one integer value per bin inside its type's 32 bits: the
// range [lo, lo + bins) within [0, 2^32) for unsigned samples, within [-2^31, 2^31) for int32
// (IdentityMapper's one compare is exact only there).
inline bool usesIdentityMapper(SampleType type, const SlotMap& map)
{
    std::int64_t first = 0, end = std::int64_t(1) << 32;
    if (type == SampleType::I32) {
        first = -(std::int64_t(1) << 31);
        end = std::int64_t(1) << 31;
    } else if (type != SampleType::U8 && type != SampleType::U16 && type != SampleType::U32) {
        return false;
    }
    for (int c = 0; c < map.num_channels; ++c) {
        const ChannelMap& m = map.ch[c];
        if (m.active && (m.mode != MapMode::Identity || m.ilo < first || m.ilo + std::int64_t(m.num_bins) > end))
            return false;
    }
    return true;
}

// Calls f(T{}, integral_constant<C>{}, Mapper{}) with the mapper the request allows.
template <typename F>
Status visitCounting(const KernelArgs& args, F&& f)
{
    const bool covered = extremaFromCounts(args.type, args.map);
    const bool identity = usesIdentityMapper(args.type, args.map);
    return visitTypeAndChannels(args.type, args.channels, [&](auto tag, auto channels) -> Status {
        using T = decltype(tag);
        if constexpr (std::is_same_v<T, std::uint8_t> || std::is_same_v<T, std::uint16_t>) {
            if (covered)
                return f(tag, channels, CoveredMapper{});
        }
        if (identity)
            return f(tag, channels, IdentityMapper{});
        return f(tag, channels, GeneralMapper{});
    });
}

template <typename T>
constexpr int groupPixels() { return 16 / int(sizeof(T)); }

// A persistent grid: as many blocks as stay resident, spread over rows first so that each
// block walks long stretches of one row, and never more than the work needs.
inline Status gridFor(const void* kernel, int threads, std::size_t smemBytes, const SampleGrid& grid,
                      const LaunchContext& ctx, int pixelsPerStep, dim3& blocks)
{
    int perMultiprocessor = 0;
    HS_TRY(ctx.cache.blocksPerMultiprocessor(kernel, threads, smemBytes, perMultiprocessor));
    if (perMultiprocessor < 1)
        return Status::error(ErrorCode::CudaError, "kernel does not fit on a multiprocessor");
    const std::int64_t resident = std::int64_t(perMultiprocessor) * ctx.props.multiprocessors;
    const std::int64_t steps = (grid.width + pixelsPerStep - 1) / pixelsPerStep;
    const std::int64_t neededX = std::max<std::int64_t>(1, (steps + threads - 1) / threads);
    std::int64_t y = std::clamp<std::int64_t>(std::min(grid.rows, resident), 1, 65535);
    std::int64_t x = std::clamp<std::int64_t>(resident / y, 1, neededX);
    x = std::min<std::int64_t>(x, 0x7fffffff);
    blocks = dim3(unsigned(x), unsigned(y), 1);
    return Status::success();
}

inline Status lastLaunchStatus(const char* kernelName)
{
    return cudaStatus(cudaGetLastError(), kernelName);
}

// One launch of a family's kernel on a persistent grid: the launch boilerplate, once.
template <typename T>
Status launchOnGrid(void (*kernel)(KernelArgs), const char* name, const KernelArgs& args, const LaunchContext& ctx,
                    int threads, std::size_t smemBytes)
{
    const void* entry = reinterpret_cast<const void*>(kernel);
    HS_TRY(ctx.cache.allowDynamicShared(entry, smemBytes, ctx.props.sharedPerBlockOptin));
    dim3 blocks;
    HS_TRY(gridFor(entry, threads, smemBytes, args.grid, ctx, groupPixels<T>(), blocks));
    kernel<<<blocks, threads, smemBytes, ctx.stream>>>(args);
    return lastLaunchStatus(name);
}

inline std::size_t sharedBudgetBytes(SharedBudget budget, const DeviceProps& props)
{
    return budget == SharedBudget::Default ? props.sharedPerBlock : props.sharedPerBlockOptin;
}

inline std::uint32_t floorPowerOfTwo(std::uint64_t v)
{
    std::uint32_t p = 1;
    while (std::uint64_t(p) * 2 <= v)
        p *= 2;
    return p;
}

// The next call's totals (KernelArgs::d_zero), cleared by the counting launch itself so that a
// frame costs one launch and one copy instead of a memset, a launch and a copy.
__device__ __forceinline__ void clearNextTotals(const KernelArgs& a)
{
    const std::int64_t first = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
    for (std::int64_t i = first; i < std::int64_t(a.zero_words); i += stride)
        a.d_zero[i] = 0;
}

}  // namespace hs::detail
