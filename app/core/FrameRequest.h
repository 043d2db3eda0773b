// Turns a loaded Frame plus the user's settings into an engine request: the range (by one rule
// for every source), the bins and the active channels in the frame's storage order (OpenCV's
// BGR included), with a notice for every setting that could not apply as it was.
#pragma once

#include "app/core/HistogramSettings.h"
#include "common/Error.h"
#include "io/Frame.h"

#include "histoscope/HistogramStatistics.h"
#include "histoscope/HistogramTypes.h"

#include <QStringList>
#include <QVector>

#include <optional>

struct ResolvedRequest {
    hs::HistogramRequest request;
    QStringList notices;   // e.g. a manual range that holds no integer, replaced by the type's
    Error error;           // no channel selected: nothing to count
};

ResolvedRequest resolveRequest(const Frame& frame, const CountSettings& settings,
                               std::optional<hs::Rect> roi = std::nullopt);
// The request alone, for callers that report notices elsewhere.
hs::HistogramRequest frameRequest(const Frame& frame, const CountSettings& settings,
                                  std::optional<hs::Rect> roi = std::nullopt);

// A later frame of the same file counted with the first frame's binning, so the counts of
// every frame (or chunk) of a file add up: a range taken from the data is the first frame's.
hs::HistogramRequest sameBinningRequest(const Frame& frame, const hs::HistogramRequest& first,
                                        std::optional<hs::Rect> roi = std::nullopt);

// The smallest and largest finite samples of the region (every channel), if there is one.
std::optional<ValueRange> finiteExtremes(const Frame& frame, std::optional<hs::Rect> roi = std::nullopt);

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
