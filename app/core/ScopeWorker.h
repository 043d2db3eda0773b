// The engine side of ScopeController: lives on the controller's thread, owns the 2-D engine
// (created there: one engine per thread) and answers through its own signals.
#pragma once

#include "app/core/LiveCounters.h"
#include "app/core/ScopeController.h"

#include "histoscope/Histogram2D.h"

#include <QElapsedTimer>

#include <memory>

// Counts `job` on `engine` into `snapshot` (planes, code ranges, notices, error). Throws only
// what allocation throws.
void countScopes(hs::Histogram2DEngine& engine, const ScopeJob& job, ScopeSnapshot& snapshot);

class ScopeWorker : public QObject {
    Q_OBJECT

public:
    explicit ScopeWorker(std::shared_ptr<LatestSlot<ScopeJob>> frames) : m_frames(std::move(frames)) { m_clock.start(); }

    void countLatest();   // on the worker's thread: takes the newest frame, if any, and counts it

signals:
    void counted(ScopeSnapshotPtr snapshot);
    void backendChanged(const QString& description);

private:
    void ensureEngine(bool useGpu);

    std::shared_ptr<LatestSlot<ScopeJob>> m_frames;
    std::unique_ptr<hs::Histogram2DEngine> m_engine;
    bool m_engineUsesGpu = false;
    QString m_backend;
    QElapsedTimer m_clock;
    RateMeter m_rate;
    qint64 m_counted = 0;
};
