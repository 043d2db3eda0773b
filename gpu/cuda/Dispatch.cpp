#include "Dispatch.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace hs::detail {

void SkewCounter::estimate(const std::uint32_t* slots, std::size_t count, int channels, std::uint32_t hotEntries,
                           SkewEstimate& out)
{
    // Pixels 2k and 2k + 1 are neighbours (samplePixel): the share of their channels' slots in one
    // `partition` bucket. Where that is high, a tile's samples crowd into few buckets, and the few
    // lanes that count one tile's part of a bucket wait on thousands of atomics.
    const std::size_t stride = std::size_t(std::max(channels, 1));
    std::size_t pairs = 0, equalPairs = 0;
    for (std::size_t i = 0; i + 2 * stride <= count; i += 2 * stride)
        for (std::size_t c = 0; c < stride; ++c) {
            const std::uint32_t a = slots[i + c], b = slots[i + stride + c];
            if (a == kNoSlot || b == kNoSlot)
                continue;
            ++pairs;
            equalPairs += (a >> kPartitionBucketShift) == (b >> kPartitionBucketShift) ? 1 : 0;
        }
    out.neighbourBucketShare = pairs ? double(equalPairs) / double(pairs) : 0.0;

    std::size_t tableSize = 64;
    while (tableSize < 2 * count)
        tableSize *= 2;
    if (m_keys.size() < tableSize) {
        m_keys.assign(tableSize, kNoSlot);
        m_counts.assign(tableSize, 0);
    }
    const std::uint32_t mask = std::uint32_t(tableSize - 1);
    m_used.clear();
    std::size_t total = 0;
    std::uint32_t fullestBucket = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint32_t slot = slots[i];
        if (slot == kNoSlot)
            continue;
        ++total;
        const std::uint32_t bucket = slot >> kPartitionBucketShift;
        if (bucket >= m_bucketCounts.size())
            m_bucketCounts.resize(std::size_t(bucket) + 1, 0);
        fullestBucket = std::max(fullestBucket, ++m_bucketCounts[bucket]);
        std::uint32_t h = (slot * 2654435761u) & mask;
        while (m_keys[h] != kNoSlot && m_keys[h] != slot)
            h = (h + 1) & mask;
        if (m_keys[h] == kNoSlot) {
            m_keys[h] = slot;
            m_used.push_back(h);
        }
        ++m_counts[h];
    }
    out.topSlot = kNoSlot;
    out.topShare = 0;
    out.hotShare = 0;
    out.hotKeys.assign(hotEntries, kNoSlot);
    m_hotCounts.assign(hotEntries, 0);
    std::uint32_t topCount = 0;
    for (std::uint32_t h : m_used) {
        const std::uint32_t slot = m_keys[h], n = m_counts[h];
        if (n > topCount || (n == topCount && slot < out.topSlot)) {
            topCount = n;
            out.topSlot = slot;
        }
        if (hotEntries) {
            const std::uint32_t e = slot & (hotEntries - 1);
            if (n > m_hotCounts[e] || (n == m_hotCounts[e] && slot < out.hotKeys[e])) {
                m_hotCounts[e] = n;
                out.hotKeys[e] = slot;
            }
        }
        m_keys[h] = kNoSlot;  // leave the table empty for the next frame
        m_counts[h] = 0;
        m_bucketCounts[slot >> kPartitionBucketShift] = 0;
    }
    out.topBucketShare = total ? double(fullestBucket) / double(total) : 0.0;
    out.sampledSlots = total;
    if (total) {
        out.topShare = double(topCount) / double(total);
        std::size_t hot = 0;
        for (std::uint32_t n : m_hotCounts)
            hot += n;
        out.hotShare = double(hot) / double(total);
    }
}

std::vector<std::uint32_t> sampleHostSlots(const RequestPlan& plan, std::uint32_t count)
{
    std::vector<std::uint32_t> slots;
    const std::uint64_t pixels = std::uint64_t(plan.pixels());
    if (pixels == 0)
        return slots;
    count = std::uint32_t(std::min<std::uint64_t>(count, pixels));
    slots.reserve(std::size_t(count) * plan.channels);
    visitSampleType(plan.type, [&](auto tag) {
        using T = decltype(tag);
        for (std::uint32_t i = 0; i < count; ++i) {
            const std::uint64_t p = samplePixel(pixels, i, count);
            const std::uint64_t r = p / std::uint64_t(plan.width);
            const std::uint64_t x = p - r * std::uint64_t(plan.width);
            const unsigned char* pixel = plan.row(std::int64_t(r)) + x * plan.pixelBytes;
            for (int c = 0; c < plan.channels; ++c) {
                T v;
                std::memcpy(&v, pixel + c * sizeof(T), sizeof(T));
                slots.push_back(plan.map.ch[c].active ? slotOf(plan.map.ch[c], v) : kNoSlot);
            }
        }
    });
    return slots;
}

