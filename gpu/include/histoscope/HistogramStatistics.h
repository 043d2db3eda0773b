// Per-channel statistics derived from a histogram alone (bin centres stand for the samples),
// as ImageJ and GIMP report them.
#pragma once

#include "histoscope/HistogramTypes.h"

#include <array>

namespace hs {

struct ChannelStatistics {
    std::uint64_t count = 0;        // in-range samples
    double min = 0;                 // lower edge of the first non-empty bin
    double max = 0;                 // upper edge of the last non-empty bin
    double mean = 0;
    double stdDev = 0;
    double median = 0;
    double mode = 0;                // centre of the fullest bin
    std::array<double, 5> percentiles{};  // 1, 5, 25, 75, 95 -> see kPercentiles
    double clippedLowShare = 0;     // share of samples at or below the first bin (incl. below range)
    double clippedHighShare = 0;    // share in the last bin or above range
    double entropyBits = 0;         // Shannon entropy of the bin distribution
    std::uint64_t below = 0;
    std::uint64_t above = 0;
    std::uint64_t nan = 0;
};

inline constexpr std::array<double, 5> kPercentiles{1, 5, 25, 75, 95};

ChannelStatistics computeStatistics(const ChannelHistogram& histogram);
double binLowerEdge(const ChannelBinning& binning, std::uint32_t bin);
double binWidth(const ChannelBinning& binning);
// The value below which `fraction` of the in-range samples lie (interpolated inside the bin).
double quantile(const ChannelHistogram& histogram, double fraction);

}  // namespace hs
