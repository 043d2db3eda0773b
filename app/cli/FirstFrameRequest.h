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
//
// The frames of one file must share their channels and sample type to add up (a TIFF's pages
// need not: a 16-bit grey page after an 8-bit RGB one). mismatch() says which frame breaks
// that; with `separateLayouts` (--per-frame, where nothing is summed) such a frame starts a
// binning of its own instead.
class FileBinning {
public:
    FileBinning(FrameSource& source, const CountSettings& counting, bool separateLayouts = false)
        : m_source(source), m_counting(counting), m_separate(separateLayouts) {}
    hs::HistogramRequest requestFor(const Frame& frame);
    // The settings that could not apply as they were (without the file's name), for the
    // frame last passed to requestFor.
    const QStringList& notices() const { return m_notices; }
    // An InvalidInput error naming the file and frame `index` when it cannot be added to the
    // frames before it; unset otherwise (and always with separateLayouts).
    Error mismatch(const Frame& frame, qint64 index, const QString& path) const;
    // Without --bins or --range, a 1-D array of integer keys is binned as numpy.bincount bins
    // it: one bin per value up to the largest present (256 bins over the type's range would
    // lump a u16 key file's values 256 to a bin, which no one counting keys expects).
    void setBincountKeys(bool bincount) { m_bincount = bincount; }

private:
    FrameSource& m_source;
    const CountSettings m_counting;
    bool m_separate;
    bool m_bincount = false;
    std::optional<hs::HistogramRequest> m_first;
    hs::SampleType m_type = hs::SampleType::U8;
    int m_channels = 0;
    QStringList m_notices;
};