namespace {

bool fitsOptinShared(const RequestPlan& plan, const DeviceProps& props)
{
    return std::size_t(plan.map.num_slots) * sizeof(std::uint32_t) + kStaticSharedReserve <= props.sharedPerBlockOptin;
}

std::uint64_t packedPasses(const RequestPlan& plan, const DeviceProps& props)
{
    const std::uint64_t perPass = packedPassSlots(props.sharedPerBlockOptin, kStaticSharedReserve);
    return (std::uint64_t(plan.map.num_slots) + perPass - 1) / perPass;
}

// `per-lane` keeps 32 counters (one per lane) of every value of every interleaved channel, and
// each value's block total.
bool perLaneFits(const RequestPlan& plan, const DeviceProps& props)
{
    return std::size_t(plan.channels) * 256 * 33 * sizeof(std::uint32_t) + kStaticSharedReserve <= props.sharedPerBlockOptin;
}

// `auto` counts 8-bit samples with `per-lane` whatever their bins (it counts values, and folds
// them into bins once a block), so it never needs a skew sample for them.
bool autoTakesPerLane(const RequestPlan& plan, const DeviceProps& props, const ArchTuning& tuning)
{
    return plan.type == SampleType::U8 && tuning.autoPerLane && perLaneFits(plan, props);
}

// Inside opt-in shared memory, `auto` may take one `packed` pass over one channel where the
// sample shows no hot slot (ArchTuning::autoPackedOptinShareMax), and so needs the sample there.
bool packedMayTakeOptin(const RequestPlan& plan, const DeviceProps& props, const ArchTuning& tuning)
{
    return tuning.autoPackedOptinShareMax > 0 && tuning.autoPackedPassesMax >= 1 && plan.channels == 1
        && plan.map.num_slots > tuning.autoSharedSlotsMax && packedPasses(plan, props) == 1;
}

}  // namespace

bool needsSkewEstimate(Strategy strategy, const RequestPlan& plan, const DeviceProps& props, const ArchTuning& tuning)
{
    // `auto` only asks about skew where the answer changes its choice.
    if (strategy == Strategy::Auto)
        return !autoTakesPerLane(plan, props, tuning)
            && (!fitsOptinShared(plan, props) || packedMayTakeOptin(plan, props, tuning));
    return strategy == Strategy::RunLength || (strategy == Strategy::LargeBins && !fitsOptinShared(plan, props));
}

bool needsHotKeys(Strategy strategy, const RequestPlan& plan, const DeviceProps& props)
{
    return strategy == Strategy::LargeBins && !fitsOptinShared(plan, props);
}

bool clearsNextTotals(Strategy strategy, const RequestPlan& plan, const DeviceProps& props)
{
    switch (strategy) {
    case Strategy::PerLane:
    case Strategy::Shared:
    case Strategy::Replicated:
    case Strategy::RunLength:
    case Strategy::WarpAggregated:
    case Strategy::Packed:
        return true;
    case Strategy::Partition:
        return plan.samples() >= plan.map.num_slots;
    case Strategy::LargeBins:
        return !needsHotKeys(strategy, plan, props);
    default:
        return false;
    }
}

BucketBalance partitionBalance(const RequestPlan& plan, double imbalanceMax, const SkewEstimate* skew)
{
    // A bucket's sampled count is Poisson about its mean, so the bound is a multiple of the mean
    // where buckets are well sampled, and the mean plus four standard deviations where they are
    // not (16 M slots: 4,096 buckets for 4,096 samples).
    BucketBalance b;
    b.buckets = (std::uint64_t(plan.map.num_slots) + kPartitionBucketSlots - 1) / kPartitionBucketSlots;
    const double sampled = skew ? double(skew->sampledSlots) : 0.0;
    b.mean = sampled / double(b.buckets);
    b.fullest = skew ? skew->topBucketShare * sampled : 0.0;
    b.bound = std::max(imbalanceMax * b.mean, b.mean + 4.0 * std::sqrt(b.mean) + 3.0);
    b.balanced = skew && sampled > 0 && b.fullest <= b.bound;
    return b;
}

