#include "histoscope/HistogramStatistics.h"

#include <algorithm>
#include <cmath>

namespace hs {

double binWidth(const ChannelBinning& b)
{
    return (upperEdge(b) - b.lo) / b.bins;
}

double binLowerEdge(const ChannelBinning& b, std::uint32_t bin) { return b.lo + binWidth(b) * bin; }

double quantile(const ChannelHistogram& h, double fraction)
{
    const std::uint64_t total = h.inRange();
    if (total == 0)
        return 0;
    const double target = fraction * double(total);
    double cumulative = 0;
    for (std::uint32_t b = 0; b < h.counts.size(); ++b) {
        const double next = cumulative + double(h.counts[b]);
        if (next >= target && h.counts[b] > 0)
            return binLowerEdge(h.binning, b) + binWidth(h.binning) * ((target - cumulative) / double(h.counts[b]));
        cumulative = next;
    }
    return binLowerEdge(h.binning, std::uint32_t(h.counts.size()));
}

ChannelStatistics computeStatistics(const ChannelHistogram& h)
{
    ChannelStatistics s;
    s.below = h.below;
    s.above = h.above;
    s.nan = h.nan;
    s.count = h.inRange();
    if (s.count == 0)
        return s;
    const double width = binWidth(h.binning);
    // One integer per bin: the bin stands for that value, as ImageJ reports 8-bit statistics.
    const bool unitBins = h.binning.identity && width == 1.0;
    const double centreOffset = unitBins ? 0.0 : 0.5 * width;
    double sum = 0, sumSq = 0;
    std::uint64_t best = 0;
    std::int64_t first = -1, last = -1;
    for (std::uint32_t b = 0; b < h.counts.size(); ++b) {
        const std::uint64_t n = h.counts[b];
        if (!n)
            continue;
        if (first < 0)
            first = b;
        last = b;
        const double centre = binLowerEdge(h.binning, b) + centreOffset;
        sum += centre * double(n);
        sumSq += centre * centre * double(n);
        if (n > best) {
            best = n;
            s.mode = centre;
        }
        const double p = double(n) / double(s.count);
        s.entropyBits -= p * std::log2(p);
    }
    s.min = binLowerEdge(h.binning, std::uint32_t(first));
    s.max = binLowerEdge(h.binning, std::uint32_t(last)) + (unitBins ? 0.0 : width);
    s.mean = sum / double(s.count);
    s.stdDev = std::sqrt(std::max(0.0, sumSq / double(s.count) - s.mean * s.mean));
    s.median = quantile(h, 0.5);
    for (std::size_t i = 0; i < kPercentiles.size(); ++i)
        s.percentiles[i] = quantile(h, kPercentiles[i] / 100.0);
    const double all = double(h.total() - h.nan);
    s.clippedLowShare = (double(h.counts.front()) + double(h.below)) / all;
    s.clippedHighShare = (double(h.counts.back()) + double(h.above)) / all;
    return s;
}

}  // namespace hs
