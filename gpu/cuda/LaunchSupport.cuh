// Host-side helpers every kernel family uses to pick <T, C> and a launch shape.
#pragma once

#include "../src/RequestPlan.h"
#include "KernelArgs.h"
#include "SampleWalker.cuh"

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

// True when every active channel bins one unsigned value per bin inside 32 bits.
inline bool usesIdentityMapper(SampleType type, const SlotMap& map)
{
    if (type != SampleType::U8 && type != SampleType::U16 && type != SampleType::U32)
        return false;
    for (int c = 0; c < map.num_channels; ++c) {
        const ChannelMap& m = map.ch[c];
        if (m.active && (m.mode != MapMode::Identity || m.ilo < 0 || m.ilo + std::int64_t(m.num_bins) > (std::int64_t(1) << 32)))
            return false;
    }
    return true;
}

// Calls f(T{}, integral_constant<C>{}, Mapper{}) with the mapper the request allows.
template <typename F>
Status visitCounting(const KernelArgs& args, F&& f)
{
    const bool identity = usesIdentityMapper(args.type, args.map);
    return visitTypeAndChannels(args.type, args.channels, [&](auto tag, auto channels) -> Status {
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
                      const DeviceProps& props, int pixelsPerStep, dim3& blocks)
{
    int perMultiprocessor = 0;
    HS_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perMultiprocessor, kernel, threads, smemBytes));
    if (perMultiprocessor < 1)
        return Status::error(ErrorCode::CudaError, "kernel does not fit on a multiprocessor");
    const std::int64_t resident = std::int64_t(perMultiprocessor) * props.multiprocessors;
    const std::int64_t steps = (grid.width + pixelsPerStep - 1) / pixelsPerStep;
    const std::int64_t neededX = std::max<std::int64_t>(1, (steps + threads - 1) / threads);
    std::int64_t y = std::clamp<std::int64_t>(std::min(grid.rows, resident), 1, 65535);
    std::int64_t x = std::clamp<std::int64_t>(resident / y, 1, neededX);
    x = std::min<std::int64_t>(x, 0x7fffffff);
    blocks = dim3(unsigned(x), unsigned(y), 1);
    return Status::success();
}

inline Status allowDynamicShared(const void* kernel, std::size_t bytes)
{
    if (bytes > 48 * 1024)
        HS_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
    return Status::success();
}

inline Status lastLaunchStatus(const char* kernelName)
{
    return cudaStatus(cudaGetLastError(), kernelName);
}

// Slot tiles of at most `tileSlots`, covering [0, numSlots): each tile rereads the input.
template <typename F>
Status forEachTile(std::uint32_t numSlots, std::uint32_t tileSlots, F&& f)
{
    for (std::uint32_t begin = 0; begin < numSlots; begin += tileSlots)
        HS_TRY(f(begin, std::min(numSlots, begin + tileSlots)));
    return Status::success();
}

// Launches a block-private kernel once per slot tile that fits `budget` bytes of shared memory,
// `wordsPerSlot` 32-bit counters per slot. `extra` follows KernelArgs in the kernel's parameters.
template <typename T, typename... Extra>
Status launchTiled(void (*kernel)(KernelArgs, Extra...), const char* name, const KernelArgs& args,
                   const DeviceProps& props, int threads, cudaStream_t stream, std::size_t budget,
                   std::uint32_t wordsPerSlot, Extra... extra)
{
    HS_TRY(allowDynamicShared(reinterpret_cast<const void*>(kernel), budget));
    const std::uint32_t tileSlots = std::uint32_t(budget / (sizeof(std::uint32_t) * wordsPerSlot));
    return forEachTile(args.map.num_slots, tileSlots, [&](std::uint32_t begin, std::uint32_t end) -> Status {
        KernelArgs a = args;
        a.tile_begin = begin;
        a.tile_end = end;
        const std::size_t smem = std::size_t(end - begin) * wordsPerSlot * sizeof(std::uint32_t);
        dim3 blocks;
        HS_TRY(gridFor(reinterpret_cast<const void*>(kernel), threads, smem, a.grid, props, groupPixels<T>(), blocks));
        kernel<<<blocks, threads, smem, stream>>>(a, extra...);
        return lastLaunchStatus(name);
    });
}

}  // namespace hs::detail
