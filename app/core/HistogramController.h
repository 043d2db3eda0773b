// Counts histograms on a thread of its own (a QThread running a HistogramWorker), so the GUI
// thread never waits on the engine. Two kinds of work cross to that thread:
//   - live frames (submit): a "newest wins" slot. A frame replaced before the worker took it
//     is never counted (replacedFrames());
//   - one-shot jobs (compareStrategies): queued invocations, run in order, never replaced, and
//     each one always answers with comparisonReady.
// Every request gets a generation number from one counter. Results come back as immutable
// snapshots through the worker's signals; the controller (on the GUI thread) passes on only a
// snapshot newer than the last one it passed on and not older than the last invalidate().
#pragma once

#include "io/Error.h"
#include "io/Frame.h"
#include "app/core/HistogramSettings.h"
#include "app/core/LatestSlot.h"

#include "histoscope/HistogramStatistics.h"
#include "histoscope/HistogramTypes.h"

#include <QObject>
#include <QThread>

#include <memory>
#include <optional>

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
    QString backend;                      // where it was counted ("GPU: ...", "CPU (...)")
    Error error;
    QStringList notices;                  // settings that could not apply as set, out-of-range share
    double wallMs = 0;
};

struct StrategyTiming {
    hs::Strategy strategy = hs::Strategy::Auto;
    hs::Strategy ran = hs::Strategy::Auto;
    double milliseconds = 0;       // median of 5 runs after a warm-up (hs::medianRunMs)
    bool exact = false;            // equal to the CPU reference
    Error error;
};

struct StrategyComparison {
    quint64 generation = 0;        // the generation compareStrategies() returned
    std::vector<StrategyTiming> timings;
    QString backend;
    Error error;                   // the reference itself failed
};

using SnapshotPtr = std::shared_ptr<const HistogramSnapshot>;
using ComparisonPtr = std::shared_ptr<const StrategyComparison>;
Q_DECLARE_METATYPE(SnapshotPtr)
Q_DECLARE_METATYPE(ComparisonPtr)

// One request as it crosses to the worker thread.
struct HistogramJob {
    Frame frame;
    HistogramSettings settings;
    std::optional<hs::Rect> roi;
    quint64 generation = 0;
    qint64 frameIndex = -1;
    quint64 frameSerial = 0;   // one per decoded frame; a job replaced by one of the same frame loses nothing
};

class HistogramWorker;

class HistogramController : public QObject {
    Q_OBJECT

public:
    explicit HistogramController(QObject* parent = nullptr);
    ~HistogramController() override;

    // Call from the controller's thread (the GUI thread). Each returns the request's generation.
    // `frameSerial` names the decoded frame (one number per frame, never 0): a pending job
    // replaced by a job of another frame counts in replacedFrames(); one replaced by the same
    // frame (new settings, a new region) does not, since that frame is still counted.
    quint64 submit(const Frame& frame, const HistogramSettings& settings, std::optional<hs::Rect> roi,
                   qint64 frameIndex = -1, quint64 frameSerial = 0);
    quint64 compareStrategies(const Frame& frame, const HistogramSettings& settings, std::optional<hs::Rect> roi);
    // Results of every request made so far are dropped when they arrive, and a frame not yet
    // taken is discarded: a new source starts, and replacedFrames() starts again from 0.
    // One-shot jobs still answer.
    void invalidate();

    QString backendDescription() const { return m_backend; }
    quint64 lastGeneration() const { return m_generation; }
    qint64 replacedFrames() const { return m_frames->replaced(); }  // never counted: a newer frame came
    qint64 staleResults() const { return m_stale; }                 // counted, then dropped
    QThread* workerThread() { return &m_thread; }                   // tests block it to order events

signals:
    void resultReady(SnapshotPtr snapshot);
    void comparisonReady(ComparisonPtr comparison);
    void backendChanged(const QString& description);

private:
    void onCounted(SnapshotPtr snapshot);

    QThread m_thread;
    HistogramWorker* m_worker = nullptr;      // lives on m_thread
    std::shared_ptr<LatestSlot<HistogramJob>> m_frames;
    quint64 m_generation = 0;     // last generation handed out
    quint64 m_delivered = 0;      // last generation passed on
    quint64 m_floor = 0;          // generations below it are stale
    qint64 m_stale = 0;
    QString m_backend;
};
