// One launcher per kernel family. Each takes the whole piece, picks <T, C>, its launch shape
// and its slot tiles, and returns the first CUDA error it meets.
#pragma once

#include "../DeviceMemory.h"
#include "../KernelArgs.h"
#include "../LaunchCache.h"
#include "../Tuning.h"

namespace hs::detail {

struct LaunchContext {
    const DeviceProps& props;
    const ArchTuning& tuning;
    cudaStream_t stream;
    LaunchCache& cache;
};

Status launchGlobalAtomic(const KernelArgs& args, const LaunchContext& ctx);
Status launchShared(const KernelArgs& args, const LaunchContext& ctx);
Status launchWarpAggregated(const KernelArgs& args, const LaunchContext& ctx);
Status launchReplicated(const KernelArgs& args, const LaunchContext& ctx);
Status launchRunLength(const KernelArgs& args, const LaunchContext& ctx);
Status launchLargeBins(const KernelArgs& args, const LaunchContext& ctx);
Status launchPerLane(const KernelArgs& args, const LaunchContext& ctx);

// `partition` (PartitionKernels.cu): a slot's bucket is slot >> kPartitionBucketShift. Its
// scratch holds the places of up to ArchTuning::partitionChunkSamples samples (two bytes each)
// and every tile's bucket starts; a pass takes up to kPartitionMaxBuckets buckets (4 M slots).
inline constexpr std::uint32_t kPartitionBucketShift = 12;
inline constexpr std::uint32_t kPartitionBucketSlots = 1u << kPartitionBucketShift;
inline constexpr std::uint32_t kPartitionMaxBuckets = 1024;
struct PartitionScratch {
    DeviceBuffer places;
    DeviceBuffer starts;
};
Status launchPartition(const KernelArgs& args, PartitionScratch& scratch, const LaunchContext& ctx);

// `packed` (PackedKernels.cu): slots a pass, eight a 16-byte quad of the opt-in shared memory left
// after `fixedBytes` of static shared memory and a discard word for each lane of a warp (one
// definition for the launcher and `auto`'s count of passes). Its scratch holds one row of packed
// counters a block and each row's width in bits.
inline constexpr std::uint32_t kPackedDiscardQuads = 8;
inline std::uint32_t packedPassSlots(std::size_t sharedOptin, std::size_t fixedBytes)
{
    return std::uint32_t((sharedOptin - fixedBytes) / 16 - kPackedDiscardQuads) * 8;
}
struct PackedScratch {
    DeviceBuffer rows;
    DeviceBuffer widths;
};
Status launchPacked(const KernelArgs& args, PackedScratch& scratch, const LaunchContext& ctx);

// CUB needs scratch: its temporary storage, 32-bit counters, and an f16 -> f32 copy.
struct CubScratch {
    DeviceBuffer temp;
    DeviceBuffer counters;
    DeviceBuffer converted;
};
Status launchCubHistogram(const KernelArgs& args, CubScratch& scratch, const LaunchContext& ctx);

// What the strategies that need scratch keep between calls (buffers only grow).
struct StrategyScratch {
    CubScratch cub;
    PartitionScratch partition;
    PackedScratch packed;
};

// Gathers up to `count` pixels spread evenly over the grid, as slots, into d_out.
Status launchSlotSample(const KernelArgs& args, std::uint32_t* d_out, std::uint32_t count,
                        const LaunchContext& ctx);

// A device-resident result: the bins of every active channel in `writtenChannels` (bit c:
// channel c) from the totals into d_out (channel after channel), and the tail of RequestPlan.h
// (kTailWords, zeroed before) of every active channel into d_tail.
Status launchDeliverCounts(const SlotMap& map, const unsigned long long* d_slots, unsigned long long* d_out,
                           unsigned long long* d_tail, std::uint32_t writtenChannels, const LaunchContext& ctx);

// Equalization: one LUT of `levels` entries per active channel, then the mapping of every pixel
// (also HistogramEngine::applyLuts, with LUTs uploaded by the caller; inactive channels are copied).
Status launchEqualizeLut(const SlotMap& map, const unsigned long long* d_slots, std::uint32_t* d_luts,
                         std::uint32_t levels, int activeChannels, const LaunchContext& ctx);
Status launchApplyLut(SampleType type, int channels, const SampleGrid& in, unsigned char* d_out, std::size_t outPitch,
                      const SlotMap& map, const std::uint32_t* d_luts, std::uint32_t levels, const LaunchContext& ctx);

// The test hook's fault: one kernel that writes to an address no allocation holds, so the
// context takes the sticky cudaErrorIllegalAddress a real bug would give. Waits for it, and
// returns the DeviceLost it caused.
Status launchFault(cudaStream_t stream);
Status launchReadProbe(const void* d_data, std::size_t bytes, unsigned long long* d_sink,
                       const LaunchContext& ctx);

}  // namespace hs::detail
