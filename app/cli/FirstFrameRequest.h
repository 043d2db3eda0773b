// The request for a file's first frame, whose binning every later frame shares. A range taken
// from the data is each channel's own (RangeScope::PerChannel). For an array of floats converted
// in chunks it comes from the whole array's extremes, by the same rule as for one frame, so the
// counts equal those of the array counted whole.
#pragma once

#include "app/core/HistogramSettings.h"
#include "io/FrameSource.h"

#include "histoscope/HistogramTypes.h"

#include <optional>

// `notices`, when given, receives the settings that could not apply as they were (resolveRequest's
// notices), without the file's name.
hs::HistogramRequest firstFrameRequest(const Frame& frame, FrameSource& source, const CountSettings& counting,
                                       QStringList* notices = nullptr);

// The request of every frame of one file, in order: the first frame's by firstFrameRequest, each
// later one with the first one's binning (sameBinningRequest), so a video's frames and a chunked
// array's chunks add up. The one home of that rule for `batch` and `histogram`.
class FileBinning {
public:
    FileBinning(FrameSource& source, const CountSettings& counting) : m_source(source), m_counting(counting) {}
    hs::HistogramRequest requestFor(const Frame& frame);
    // The first frame's settings that could not apply as they were (without the file's name).
    const QStringList& notices() const { return m_notices; }

private:
    FrameSource& m_source;
    const CountSettings m_counting;
    std::optional<hs::HistogramRequest> m_first;
    QStringList m_notices;
};
