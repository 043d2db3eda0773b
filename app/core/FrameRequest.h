// Turns a loaded Frame plus the user's settings into an engine request: bins, range and the
// active channels in the frame's storage order (OpenCV's BGR included).
#pragma once

#include "io/Frame.h"
#include "app/core/HistogramSettings.h"

#include "histoscope/HistogramTypes.h"

#include <optional>

hs::HistogramRequest frameRequest(const Frame& frame, const CountSettings& settings,
                                  std::optional<hs::Rect> roi = std::nullopt);
// Display name of each result channel ("R", "G", "B", "A", "gray").
QString resultChannelName(const Frame& frame, const hs::ChannelHistogram& histogram);
