// Counts histograms on a thread of its own, so the GUI thread never waits on the engine: a thin
// front over the app's one EngineWorker (newest-wins live frames with a generation filter,
// one-shot Compare Strategies jobs that always answer, the device-lost policy). Results come back
// as immutable snapshots, with their plot values already made on the worker.
#pragma once

#include "app/core/EngineWorker.h"
#include "app/core/HistogramJob.h"
#include "app/core/HistogramSnapshot.h"
#include "app/core/StrategyComparison.h"

#include "histoscope/HistogramEngine.h"

#include <QObject>
#include <QThread>

#include <optional>

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
    quint64 lastGeneration() const { return m_worker.lastGeneration(); }
    qint64 replacedFrames() const { return m_worker.replacedJobs(); }   // never counted: a newer frame came
    qint64 staleResults() const { return m_worker.staleResults(); }     // counted, then dropped
    QThread* workerThread() { return m_worker.thread(); }               // tests block it to order events

signals:
    void resultReady(SnapshotPtr snapshot);
    void comparisonReady(ComparisonPtr comparison);
    void backendChanged(const QString& description);
    // The GPU faulted and the worker survived it: what happened and where counting continues.
    void deviceNotice(const QString& message);

private:
    QString m_backend;
    EngineWorker<hs::HistogramEngine, HistogramJob, HistogramSnapshot> m_worker;   // last: stopped first
};
