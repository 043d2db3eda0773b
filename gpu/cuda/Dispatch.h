// Dispatch: picks the strategy for `auto` and the kernel family for a named strategy, from the
// slot count, the sample type, a skew estimate and the device's properties.
#pragma once

#include "../src/RequestPlan.h"
#include "histoscope/HistogramEngine.h"
#include "kernels/Kernels.h"

#include <vector>

namespace hs::detail {

inline constexpr std::uint32_t kNoSlot = 0xffffffffu;

struct SkewEstimate {
    std::uint32_t topSlot = kNoSlot;
    double topShare = 0;                  // share of sampled samples in the top slot
    double hotShare = 0;                  // share of sampled samples whose slot holds a hotKeys entry
    std::vector<std::uint32_t> hotKeys;   // direct-mapped table: entry slot & (size-1), or kNoSlot
    double topBucketShare = 0;            // share of sampled samples in the fullest `partition` bucket
    std::size_t sampledSlots = 0;         // samples the estimate counted (inactive channels left out)
    double neighbourBucketShare = 0;      // share of sampled neighbour pairs (samplePixel) in one `partition` bucket
};

// Turns a slot sample into an estimate, in time linear in the sample: an open-addressed count,
// and the hot table filled entry by entry with the most frequent slot mapping there (ties: the
// smaller slot). Its buffers are reused, so a frame's estimate allocates nothing.
class SkewCounter {
public:
    // `slots`: `count` slots of pixels taken by samplePixel, `channels` a pixel.
    void estimate(const std::uint32_t* slots, std::size_t count, int channels, std::uint32_t hotEntries,
                  SkewEstimate& out);

private:
    std::vector<std::uint32_t> m_keys;
    std::vector<std::uint32_t> m_counts;
    std::vector<std::uint32_t> m_used;
    std::vector<std::uint32_t> m_hotCounts;
    std::vector<std::uint32_t> m_bucketCounts;
};

// Samples up to `count` pixels of a host-memory plan, as slots (kNoSlot for inactive channels).
std::vector<std::uint32_t> sampleHostSlots(const RequestPlan& plan, std::uint32_t count);

// Whether running `strategy` (`auto` included) on the plan needs a skew sample: `run-length` for
// its register-counted heavy hitter, `large-bins` beyond opt-in shared memory for its hot-slot
// table, and `auto` exactly where the sample changes its choice (beyond opt-in shared memory, and
// inside it where the tuning lets one pass of `packed` take flat data).
bool needsSkewEstimate(Strategy strategy, const RequestPlan& plan, const DeviceProps& props, const ArchTuning& tuning);
// Whether a resolved strategy reads the sampled hot-slot table (`large-bins` beyond opt-in memory).
bool needsHotKeys(Strategy strategy, const RequestPlan& plan, const DeviceProps& props);
// Whether a resolved strategy's launch clears the next call's totals (KernelArgs::d_zero): the
// block-private families and `per-lane` do, and `partition`'s split where the samples are at least
// as many as the slots (its persistent grid is as large as the tiles allow: a few pixels into
// 16 M bins would leave one block to clear 128 MB); global atomics, CUB and the hot cache do not.
bool clearsNextTotals(Strategy strategy, const RequestPlan& plan, const DeviceProps& props);
// Whether the skew sample shows no `partition` bucket (kPartitionBucketSlots slots) fuller than
// imbalanceMax times the mean (or the mean plus four standard deviations, for buckets too many to
// sample well), which would make its counting blocks slow: `auto` takes `partition` only then.
struct BucketBalance {
    bool balanced = false;
    std::uint64_t buckets = 0;
    double mean = 0;      // sampled samples a bucket
    double fullest = 0;   // sampled samples in the fullest bucket
    double bound = 0;     // the most `balanced` allows
};
BucketBalance partitionBalance(const RequestPlan& plan, double imbalanceMax, const SkewEstimate* skew);
// The `auto` rule, with the reason in words unless `explain` is false (the same choice, its
// reason empty). `skew` is null when no sample was needed.
StrategyChoice chooseAutoStrategy(const RequestPlan& plan, const DeviceProps& props, const ArchTuning& tuning,
                                  const SkewEstimate* skew, bool explain = true);

Status launchStrategy(Strategy strategy, const KernelArgs& args, StrategyScratch& scratch, const LaunchContext& ctx);

}  // namespace hs::detail
