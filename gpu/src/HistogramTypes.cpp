#include "histoscope/HistogramTypes.h"

#include <array>
#include <utility>

namespace hs {

namespace {

constexpr std::array<std::pair<SampleType, std::string_view>, 6> kTypeNames{{
    {SampleType::U8, "u8"},
    {SampleType::U16, "u16"},
    {SampleType::I32, "i32"},
    {SampleType::U32, "u32"},
    {SampleType::F16, "f16"},
    {SampleType::F32, "f32"},
}};

constexpr std::array<std::pair<Strategy, std::string_view>, 12> kStrategyNames{{
    {Strategy::Auto, "auto"},
    {Strategy::Cpu, "cpu"},
    {Strategy::GlobalAtomic, "global-atomic"},
    {Strategy::Shared, "shared"},
    {Strategy::WarpAggregated, "warp-aggregated"},
    {Strategy::Replicated, "replicated"},
    {Strategy::RunLength, "run-length"},
    {Strategy::LargeBins, "large-bins"},
    {Strategy::Cub, "cub"},
    {Strategy::PerLane, "per-lane"},
    {Strategy::Partition, "partition"},
    {Strategy::Packed, "packed"},
}};

}  // namespace

std::size_t sampleSize(SampleType type)
{
    switch (type) {
    case SampleType::U8: return 1;
    case SampleType::U16:
    case SampleType::F16: return 2;
    case SampleType::I32:
    case SampleType::U32:
    case SampleType::F32: return 4;
    }
    return 1;
}

std::string_view sampleTypeName(SampleType type)
{
    for (const auto& [t, name] : kTypeNames)
        if (t == type)
            return name;
    return "?";
}

std::optional<SampleType> sampleTypeFromName(std::string_view name)
{
    for (const auto& [t, n] : kTypeNames)
        if (n == name)
            return t;
    return std::nullopt;
}

bool isFloatType(SampleType type) { return type == SampleType::F16 || type == SampleType::F32; }

std::string_view strategyName(Strategy strategy)
{
    for (const auto& [s, name] : kStrategyNames)
        if (s == strategy)
            return name;
    return "?";
}

std::optional<Strategy> strategyFromName(std::string_view name)
{
    for (const auto& [s, n] : kStrategyNames)
        if (n == name)
            return s;
    return std::nullopt;
}

const std::vector<Strategy>& allStrategies()
{
    static const std::vector<Strategy> all = [] {
        std::vector<Strategy> v;
        for (const auto& entry : kStrategyNames)
            v.push_back(entry.first);
        return v;
    }();
    return all;
}

bool isGpuStrategy(Strategy strategy) { return strategy != Strategy::Auto && strategy != Strategy::Cpu; }

bool strategyAccepts(Strategy strategy, SampleType type, std::uint32_t bins)
{
    if (strategy == Strategy::PerLane)
        return type == SampleType::U8;
    if (strategy == Strategy::Cub)
        return bins <= kCubMaxBins;
    return true;
}

const std::vector<Strategy>& gpuStrategies()
{
    static const std::vector<Strategy> gpu = [] {
        std::vector<Strategy> v;
        for (Strategy s : allStrategies())
            if (isGpuStrategy(s))
                v.push_back(s);
        return v;
    }();
    return gpu;
}

ImageView keysView(const void* data, std::size_t count, SampleType type, MemorySpace space)
{
    ImageView view;
    view.data = data;
    view.space = space;
    view.type = type;
    view.width = std::int64_t(count);
    view.height = count ? 1 : 0;
    view.channels = 1;
    return view;
}

ChannelBinning defaultBinning(SampleType type)
{
    ChannelBinning b;
    switch (type) {
    case SampleType::U8: b.bins = 256; b.hi = 256; b.identity = true; break;
    case SampleType::U16: b.bins = 65536; b.hi = 65536; b.identity = true; break;
    case SampleType::I32:
    case SampleType::U32: b.bins = 65536; b.hi = 65536; b.identity = true; break;
    case SampleType::F16:
    case SampleType::F32: b.bins = 256; b.lo = 0.0; b.hi = 1.0; break;
    }
    return b;
}

HistogramRequest makeRequest(const ImageView& image, const ChannelBinning& binning, Strategy strategy)
{
    HistogramRequest request;
    request.image = image;
    request.strategy = strategy;
    for (auto& b : request.binning)
        b = binning;
    return request;
}

std::uint64_t ChannelHistogram::inRange() const
{
    std::uint64_t sum = 0;
    for (std::uint64_t c : counts)
        sum += c;
    return sum;
}

bool ChannelHistogram::operator==(const ChannelHistogram& other) const
{
    return channel == other.channel && counts == other.counts && below == other.below
        && above == other.above && nan == other.nan && hasValues == other.hasValues
        && (!hasValues || (minValue == other.minValue && maxValue == other.maxValue));
}

}  // namespace hs
