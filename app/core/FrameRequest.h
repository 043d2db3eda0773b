// Turns a loaded Frame plus the user's settings into an engine request: the range (by one rule
// for every source), the bins and the active channels in the frame's storage order (OpenCV's
// BGR included), with a notice for every setting that could not apply as it was. Every range it
// gives is one the engine takes, and is what is binned: an integer range is whole numbers.
#pragma once

#include "app/core/HistogramSettings.h"
#include "common/Error.h"
#include "io/Frame.h"

#include "histoscope/HistogramStatistics.h"
#include "histoscope/HistogramTypes.h"

#include <QStringList>
#include <QVector>

#include <array>
#include <optional>

struct ResolvedRequest {
    hs::HistogramRequest request;
    QStringList notices;   // e.g. a manual range that holds no integer, replaced by the type's
    Error error;           // no channel selected: nothing to count
};

// Per storage channel: the smallest and largest finite samples, unset for a channel without one.
using ChannelExtremes = std::array<std::optional<ValueRange>, hs::kMaxChannels>;

// Whose data a range taken from the data (a float type's range, min-max) holds.
enum class RangeScope {
    // Each channel's own, so one outlier in B leaves R's and G's bins alone: the command line,
    // whose records each state their own range.
    PerChannel,
    // One range holding every active channel's data (and `alsoHold`), for a plot that draws every
    // channel on one axis: the app. It says so where that makes a channel's statistics coarse.
    Shared,
};

struct RangeOptions {
    RangeScope scope = RangeScope::PerChannel;
    // The data the ranges must hold; unset: the frame's (region's) own. A float array converted
    // in chunks gives the whole array's here, so each chunk is binned as the whole would be.
    std::optional<ChannelExtremes> extremes;
    // Shared scope: other samples the one range holds too (the luma plane counted beside it).
    std::optional<ValueRange> alsoHold;
};

ResolvedRequest resolveRequest(const Frame& frame, const CountSettings& settings,
                               std::optional<hs::Rect> roi = std::nullopt, const RangeOptions& options = {});
// The request alone, for callers that report notices elsewhere.
hs::HistogramRequest frameRequest(const Frame& frame, const CountSettings& settings,
                                  std::optional<hs::Rect> roi = std::nullopt, const RangeOptions& options = {});

// A later frame of the same file counted with the first frame's binning, so the counts of
// every frame (or chunk) of a file add up: a range taken from the data is the first frame's.
hs::HistogramRequest sameBinningRequest(const Frame& frame, const hs::HistogramRequest& first,
                                        std::optional<hs::Rect> roi = std::nullopt);

// The smallest and largest finite samples of the region (every channel), if there is one.
std::optional<ValueRange> finiteExtremes(const Frame& frame, std::optional<hs::Rect> roi = std::nullopt);
// The same for each channel of the region, in storage order.
ChannelExtremes channelFiniteExtremes(const Frame& frame, std::optional<hs::Rect> roi = std::nullopt);

// The widest part of the float range [lo, hi) that the engine bins (its float width finite,
// both edges finite floats), and whether that is less than was asked.
ValueRange engineFloatRange(ValueRange range, bool* narrowed = nullptr);

// A warning when more than `share` of the non-NaN samples fell outside the counted range.
QString outOfRangeWarning(const hs::HistogramResult& result, double share = 0.001);

// Display name of each result channel ("R", "G", "B", "A", "gray").
QString resultChannelName(const Frame& frame, const hs::ChannelHistogram& histogram);

struct NamedChannel {
    QString name;
    const hs::ChannelHistogram* histogram = nullptr;  // points into the result passed in
};
// The result's channels in display order (R, G, B, A, or gray), whatever the storage order
// (OpenCV's BGR included): the one place that maps storage to display for every output.
QVector<NamedChannel> displayOrderedChannels(const Frame& frame, const hs::HistogramResult& result);

// What statistics need to know beyond the counts: the frame's sample type, and the exact
// extremes of the histogram's samples.
hs::StatisticsContext statisticsContext(const Frame& frame, const hs::ChannelHistogram& histogram);
