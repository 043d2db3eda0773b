// Turns a loaded Frame plus the user's settings into an engine request: bins, range and the
// active channels in the frame's storage order (OpenCV's BGR included).
#pragma once

#include "io/Frame.h"
#include "app/core/HistogramSettings.h"

#include "histoscope/HistogramStatistics.h"
#include "histoscope/HistogramTypes.h"

#include <QVector>

#include <optional>

hs::HistogramRequest frameRequest(const Frame& frame, const CountSettings& settings,
                                  std::optional<hs::Rect> roi = std::nullopt);
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
