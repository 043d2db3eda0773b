#include "app/core/ScopeController.h"

#include "app/core/HistogramCounting.h"
#include "app/core/ScopeCounting.h"

namespace {

using Worker = EngineWorker<hs::Histogram2DEngine, ScopeJob, ScopeSnapshot>;

}  // namespace

ScopeController::ScopeController(QObject* parent)
    : QObject(parent),
      m_rate(std::make_shared<Rate>()),
      m_worker(this, QStringLiteral("scope engine"),
               Worker::Hooks{
                   [](const ScopeJob& job) { return job.settings.useGpu; },
                   [](hs::Histogram2DEngine& engine, const ScopeJob& job) { return countScopeJob(engine, job); },
                   [](const ScopeSnapshot& s) { return deviceFaultOf(s.error); },
                   [rate = m_rate](ScopeSnapshot& s, const QString& backend, const QString& notice) {
                       s.backend = backend;
                       if (!notice.isEmpty())
                           s.notices << notice;
                       if (!rate->clock.isValid())
                           rate->clock.start();
                       rate->meter.add(rate->clock.nsecsElapsed(), ++rate->counted);
                       s.scopesPerSecond = rate->meter.rate();
                   },
                   [this](ScopeSnapshotPtr s) { emit resultReady(std::move(s)); },
                   [this](const QString& description) {
                       m_backend = description;
                       emit backendChanged(description);
                   },
                   [this](const QString& notice) { emit deviceNotice(notice); },
               })
{
    qRegisterMetaType<ScopeSnapshotPtr>();
}

ScopeController::~ScopeController() = default;

quint64 ScopeController::submit(const Frame& frame, std::optional<hs::Rect> roi, const ScopeSettings& settings,
                                qint64 frameIndex)
{
    return m_worker.submit(ScopeJob{frame, roi, settings, 0, frameIndex});
}

void ScopeController::invalidate() { m_worker.invalidate(); }
