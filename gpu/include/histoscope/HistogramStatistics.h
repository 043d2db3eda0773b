// Per-channel statistics of a histogram, with one definition (docs/SCHEMA.md, "Statistics").
// Every value is a value of the data, never a bin artefact: with one bin per integer value
// (identity binning) every statistic is exact; with wider bins or float samples, positions
// (percentiles, median, mode) are the smallest value the bin the rank falls in can hold (its
// lower edge; for integer samples the first integer in it), clamped to the data's exact
// [min, max], and the mean and standard deviations are estimates from the centres of the bins,
// each bin first cut to [min, max], flagged by `exact == false`, known to within `resolution`
// and marked `coarse` when the bins are too wide to tell the data apart.
#pragma once

#include "histoscope/HistogramTypes.h"

#include <array>
#include <optional>

namespace hs {

inline constexpr std::array<double, 5> kPercentiles{1, 5, 25, 75, 95};

struct ChannelStatistics {
    std::uint64_t count = 0;        // in-range samples (the histogram's sum)
    std::uint64_t below = 0;        // samples < lo
    std::uint64_t above = 0;        // samples >= hi
    std::uint64_t nan = 0;
    bool exact = false;             // one bin per integer value: mean and deviations are exact
    // Estimates only (exact == false): the bin width, to within which every position and the
    // mean are known; 0 when exact.
    double resolution = 0;
    // Estimates made from bins too wide for the data: the middle half of the counted samples
    // (ranks 25 % to 75 %) falls in one bin that can hold more than one value of the data, so
    // the median, the quartiles and the mean are little more than that bin.
    bool coarse = false;
    std::optional<double> min;      // the smallest non-NaN sample, when known exactly
    std::optional<double> max;      // the largest non-NaN sample, when known exactly
    double mean = 0;                // of the in-range samples
    double stdDevPopulation = 0;    // sqrt(sum (x - mean)^2 / n)
    double stdDevSample = 0;        // sqrt(sum (x - mean)^2 / (n - 1)), as ImageJ reports; 0 for n < 2
    double median = 0;              // inverted-CDF rule: the smallest x with F(x) >= 1/2
    double mode = 0;                // the fullest bin (the lowest on ties)
    std::array<double, 5> percentiles{};  // at kPercentiles, by the inverted-CDF rule
    // Shares of the non-NaN samples that sit at the clipping points: for integer samples the
    // sample type's extremes (or the bit depth's, see StatisticsContext), for floats the samples
    // outside [lo, hi). Empty when the binning cannot tell (a wide bin holds the extreme and
    // other values too).
    std::optional<double> clippedLowShare;
    std::optional<double> clippedHighShare;
    double entropyBits = 0;         // Shannon entropy of the bin distribution (depends on binning)
};

struct StatisticsContext {
    std::optional<SampleType> type;    // the counted samples' type; unknown: no clipping shares for integers
    std::optional<double> dataMin;     // exact data extremes; by default the histogram's own
    std::optional<double> dataMax;     // (ChannelHistogram::minValue/maxValue when hasValues)
    std::optional<int> bitDepth;       // integer data held in a wider container (10, 12, 14 bits)
};

ChannelStatistics computeStatistics(const ChannelHistogram& histogram, const StatisticsContext& context = {});
double binLowerEdge(const ChannelBinning& binning, std::uint32_t bin);
double binWidth(const ChannelBinning& binning);
// The bin holding the rank of `percent` (0 < percent <= 100) by the inverted-CDF rule: the
// first bin whose cumulative count c satisfies c * 100 >= percent * n. Integer-exact.
std::uint32_t percentileBin(const ChannelHistogram& histogram, double percent);

}  // namespace hs