StrategyChoice chooseAutoStrategy(const RequestPlan& plan, const DeviceProps& props, const ArchTuning& tuning,
                                  const SkewEstimate* skew, bool explain)
{
    // The reason's words are made only when asked for: a count asks after its launch, while the
    // GPU works, where they cost the call nothing (issue 19: a call within 20 us of its GPU time).
    auto pick = [explain](Strategy strategy, auto&& why) { return StrategyChoice{strategy, explain ? why() : std::string()}; };
    // Measured on the H200 (docs/STRATEGIES.md): few slots -> `shared` on every distribution (the
    // run-length path wins single-value frames by less than the run-to-run spread); up to opt-in
    // shared memory -> one `large-bins` pass, or one `packed` pass for one flat channel (where
    // tuned); beyond it, `packed` or tiles of opt-in shared memory for flat data and the hot cache
    // for skewed data. Only the last two need the skew estimate (needsSkewEstimate).
    if (autoTakesPerLane(plan, props, tuning))
        return pick(Strategy::PerLane, [] {
            return std::string("auto: 8-bit samples: per-lane (lane-column counters, no update waits on another)");
        });
    // 8-bit samples into fewer bins than values: `shared`'s atomics pile onto a few counters,
    // while `per-lane` counts each value in a counter of its own lane and folds the values into
    // bins once per block. On the H200, 64 MiB of bytes into 2, 16 or 64 bins: 0.045-0.066
    // against 0.138 ms; a 4K RGB frame into 16 or 64 bins: 0.034-0.055 against 0.063. Only where
    // measured: one interleaved channel, or three from tuning.perLaneWideBinsMin bins each (4K RGB
    // into 2 bins: the fold's atomics on 6 counters cost more, 0.097 against 0.062 ms). per-lane
    // reads every interleaved channel, so one active channel of several is not such a case.
    if (plan.type == SampleType::U8 && (plan.channels == 1 || plan.channels == 3)) {
        std::uint32_t fewest = 0;
        for (const ChannelMap& m : plan.map.ch)
            if (m.active)
                fewest = fewest == 0 ? m.num_bins : std::min(fewest, m.num_bins);
        if (fewest > 0 && fewest < 256 && (plan.channels == 1 || fewest >= tuning.perLaneWideBinsMin)
            && perLaneFits(plan, props))
            return pick(Strategy::PerLane, [&] {
                return "auto: 8-bit samples into " + std::to_string(fewest)
                     + " bins (< 256): per-lane, no atomics on a few counters";
            });
    }
    auto slots = [&] { return std::to_string(plan.map.num_slots) + " slots"; };
    if (plan.map.num_slots <= tuning.autoSharedSlotsMax)
        return pick(Strategy::Shared, [&] {
            return "auto: " + slots() + " fit in default shared memory (<= " + std::to_string(tuning.autoSharedSlotsMax)
                 + "): shared";
        });
    if (fitsOptinShared(plan, props)) {
        auto optin = [&] {
            return "auto: " + slots() + " fit in opt-in shared memory (" + std::to_string(props.sharedPerBlockOptin / 1024)
                 + " KiB)";
        };
        if (skew && packedMayTakeOptin(plan, props, tuning)) {
            auto share = [&](const char* relation) {
                char figures[96];
                std::snprintf(figures, sizeof figures, "; top-slot share %.1f%% %s %.0f%%", 100.0 * skew->topShare, relation,
                              100.0 * tuning.autoPackedOptinShareMax);
                return optin() + figures;
            };
            if (skew->topShare < tuning.autoPackedOptinShareMax)
                return pick(Strategy::Packed, [&] { return share("<") + ": one packed pass"; });
            return pick(Strategy::LargeBins, [&] { return share(">=") + ": one large-bins pass"; });
        }
        return pick(Strategy::LargeBins, [&] { return optin() + ": one large-bins pass"; });
    }
    // Beyond opt-in shared memory: one hot bin -> the hot cache; one pass of 16-bit counters ->
    // `packed` (where the architecture's tuning takes it); few tiles -> `partition` where few
    // samples a slot, balanced buckets and spread neighbours make it faster, else two `packed`
    // passes for one channel (where tuned), else tiles (one pass each); many tiles -> `partition`
    // where no bucket is full and neighbours spread, else the hot cache where the sampled hot set
    // holds most samples, else plain global atomics, which spread over that many bins anyway.
    const double share = skew ? skew->topShare : 0.0;
    const double hot = skew ? skew->hotShare : 0.0;
    const std::uint64_t tiles = (std::uint64_t(plan.map.num_slots) * sizeof(std::uint32_t) + props.sharedPerBlockOptin - 1)
                              / props.sharedPerBlockOptin;
    auto why = [&] {
        char figures[160];
        std::snprintf(figures, sizeof figures, "%llu opt-in tiles; top-slot share %.1f%%, hot-set share %.1f%%",
                      static_cast<unsigned long long>(tiles), 100.0 * share, 100.0 * hot);
        return "auto: " + slots() + " exceed opt-in shared memory (" + figures + ")";
    };
    if (share >= tuning.autoHotCacheShare)
        return pick(Strategy::LargeBins, [&] {
            return why() + ": top share >= " + std::to_string(int(100 * tuning.autoHotCacheShare)) + "%: large-bins hot cache";
        });
    // `packed` in one pass before the tile and partition rules; in more passes (up to
    // autoPackedPassesMax) in place of `replicated`'s tiles where `partition` is not sure to win,
    // for one channel: more passes were measured on 32-bit tokens only.
    const std::uint64_t passes = packedPasses(plan, props);
    const bool packedFits = passes <= std::uint64_t(tuning.autoPackedPassesMax);
    if (passes == 1 && packedFits)
        return pick(Strategy::Packed, [&] { return why() + ": one pass of 16-bit counters: packed"; });
    if (tiles <= std::uint64_t(tuning.autoTilesMax)) {
        // Few tiles: `replicated`, unless `partition` is sure to beat it (ArchTuning says when).
        const BucketBalance balance = partitionBalance(plan, tuning.autoPartitionFewTilesImbalanceMax, skew);
        const double samplesPerSlot = double(plan.samples()) / double(plan.map.num_slots);
        const double neighbours = skew ? skew->neighbourBucketShare : 0.0;
        if (balance.balanced && samplesPerSlot <= tuning.autoPartitionSamplesPerSlotMax
            && neighbours <= tuning.autoPartitionNeighbourBucketShareMax)
            return pick(Strategy::Partition, [&] {
                char figures[200];
                std::snprintf(figures, sizeof figures,
                              "<= %d tiles, %.0f samples a slot, neighbours in one bucket %.0f%%, fullest of %llu buckets "
                              "%.0f samples (<= %.1f)",
                              tuning.autoTilesMax, samplesPerSlot, 100.0 * neighbours,
                              static_cast<unsigned long long>(balance.buckets), balance.fullest, balance.bound);
                return why() + ": " + figures + ": partition";
            });
    }
    if (tiles <= std::uint64_t(tuning.autoTilesMax)) {
        if (packedFits && plan.channels == 1)
            return pick(Strategy::Packed, [&] {
                return why() + ": " + std::to_string(passes) + " passes of 16-bit counters (<= "
                     + std::to_string(tuning.autoPackedPassesMax) + "): packed";
            });
        return pick(Strategy::Replicated, [&] {
            return why() + ": <= " + std::to_string(tuning.autoTilesMax) + " tiles: replicated slot tiles";
        });
    }
    // Many tiles: `partition` unless the sample shows a bucket of 4,096 slots that its counting
    // blocks would be slow on.
    const BucketBalance balance = partitionBalance(plan, tuning.autoPartitionImbalanceMax, skew);
    const double neighbours = skew ? skew->neighbourBucketShare : 0.0;
    if (balance.balanced && neighbours <= tuning.autoPartitionNeighbourBucketShareMax)
        return pick(Strategy::Partition, [&] {
            char figures[160];
            std::snprintf(figures, sizeof figures,
                          "fullest of %llu buckets %.0f samples (<= %.1f for a mean of %.1f), neighbours in one bucket %.0f%%",
                          static_cast<unsigned long long>(balance.buckets), balance.fullest, balance.bound, balance.mean,
                          100.0 * neighbours);
            return why() + ": " + figures + ": partition";
        });
    if (hot >= tuning.autoHotSetShare)
        return pick(Strategy::LargeBins, [&] {
            return why() + ": hot set >= " + std::to_string(int(100 * tuning.autoHotSetShare)) + "%: large-bins hot cache";
        });
    return pick(Strategy::GlobalAtomic, [&] { return why() + ": global-atomic"; });
}

