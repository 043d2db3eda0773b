#include "histoscope/HistogramStatistics.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hs {

namespace {

// One integer value per bin: the bin index is the value minus lo, so statistics are exact.
bool oneValuePerBin(const ChannelBinning& b) { return b.identity; }

struct TypeExtremes {
    double lo;
    double hi;
};

std::optional<TypeExtremes> integerExtremes(const StatisticsContext& context)
{
    if (!context.type || isFloatType(*context.type))
        return std::nullopt;
    if (context.bitDepth && *context.bitDepth > 0 && *context.bitDepth < 32)
        return TypeExtremes{0.0, std::ldexp(1.0, *context.bitDepth) - 1.0};
    switch (*context.type) {
    case SampleType::U8: return TypeExtremes{0.0, 255.0};
    case SampleType::U16: return TypeExtremes{0.0, 65535.0};
    case SampleType::I32: return TypeExtremes{-2147483648.0, 2147483647.0};
    case SampleType::U32: return TypeExtremes{0.0, 4294967295.0};
    default: return std::nullopt;
    }
}

// The share of non-NaN samples equal to the integer `value`, when the binning can tell.
std::optional<double> shareAt(const ChannelHistogram& h, double value, std::optional<double> dataMin,
                              std::optional<double> dataMax, double nonNan)
{
    if ((dataMin && value < *dataMin) || (dataMax && value > *dataMax))
        return 0.0;  // no sample reaches it
    const ChannelBinning& b = h.binning;
    if (value < b.lo || value >= upperEdge(b))
        return std::nullopt;  // counted in below/above together with other values
    const std::uint32_t bin = std::min<std::uint32_t>(std::uint32_t((value - b.lo) / binWidth(b)), b.bins - 1);
    // A bin that holds only this integer: identity bins, or a bin no wider than one value
    // whose neighbours do not reach it.
    const bool single = oneValuePerBin(b)
        || (binLowerEdge(b, bin) > value - 1 && binLowerEdge(b, bin + 1) <= value + 1 && binWidth(b) <= 1.0);
    if (!single)
        return std::nullopt;
    return double(h.counts[bin]) / nonNan;
}

}  // namespace

double binWidth(const ChannelBinning& b) { return (upperEdge(b) - b.lo) / b.bins; }

double binLowerEdge(const ChannelBinning& b, std::uint32_t bin) { return b.lo + binWidth(b) * bin; }

std::uint32_t percentileBin(const ChannelHistogram& h, double percent)
{
    const std::uint64_t n = h.inRange();
    // c * 100 >= percent * n, in long double: exact for every count below 2^64 and the
    // percentages we use (integers and halves).
    const long double target = (long double)percent * (long double)n;
    std::uint64_t cumulative = 0;
    for (std::uint32_t b = 0; b < h.counts.size(); ++b) {
        cumulative += h.counts[b];
        if (h.counts[b] > 0 && (long double)cumulative * 100.0L >= target)
            return b;
    }
    return h.counts.empty() ? 0 : std::uint32_t(h.counts.size() - 1);
}

ChannelStatistics computeStatistics(const ChannelHistogram& h, const StatisticsContext& context)
{
    ChannelStatistics s;
    s.below = h.below;
    s.above = h.above;
    s.nan = h.nan;
    s.count = h.inRange();
    const ChannelBinning& b = h.binning;
    const bool exact = oneValuePerBin(b);
    s.exact = exact;

    std::int64_t first = -1, last = -1;
    for (std::uint32_t i = 0; i < h.counts.size(); ++i)
        if (h.counts[i]) {
            if (first < 0)
                first = i;
            last = i;
        }
    // Extremes: the engine's exact values (the context's, else the histogram's own); otherwise,
    // with one value per bin and nothing outside the range, the first and last non-empty bins.
    s.min = context.dataMin;
    s.max = context.dataMax;
    if (h.hasValues) {
        if (!s.min)
            s.min = h.minValue;
        if (!s.max)
            s.max = h.maxValue;
    }
    if (exact && first >= 0) {
        if (!s.min && h.below == 0)
            s.min = b.lo + double(first);
        if (!s.max && h.above == 0)
            s.max = b.lo + double(last);
    }
    const double nonNan = double(s.count + s.below + s.above);
    if (const auto extremes = integerExtremes(context); extremes && nonNan > 0) {
        s.clippedLowShare = shareAt(h, extremes->lo, s.min, s.max, nonNan);
        s.clippedHighShare = shareAt(h, extremes->hi, s.min, s.max, nonNan);
    } else if (context.type && isFloatType(*context.type) && nonNan > 0) {
        s.clippedLowShare = double(s.below) / nonNan;
        s.clippedHighShare = double(s.above) / nonNan;
    }
    if (s.count == 0)
        return s;

    // A position inside the data: the bin's value (identity) or its lower edge clamped to the
    // data's exact range, so no reported position lies outside what was counted.
    const double dataLo = s.min.value_or(-std::numeric_limits<double>::infinity());
    const double dataHi = s.max.value_or(std::numeric_limits<double>::infinity());
    auto position = [&](std::uint32_t bin) {
        if (exact)
            return b.lo + double(bin);
        return std::clamp(binLowerEdge(b, bin), std::min(dataLo, dataHi), dataHi);
    };

    // Moments over bin offsets from lo: exact integer sums for identity bins (an offset is
    // below 2^32 and a count below 2^64, so every product and sum fits in 128 bits).
    const double width = binWidth(b);
    const double centre = exact ? 0.0 : 0.5 * width;
    unsigned __int128 sumIndex = 0;
    long double sumCentres = 0;
    std::uint64_t best = 0;
    std::uint32_t modeBin = 0;
    for (std::uint32_t i = 0; i < h.counts.size(); ++i) {
        const std::uint64_t n = h.counts[i];
        if (!n)
            continue;
        if (exact)
            sumIndex += (unsigned __int128)i * n;
        else
            sumCentres += ((long double)i * width + centre) * (long double)n;
        if (n > best) {
            best = n;
            modeBin = i;
        }
        const double p = double(n) / double(s.count);
        s.entropyBits -= p * std::log2(p);
    }
    const long double count = (long double)s.count;
    const long double meanOffset = exact ? (long double)sumIndex / count : sumCentres / count;
    long double squares = 0;
    for (std::uint32_t i = 0; i < h.counts.size(); ++i) {
        if (!h.counts[i])
            continue;
        const long double d = (long double)i * (long double)width + (long double)centre - meanOffset;
        squares += d * d * (long double)h.counts[i];
    }
    s.mean = double((long double)b.lo + meanOffset);
    s.stdDevPopulation = double(std::sqrt(squares / count));
    s.stdDevSample = s.count > 1 ? double(std::sqrt(squares / (count - 1))) : 0.0;
    s.mode = position(modeBin);
    s.median = position(percentileBin(h, 50));
    for (std::size_t i = 0; i < kPercentiles.size(); ++i)
        s.percentiles[i] = position(percentileBin(h, kPercentiles[i]));
    return s;
}

}  // namespace hs
