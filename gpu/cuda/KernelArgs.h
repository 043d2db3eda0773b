// Plain data handed from the dispatcher to every kernel family.
#pragma once

#include "../src/SlotMapping.h"
#include "CudaCheck.h"
#include "histoscope/HistogramTypes.h"

#include <cstddef>
#include <cstdint>

namespace hs::detail {

// One piece of the counted region on the device: rows of `width` interleaved pixels.
// A piece never holds more than kMaxPieceSamples samples, which bounds every 32-bit counter.
struct SampleGrid {
    const unsigned char* d_origin = nullptr;
    std::size_t pitch = 0;
    std::int64_t width = 0;
    std::int64_t rows = 0;
};

inline constexpr std::uint64_t kMaxPieceSamples = std::uint64_t(1) << 30;

// Shared memory a block-private kernel declares statically (its block's extremes), kept free
// when deciding whether a slot set fits opt-in shared memory in one pass.
inline constexpr std::size_t kStaticSharedReserve = 256;

struct DeviceProps {
    int computeMajor = 0;
    int multiprocessors = 1;
    std::size_t sharedPerBlock = 48 * 1024;
    std::size_t sharedPerBlockOptin = 48 * 1024;
    std::size_t sharedPerMultiprocessor = 64 * 1024;
    int maxThreadsPerMultiprocessor = 1024;
};

struct KernelArgs {
    SampleType type = SampleType::U8;
    int channels = 1;
    SampleGrid grid;
    SlotMap map;
    unsigned long long* d_slots = nullptr;  // 64-bit totals, map.num_slots of them
    unsigned long long* d_extrema = nullptr;  // kExtremaWords encoded extremes (SlotMapping.h)
    std::uint32_t tile_begin = 0;           // slots [tile_begin, tile_end) are counted this launch
    std::uint32_t tile_end = 0;
    std::uint32_t replicas = 1;             // counters per slot in a block (`replicated`), a power of two
    std::uint32_t hot_slot = 0xffffffffu;   // `run-length`: the sampled heaviest slot
    const std::uint32_t* d_hot_keys = nullptr;  // `large-bins`: direct-mapped hot-slot table
    std::uint32_t hot_entries = 0;
    // `partition`'s split: rank a warp whose samples share a bucket with one atomic
    // (ArchTuning::partitionSplitWarpRuns says where; CudaBackend::enqueue decides)
    bool split_warp_runs = true;
    unsigned long long* d_zero = nullptr;   // the next call's totals, cleared in this launch (clearsNextTotals)
    std::uint32_t zero_words = 0;
};

}  // namespace hs::detail
