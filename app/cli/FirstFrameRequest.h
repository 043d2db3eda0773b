// The request for a file's first frame, whose binning every later frame shares. For an array of
// floats converted in chunks the range comes from the whole array's extremes, by the same rule
// as for one frame, so the counts equal those of the array counted whole.
#pragma once

#include "app/core/HistogramSettings.h"
#include "io/FrameSource.h"

#include "histoscope/HistogramTypes.h"

// `notices`, when given, receives the settings that could not apply as they were (resolveRequest's
// notices), without the file's name.
hs::HistogramRequest firstFrameRequest(const Frame& frame, FrameSource& source, const CountSettings& counting,
                                       QStringList* notices = nullptr);