Status launchStrategy(Strategy strategy, const KernelArgs& args, StrategyScratch& scratch, const LaunchContext& ctx)
{
    if (args.channels == 1 && !args.map.ch[0].active)  // the walker counts a single channel untested
        return Status::error(ErrorCode::InvalidArgument, "no channel is active");
    switch (strategy) {
    case Strategy::GlobalAtomic: return launchGlobalAtomic(args, ctx);
    case Strategy::Shared: return launchShared(args, ctx);
    case Strategy::WarpAggregated: return launchWarpAggregated(args, ctx);
    case Strategy::Replicated: return launchReplicated(args, ctx);
    case Strategy::RunLength: return launchRunLength(args, ctx);
    case Strategy::LargeBins: return launchLargeBins(args, ctx);
    case Strategy::Cub: return launchCubHistogram(args, scratch.cub, ctx);
    case Strategy::PerLane: return launchPerLane(args, ctx);
    case Strategy::Partition: return launchPartition(args, scratch.partition, ctx);
    case Strategy::Packed: return launchPacked(args, scratch.packed, ctx);
    case Strategy::Auto:
    case Strategy::Cpu: break;
    }
    return Status::error(ErrorCode::UnsupportedStrategy,
                         "strategy '" + std::string(strategyName(strategy)) + "' has no kernel");
}

}  // namespace hs::detail
