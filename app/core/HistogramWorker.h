// The engine side of HistogramController: lives on the controller's thread, owns the engine
// (created there, so one engine per thread) and answers through its own signals.
#pragma once

#include "app/core/HistogramController.h"

#include "histoscope/HistogramEngine.h"

#include <memory>

// One job counted on `engine` (owned by the calling thread) into `snapshot`: the request
// resolved by the one rule, the luma plane when shown, statistics, notices. Throws only what
// allocation or OpenCV throw. The worker and the timeline's background pass share it.
void countSnapshot(hs::HistogramEngine& engine, const HistogramJob& job, HistogramSnapshot& snapshot);

class HistogramWorker : public QObject {
    Q_OBJECT

public:
    explicit HistogramWorker(std::shared_ptr<LatestSlot<HistogramJob>> frames) : m_frames(std::move(frames)) {}

    // Both run on the worker's thread, invoked queued by the controller.
    void countLatest();                      // takes the newest frame, if any, and counts it
    void compare(const HistogramJob& job);   // one-shot: always emits compared

signals:
    void counted(SnapshotPtr snapshot);
    void compared(ComparisonPtr comparison);
    void backendChanged(const QString& description);

private:
    void ensureEngine(bool useGpu);
    SnapshotPtr count(const HistogramJob& job);
    void countInto(const HistogramJob& job, HistogramSnapshot& snapshot);
    void compareInto(const HistogramJob& job, StrategyComparison& comparison);

    std::shared_ptr<LatestSlot<HistogramJob>> m_frames;
    std::unique_ptr<hs::HistogramEngine> m_engine;
    bool m_engineUsesGpu = false;
    QString m_backend;
};
