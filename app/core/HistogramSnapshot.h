// One counted frame as the histogram worker hands it to the GUI thread: immutable once made,
// shared read-only (SnapshotPtr). Everything whose size grows with the bins or the pixels is
// made on the worker, so the GUI thread only lays it out.
#pragma once

#include "common/Error.h"
#include "io/Frame.h"
#include "app/core/HistogramSettings.h"

#include "histoscope/HistogramStatistics.h"
#include "histoscope/HistogramTypes.h"

#include <QMetaType>
#include <QStringList>
#include <QVector>

#include <memory>
#include <optional>

// One channel's counts as the plot takes them (doubles, shared without a copy by the view), with
// the bounded envelope the plot paints from (HistogramSeries in widgets/HistogramDisplay.h).
struct PlotChannel {
    static constexpr int kMaxPeaks = 4096;   // columns of the envelope: wider than any plot
    QString name;                 // "R", "G", "B", "A", "gray", "luma"
    QVector<double> counts;       // one per bin
    double total = 0;             // the sum of counts: what the plot scales a reference by
    double lo = 0;                // the bins' range [lo, hi)
    double hi = 0;
    QVector<double> peaks;        // the largest count of each group of binsPerPeak bins
    QVector<double> cumulative;   // the sum of every bin up to the end of each group
    int binsPerPeak = 1;
};

struct HistogramSnapshot {
    quint64 generation = 0;
    Frame frame;                          // the frame counted (names its channels)
    qint64 frameIndex = -1;               // its position in the source, as submitted
    quint64 frameSerial = 0;              // which decoded frame it is, as submitted (0: not said)
    HistogramSettings settings;
    std::optional<hs::Rect> roi;
    hs::HistogramResult result;
    std::optional<hs::ChannelHistogram> luma;
    // Computed on the worker, so the GUI thread only lays them out: parallel to result.channels.
    std::vector<hs::ChannelStatistics> statistics;
    std::optional<hs::ChannelStatistics> lumaStatistics;
    // The display-ordered channels (R, G, B, A or gray, then luma) as plot values.
    QVector<PlotChannel> plot;
    QString backend;                      // where it was counted ("GPU: ...", "CPU (...)")
    Error error;
    QStringList notices;                  // settings that could not apply as set, out-of-range share, a fault survived
    double wallMs = 0;
};

using SnapshotPtr = std::shared_ptr<const HistogramSnapshot>;
Q_DECLARE_METATYPE(SnapshotPtr)

// The plot values of a snapshot's channels (snapshot.plot), made from its result and luma.
QVector<PlotChannel> plotChannels(const HistogramSnapshot& snapshot);
