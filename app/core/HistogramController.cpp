#include "app/core/HistogramController.h"

#include "app/core/HistogramCounting.h"

namespace {

using Worker = EngineWorker<hs::HistogramEngine, HistogramJob, HistogramSnapshot>;

}  // namespace

HistogramController::HistogramController(QObject* parent)
    : QObject(parent),
      m_worker(this, QStringLiteral("histogram engine"),
               Worker::Hooks{
                   [](const HistogramJob& job) { return job.settings.counting.useGpu; },
                   [](hs::HistogramEngine& engine, const HistogramJob& job) { return countJob(engine, job); },
                   [](const HistogramSnapshot& s) { return deviceFaultOf(s.error); },
                   [](HistogramSnapshot& s, const QString& backend, const QString& notice) {
                       s.backend = backend;
                       if (!notice.isEmpty())
                           s.notices << notice;
                   },
                   [this](SnapshotPtr s) { emit resultReady(std::move(s)); },
                   [this](const QString& description) {
                       m_backend = description;
                       emit backendChanged(description);
                   },
                   [this](const QString& notice) { emit deviceNotice(notice); },
               },
               [](const HistogramJob& a, const HistogramJob& b) { return a.frameSerial != 0 && a.frameSerial == b.frameSerial; })
{
    qRegisterMetaType<SnapshotPtr>();
    qRegisterMetaType<ComparisonPtr>();
}

HistogramController::~HistogramController() = default;

quint64 HistogramController::submit(const Frame& frame, const HistogramSettings& settings, std::optional<hs::Rect> roi,
                                    qint64 frameIndex, quint64 frameSerial)
{
    return m_worker.submit(HistogramJob{frame, settings, roi, 0, frameIndex, frameSerial});
}

quint64 HistogramController::compareStrategies(const Frame& frame, const HistogramSettings& settings,
                                               std::optional<hs::Rect> roi)
{
    const quint64 generation = m_worker.nextGeneration();
    m_worker.post([job = HistogramJob{frame, settings, roi, generation, -1, 0}](EngineHolder<hs::HistogramEngine>& holder) {
                      return ComparisonPtr(compareJob(holder, job));
                  },
                  [this](ComparisonPtr comparison) { emit comparisonReady(std::move(comparison)); });
    return generation;
}

void HistogramController::invalidate() { m_worker.invalidate(); }
