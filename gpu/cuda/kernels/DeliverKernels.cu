// A device-resident result (HistogramRequest::deviceCounts): the totals' bins copied into the
// caller's memory in the request's stream, and the few words the host still reads (each
// channel's below/above/NaN and its first and last non-empty bins, RequestPlan.h's tail)
// gathered beside the encoded extremes, so that one small download delivers the call. Reading
// the first and last non-empty bins here, while the bins pass through, keeps the host from ever
// needing the counts for the extremes of a one-value-per-bin channel.
#include "../LaunchSupport.cuh"
#include "Kernels.h"

namespace hs::detail {

namespace {

struct DeliveredChannels {
    int count = 0;
    int channel[kMaxChannels] = {};
    std::uint32_t base[kMaxChannels] = {};
    std::uint32_t bins[kMaxChannels] = {};
    std::uint64_t outOffset[kMaxChannels] = {};
    bool identity[kMaxChannels] = {};
    bool written[kMaxChannels] = {};  // its bins go to the caller's memory (deviceCountsChannels)
};

__device__ __forceinline__ std::uint32_t warpMax(std::uint32_t v)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        v = max(v, __shfl_xor_sync(0xffffffffu, v, offset));
    return v;
}

// blockIdx.y: the delivered channel; the x blocks stride over its bins.
__global__ void deliverCountsKernel(DeliveredChannels channels, const unsigned long long* d_slots,
                                    unsigned long long* d_out, unsigned long long* d_tail)
{
    const int k = int(blockIdx.y);
    const std::uint32_t base = channels.base[k], bins = channels.bins[k];
    unsigned long long* out = d_out + channels.outOffset[k];
    const bool written = channels.written[k];
    unsigned long long* tail = d_tail + std::size_t(channels.channel[k]) * kTailWordsPerChannel;
    std::uint32_t firstKey = 0, lastKey = 0;  // max(bins - b), max(b + 1) over non-empty bins b
    const std::uint32_t stride = gridDim.x * blockDim.x;
    for (std::uint32_t b = blockIdx.x * blockDim.x + threadIdx.x; b < bins; b += stride) {
        const unsigned long long v = d_slots[base + b];
        if (written)
            out[b] = v;
        if (v) {
            firstKey = max(firstKey, bins - b);
            lastKey = max(lastKey, b + 1);
        }
    }
    if (channels.identity[k]) {
        firstKey = warpMax(firstKey);
        lastKey = warpMax(lastKey);
        if ((threadIdx.x & 31u) == 0 && lastKey) {
            atomicMax(tail + TailFirstKey, static_cast<unsigned long long>(firstKey));
            atomicMax(tail + TailLastKey, static_cast<unsigned long long>(lastKey));
        }
    }
    if (blockIdx.x == 0 && threadIdx.x < kExtraSlots)
        tail[TailBelow + threadIdx.x] = d_slots[base + bins + threadIdx.x];
}

}  // namespace

Status launchDeliverCounts(const SlotMap& map, const unsigned long long* d_slots, unsigned long long* d_out,
                           unsigned long long* d_tail, std::uint32_t writtenChannels, const LaunchContext& ctx)
{
    DeliveredChannels channels;
    std::uint64_t offset = 0;
    std::uint32_t widest = 1;
    for (int c = 0; c < map.num_channels; ++c) {
        const ChannelMap& m = map.ch[c];
        if (!m.active)
            continue;
        const int k = channels.count++;
        channels.channel[k] = c;
        channels.base[k] = m.base;
        channels.bins[k] = m.num_bins;
        channels.outOffset[k] = offset;
        channels.identity[k] = m.mode == MapMode::Identity;
        channels.written[k] = (writtenChannels >> c) & 1u;
        if (channels.written[k])
            offset += m.num_bins;
        widest = std::max(widest, m.num_bins);
    }
    if (channels.count == 0)
        return Status::success();
    const unsigned threads = 256;
    const unsigned perChannel = unsigned(std::min<std::uint64_t>((widest + threads - 1) / threads,
                                                                 std::uint64_t(ctx.props.multiprocessors) * 4));
    deliverCountsKernel<<<dim3(perChannel, unsigned(channels.count)), threads, 0, ctx.stream>>>(channels, d_slots, d_out,
                                                                                               d_tail);
    return lastLaunchStatus("deliverCountsKernel");
}

}  // namespace hs::detail
