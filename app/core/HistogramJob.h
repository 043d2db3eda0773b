// One histogram request as it crosses to the histogram worker's thread.
#pragma once

#include "io/Frame.h"
#include "app/core/HistogramSettings.h"

#include "histoscope/HistogramTypes.h"

#include <optional>

struct HistogramJob {
    Frame frame;
    HistogramSettings settings;
    std::optional<hs::Rect> roi;
    quint64 generation = 0;
    qint64 frameIndex = -1;
    quint64 frameSerial = 0;   // one per decoded frame; a job replaced by one of the same frame loses nothing
};
