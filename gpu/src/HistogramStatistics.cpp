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

    // What each bin can hold: [first, last], cut to the data's exact [min, max]. For integer
    // samples the integers the engine puts in it (bin = (v - ceil(lo)) * bins / range, so bin i
    // starts at the first integer at or above its lower edge); for floats its edges.
    const double dataLo = s.min.value_or(-std::numeric_limits<double>::infinity());
    const double dataHi = std::max(dataLo, s.max.value_or(std::numeric_limits<double>::infinity()));
    const bool integers = exact || (context.type && !isFloatType(*context.type));
    const double ilo = std::ceil(b.lo);
    const std::uint64_t irange = std::uint64_t(std::max(1.0, std::ceil(upperEdge(b)) - ilo));
    struct Span {
        double first, last;   // the values the bin can hold, cut to [min, max]
        double position;      // the smallest of them: the reported position
        bool oneValue;
    };
    auto spanOf = [&](std::uint32_t bin) {
        double first, last;
        if (exact) {
            first = last = b.lo + double(bin);
        } else if (integers) {
            first = ilo + double((std::uint64_t(bin) * irange + b.bins - 1) / b.bins);
            last = ilo + double(((std::uint64_t(bin) + 1) * irange + b.bins - 1) / b.bins) - 1;
        } else {
            first = binLowerEdge(b, bin);
            last = binLowerEdge(b, bin + 1);
        }
        Span span{std::max(first, dataLo), std::min(last, dataHi), std::clamp(first, dataLo, dataHi), false};
        if (!(span.first <= span.last))   // float rounding put a sample beside its exact bin
            span.first = span.last = span.position;
        span.oneValue = span.first == span.last;
        return span;
    };
    auto position = [&](std::uint32_t bin) { return spanOf(bin).position; };

    // Moments: exact integer sums of bin offsets for identity bins (an offset is below 2^32 and
    // a count below 2^64, so every product and sum fits in 128 bits); otherwise from the centre
    // of what each bin can hold, so the mean never leaves [min, max].
    unsigned __int128 sumIndex = 0;
    long double sumCentres = 0;
    std::uint64_t best = 0;
    std::uint32_t modeBin = 0;
    auto centre = [&](std::uint32_t bin) {
        const Span span = spanOf(bin);
        return ((long double)span.first + (long double)span.last) / 2;
    };
    for (std::uint32_t i = 0; i < h.counts.size(); ++i) {
        const std::uint64_t n = h.counts[i];
        if (!n)
            continue;
        if (exact) {
            sumIndex += (unsigned __int128)i * n;
        } else {
            sumCentres += centre(i) * (long double)n;
        }
        if (n > best) {
            best = n;
            modeBin = i;
        }
        const double p = double(n) / double(s.count);
        s.entropyBits -= p * std::log2(p);
    }
    const long double count = (long double)s.count;
    const long double mean = exact ? (long double)b.lo + (long double)sumIndex / count : sumCentres / count;
    long double squares = 0;
    for (std::uint32_t i = 0; i < h.counts.size(); ++i) {
        if (!h.counts[i])
            continue;
        const long double d = (exact ? (long double)b.lo + (long double)i : centre(i)) - mean;
        squares += d * d * (long double)h.counts[i];
    }
    s.mean = exact ? double(mean) : std::clamp(double(mean), dataLo, dataHi);
    s.stdDevPopulation = double(std::sqrt(squares / count));
    s.stdDevSample = s.count > 1 ? double(std::sqrt(squares / (count - 1))) : 0.0;
    s.mode = position(modeBin);
    s.median = position(percentileBin(h, 50));
    for (std::size_t i = 0; i < kPercentiles.size(); ++i)
        s.percentiles[i] = position(percentileBin(h, kPercentiles[i]));
    if (!exact) {
        s.resolution = binWidth(b);
        const std::uint32_t quartile = percentileBin(h, 25);
        s.coarse = quartile == percentileBin(h, 75) && !spanOf(quartile).oneValue;
    }
    return s;
}

}  // namespace hs
