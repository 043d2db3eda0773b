// The values of the record schema (docs/SCHEMA.md): one histogram record per channel of a
// file or frame, and the summary that ends a finished output.
#pragma once

#include "histoscope/HistogramTypes.h"

#include <QString>
#include <QStringList>

#include <optional>

struct HistogramRecord {
    QString file;              // as given; bytes that are not UTF-8 kept (io/NativePath.h)
    qint64 frame = -1;         // -1: not a video frame
    QString channel;           // gray, R, G, B, A or luma
    hs::ChannelHistogram histogram;  // binning (bins, lo, hi, identity), counts, below/above/nan,
                                     // and the exact extremes (hasValues, minValue, maxValue)
    std::optional<hs::SampleType> sampleType;  // the counted samples' type (statistics' clipping points)
    std::optional<hs::Rect> region;            // the counted region; the whole frame when absent
    // What the user must know about these counts (a file filled in by the decoder, a range that
    // did not apply, samples outside the range), each naming the file. JSON Lines only.
    QStringList warnings = {};
};

// What a finished run wrote: its last record. Merge sums them, and checks `records` against
// the histogram records it read, so a cut or spliced file does not pass as whole.
struct RunSummary {
    qint64 records = 0;  // histogram records before the summary
    qint64 files = 0;    // inputs counted
    qint64 failed = 0;   // inputs listed as failed
    qint64 frames = 0;
};
