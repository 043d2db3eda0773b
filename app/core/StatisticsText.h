// How a statistic reads as text, in the app's Statistics panel and `histoscope-cli histogram`:
// exact values as they are, estimates marked "≈" and rounded to the digits their bins give, so
// no reader takes a bin's edge for six significant digits of the data.
#pragma once

#include "histoscope/HistogramStatistics.h"

#include <QString>

// `value` as a statistic of `statistics`' channel: an estimate (statistics.exact false) reads
// "≈1.73" in bins of 0.0176; an exact one with six significant digits.
QString statisticText(double value, const hs::ChannelStatistics& statistics);
// A value known to within `resolution`, rounded to the digits that gives: ≈1.73 for 1.73242 in
// bins of 0.0176, ≈30200 for 30208 in bins of 256, ≈2e+27 in bins of 3.9e27.
QString estimateText(double value, double resolution);
// What the channel's numbers are worth: "exact", "bins of 0.0176", or "coarse: bins of 3.9e+27".
QString precisionText(const hs::ChannelStatistics& statistics);
