// The engine side of HistogramController: lives on the controller's thread.
#pragma once

#include "app/core/HistogramController.h"

#include "histoscope/HistogramEngine.h"

class HistogramWorker : public QObject {
    Q_OBJECT

public:
    explicit HistogramWorker(HistogramController* controller) : m_controller(controller) {}

public slots:
    void process();

private:
    void ensureEngine(bool useGpu);
    SnapshotPtr count(const HistogramController::Job& job);
    ComparisonPtr compare(const HistogramController::Job& job);

    HistogramController* m_controller;
    std::unique_ptr<hs::HistogramEngine> m_engine;
    bool m_engineUsesGpu = false;
};
