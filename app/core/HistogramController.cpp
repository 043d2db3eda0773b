#include "app/core/HistogramController.h"

#include "app/core/FrameRequest.h"
#include "app/core/HistogramWorker.h"
#include "app/core/LumaPlane.h"

#include "histoscope/ReferenceHistogram.h"

#include <QElapsedTimer>

HistogramController::HistogramController(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<SnapshotPtr>();
    qRegisterMetaType<ComparisonPtr>();
    m_worker = new HistogramWorker(this);
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    m_thread.setObjectName(QStringLiteral("histogram engine"));
    m_thread.start();
}

HistogramController::~HistogramController()
{
    {
        std::lock_guard lock(m_mutex);
        m_pending.reset();
    }
    m_thread.quit();
    m_thread.wait();
}

quint64 HistogramController::enqueue(Job job)
{
    std::lock_guard lock(m_mutex);
    job.generation = ++m_generation;
    m_pending = std::move(job);
    if (!m_scheduled) {
        m_scheduled = true;
        QMetaObject::invokeMethod(m_worker, &HistogramWorker::process, Qt::QueuedConnection);
    }
    return m_generation;
}

quint64 HistogramController::submit(const Frame& frame, const HistogramSettings& settings, std::optional<hs::Rect> roi)
{
    return enqueue(Job{frame, settings, roi, 0, false});
}

void HistogramController::compareStrategies(const Frame& frame, const HistogramSettings& settings,
                                            std::optional<hs::Rect> roi)
{
    enqueue(Job{frame, settings, roi, 0, true});
}

QString HistogramController::backendDescription() const
{
    std::lock_guard lock(m_mutex);
    return m_backend;
}

std::optional<HistogramController::Job> HistogramController::takeJob()
{
    std::lock_guard lock(m_mutex);
    std::optional<Job> job = std::move(m_pending);
    m_pending.reset();
    if (!job)
        m_scheduled = false;
    return job;
}

void HistogramWorker::ensureEngine(bool useGpu)
{
    if (m_engine && m_engineUsesGpu == useGpu)
        return;
    m_engine = std::make_unique<hs::HistogramEngine>(hs::EngineOptions{useGpu});
    m_engineUsesGpu = useGpu;
    QString description = m_engine->hasGpu()
        ? QStringLiteral("GPU: %1").arg(QString::fromStdString(m_engine->deviceInfo()->name))
        : QStringLiteral("CPU (%1)").arg(QString::fromStdString(m_engine->notice()));
    {
        std::lock_guard lock(m_controller->m_mutex);
        m_controller->m_backend = description;
    }
    emit m_controller->backendChanged(description);
}

void HistogramWorker::process()
{
    while (std::optional<HistogramController::Job> job = m_controller->takeJob()) {
        ensureEngine(job->settings.counting.useGpu);
        if (job->compare)
            emit m_controller->comparisonReady(compare(*job));
        else
            emit m_controller->resultReady(count(*job));
    }
}

SnapshotPtr HistogramWorker::count(const HistogramController::Job& job)
{
    auto snapshot = std::make_shared<HistogramSnapshot>();
    snapshot->generation = job.generation;
    snapshot->frame = job.frame;
    snapshot->settings = job.settings;
    snapshot->roi = job.roi;
    QElapsedTimer timer;
    timer.start();
    hs::Status status = m_engine->compute(frameRequest(job.frame, job.settings.counting, job.roi), snapshot->result);
    if (status) {
        if (auto luma = lumaPlane(job.frame, job.settings.display.luma)) {
            hs::HistogramResult lumaResult;
            status = m_engine->compute(frameRequest(*luma, job.settings.counting, job.roi), lumaResult);
            if (status && !lumaResult.channels.empty())
                snapshot->luma = lumaResult.channels.front();
        }
    }
    if (!status)
        snapshot->error = QString::fromStdString(status.message);
    for (const hs::ChannelHistogram& h : snapshot->result.channels)
        snapshot->statistics.push_back(hs::computeStatistics(h, statisticsContext(job.frame, h)));
    if (snapshot->luma)
        snapshot->lumaStatistics = hs::computeStatistics(*snapshot->luma, statisticsContext(job.frame, *snapshot->luma));
    snapshot->wallMs = double(timer.nsecsElapsed()) / 1e6;
    return snapshot;
}

ComparisonPtr HistogramWorker::compare(const HistogramController::Job& job)
{
    auto comparison = std::make_shared<StrategyComparison>();
    comparison->generation = job.generation;
    comparison->backend = m_controller->backendDescription();
    hs::HistogramRequest request = frameRequest(job.frame, job.settings.counting, job.roi);
    hs::HistogramResult reference;
    const hs::Status referenceStatus = hs::referenceHistogram(request, reference);
    for (hs::Strategy s : hs::allStrategies()) {
        if (hs::isGpuStrategy(s) && !m_engine->hasGpu())
            continue;
        StrategyTiming timing;
        timing.strategy = s;
        request.strategy = s;
        hs::HistogramResult result;
        // A warm-up, then the median of five runs.
        std::vector<double> times;
        hs::Status status;
        for (int i = 0; i < 6 && status; ++i) {
            QElapsedTimer timer;
            timer.start();
            status = m_engine->compute(request, result);
            const double wall = double(timer.nsecsElapsed()) / 1e6;
            if (i > 0)
                times.push_back(m_engine->hasGpu() && s != hs::Strategy::Cpu ? result.timings.totalMs() - result.timings.uploadMs - result.timings.downloadMs : wall);
        }
        if (!status) {
            timing.error = QString::fromStdString(status.message);
        } else {
            std::sort(times.begin(), times.end());
            timing.milliseconds = times[times.size() / 2];
            timing.exact = referenceStatus && result == reference;
            timing.ran = result.strategyRan;
        }
        comparison->timings.push_back(timing);
    }
    return comparison;
}
