#include "Dispatch.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <unordered_map>

namespace hs::detail {

SkewEstimate estimateSkew(const std::vector<std::uint32_t>& sampledSlots, std::uint32_t hotEntries)
{
    SkewEstimate estimate;
    std::unordered_map<std::uint32_t, std::uint32_t> frequency;
    std::size_t total = 0;
    for (std::uint32_t slot : sampledSlots) {
        if (slot == kNoSlot)
            continue;
        ++frequency[slot];
        ++total;
    }
    std::vector<std::pair<std::uint32_t, std::uint32_t>> ranked(frequency.begin(), frequency.end());
    std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    if (!ranked.empty()) {
        estimate.topSlot = ranked.front().first;
        estimate.topShare = double(ranked.front().second) / double(total);
    }
    if (hotEntries) {
        estimate.hotKeys.assign(hotEntries, kNoSlot);
        for (const auto& [slot, count] : ranked) {
            std::uint32_t& entry = estimate.hotKeys[slot & (hotEntries - 1)];
            if (entry == kNoSlot)
                entry = slot;  // ranked by frequency: the more frequent slot keeps the entry
        }
    }
    return estimate;
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
            const std::uint64_t p = pixels * i / count;
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
    return std::size_t(plan.map.num_slots) * sizeof(std::uint32_t) <= props.sharedPerBlockOptin;
}

}  // namespace

bool needsSkewEstimate(Strategy strategy, const RequestPlan& plan, const DeviceProps& props)
{
    // `auto` only asks about skew where the answer changes its choice: beyond opt-in shared memory.
    return strategy == Strategy::RunLength
        || ((strategy == Strategy::LargeBins || strategy == Strategy::Auto) && !fitsOptinShared(plan, props));
}

bool needsHotKeys(Strategy strategy, const RequestPlan& plan, const DeviceProps& props)
{
    return strategy == Strategy::LargeBins && !fitsOptinShared(plan, props);
}

StrategyChoice chooseAutoStrategy(const RequestPlan& plan, const DeviceProps& props, const ArchTuning& tuning,
                                  const SkewEstimate* skew)
{
    // Measured on the H200 (docs/STRATEGIES.md): few slots -> `shared` on every distribution (the
    // run-length path wins single-value frames by less than the run-to-run spread); up to opt-in
    // shared memory -> one `large-bins` pass; beyond it, tiles of opt-in shared memory for flat
    // data and the hot cache for skewed data. Only the last needs the skew estimate.
    const std::string slots = std::to_string(plan.map.num_slots) + " slots";
    if (plan.map.num_slots <= tuning.autoSharedSlotsMax)
        return {Strategy::Shared, "auto: " + slots + " fit in default shared memory (<= "
                                      + std::to_string(tuning.autoSharedSlotsMax) + "): shared"};
    if (fitsOptinShared(plan, props))
        return {Strategy::LargeBins, "auto: " + slots + " fit in opt-in shared memory ("
                                         + std::to_string(props.sharedPerBlockOptin / 1024) + " KiB): one large-bins pass"};
    const double share = skew ? skew->topShare : 0.0;
    char figures[96];
    std::snprintf(figures, sizeof figures, "top-slot share %.1f%% %s %.0f%%", 100.0 * share,
                  share >= tuning.autoHotCacheShare ? ">=" : "<", 100.0 * tuning.autoHotCacheShare);
    const std::string why = "auto: " + slots + " exceed opt-in shared memory; " + figures;
    if (share >= tuning.autoHotCacheShare)
        return {Strategy::LargeBins, why + ": large-bins hot cache"};
    return {Strategy::Replicated, why + ": replicated slot tiles"};
}

Status launchStrategy(Strategy strategy, const KernelArgs& args, CubScratch& cub, const LaunchContext& ctx)
{
    switch (strategy) {
    case Strategy::GlobalAtomic: return launchGlobalAtomic(args, ctx);
    case Strategy::Shared: return launchShared(args, ctx);
    case Strategy::WarpAggregated: return launchWarpAggregated(args, ctx);
    case Strategy::Replicated: return launchReplicated(args, ctx);
    case Strategy::RunLength: return launchRunLength(args, ctx);
    case Strategy::LargeBins: return launchLargeBins(args, ctx);
    case Strategy::Cub: return launchCubHistogram(args, cub, ctx);
    case Strategy::Auto:
    case Strategy::Cpu: break;
    }
    return Status::error(ErrorCode::UnsupportedStrategy,
                         "strategy '" + std::string(strategyName(strategy)) + "' has no kernel");
}

}  // namespace hs::detail
