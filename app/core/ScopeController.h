// Counts the video scopes (waveform, RGB parade, vectorscope, one 2-D histogram) on a thread of
// its own: a thin front over the app's one EngineWorker, as HistogramController is, with one
// hs::Histogram2DEngine (GPU when the job allows and there is one, else the CPU). Live frames go
// through a "newest wins" slot, every request gets a generation number, a result older than the
// last invalidate() (a new source) is dropped, and the device-lost policy rebuilds the engine
// after a GPU fault.
#pragma once

#include "app/core/EngineWorker.h"
#include "app/core/LiveCounters.h"
#include "app/core/ScopeTypes.h"

#include "histoscope/Histogram2D.h"

#include <QElapsedTimer>
#include <QObject>
#include <QThread>

#include <memory>
#include <optional>

class ScopeController : public QObject {
    Q_OBJECT

public:
    explicit ScopeController(QObject* parent = nullptr);
    ~ScopeController() override;

    // From the controller's thread (the GUI thread); returns the request's generation.
    quint64 submit(const Frame& frame, std::optional<hs::Rect> roi, const ScopeSettings& settings, qint64 frameIndex = -1);
    // Results of every request made so far are dropped when they arrive; a frame not yet taken
    // is discarded.
    void invalidate();

    QString backendDescription() const { return m_backend; }
    quint64 lastGeneration() const { return m_worker.lastGeneration(); }
    quint64 deliveredGeneration() const { return m_worker.deliveredGeneration(); }
    qint64 replacedFrames() const { return m_worker.replacedJobs(); }
    qint64 staleResults() const { return m_worker.staleResults(); }
    QThread* workerThread() { return m_worker.thread(); }   // tests block it to order events

signals:
    void resultReady(ScopeSnapshotPtr snapshot);
    void backendChanged(const QString& description);
    void deviceNotice(const QString& message);

private:
    // The rate of counted scopes over the last second: worker thread only.
    struct Rate {
        QElapsedTimer clock;
        RateMeter meter;
        qint64 counted = 0;
    };
    QString m_backend;
    std::shared_ptr<Rate> m_rate;
    EngineWorker<hs::Histogram2DEngine, ScopeJob, ScopeSnapshot> m_worker;   // last: stopped first
};
