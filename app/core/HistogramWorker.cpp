#include "app/core/HistogramWorker.h"

#include "app/core/FrameRequest.h"
#include "app/core/LumaPlane.h"

#include "histoscope/ReferenceHistogram.h"
#include "histoscope/RunTiming.h"

#include <QElapsedTimer>

void HistogramWorker::ensureEngine(bool useGpu)
{
    if (m_engine && m_engineUsesGpu == useGpu)
        return;
    m_engine = std::make_unique<hs::HistogramEngine>(hs::EngineOptions{useGpu});
    m_engineUsesGpu = useGpu;
    m_backend = m_engine->hasGpu()
        ? QStringLiteral("GPU: %1").arg(QString::fromStdString(m_engine->deviceInfo()->name))
        : QStringLiteral("CPU (%1)").arg(QString::fromStdString(m_engine->notice()));
    emit backendChanged(m_backend);
}

void HistogramWorker::countLatest()
{
    // One frame per invocation: the controller posts one invocation each time the slot goes
    // from empty to full, so a frame put while this one is counted gets its own turn.
    if (std::optional<HistogramJob> job = m_frames->take())
        emit counted(count(*job));
}

namespace {

// What a job that threw (allocation, OpenCV in the luma plane) answers instead.
Error thrown(const std::exception& e)
{
    return Error::make(ErrorKind::Engine, {}, QString::fromUtf8(e.what()).trimmed());
}

}  // namespace

SnapshotPtr HistogramWorker::count(const HistogramJob& job)
{
    auto snapshot = std::make_shared<HistogramSnapshot>();
    snapshot->generation = job.generation;
    snapshot->frame = job.frame;
    snapshot->frameIndex = job.frameIndex;
    snapshot->frameSerial = job.frameSerial;
    snapshot->settings = job.settings;
    snapshot->roi = job.roi;
    try {
        countInto(job, *snapshot);
    } catch (const std::exception& e) {
        snapshot->error = thrown(e);
    }
    return snapshot;
}

void HistogramWorker::countInto(const HistogramJob& job, HistogramSnapshot& snapshot)
{
    ensureEngine(job.settings.counting.useGpu);
    snapshot.backend = m_backend;
    countSnapshot(*m_engine, job, snapshot);
}

void countSnapshot(hs::HistogramEngine& engine, const HistogramJob& job, HistogramSnapshot& snapshot)
{
    QElapsedTimer timer;
    timer.start();
    const ResolvedRequest resolved = resolveRequest(job.frame, job.settings.counting, job.roi);
    snapshot.notices = resolved.notices;
    if (resolved.error.isError()) {
        snapshot.error = resolved.error;
        snapshot.wallMs = double(timer.nsecsElapsed()) / 1e6;
        return;
    }
    hs::Status status = engine.compute(resolved.request, snapshot.result);
    if (status) {
        if (auto luma = lumaPlane(job.frame, job.settings.display.luma)) {
            hs::HistogramResult lumaResult;
            status = engine.compute(frameRequest(*luma, job.settings.counting, job.roi), lumaResult);
            if (status && !lumaResult.channels.empty())
                snapshot.luma = lumaResult.channels.front();
        }
    }
    snapshot.error = Error::fromStatus(status, {});
    if (status)
        if (const QString warning = outOfRangeWarning(snapshot.result); !warning.isEmpty())
            snapshot.notices << warning;
    for (const hs::ChannelHistogram& h : snapshot.result.channels)
        snapshot.statistics.push_back(hs::computeStatistics(h, statisticsContext(job.frame, h)));
    if (snapshot.luma)
        snapshot.lumaStatistics = hs::computeStatistics(*snapshot.luma, statisticsContext(job.frame, *snapshot.luma));
    snapshot.wallMs = double(timer.nsecsElapsed()) / 1e6;
}

void HistogramWorker::compare(const HistogramJob& job)
{
    auto comparison = std::make_shared<StrategyComparison>();
    comparison->generation = job.generation;
    try {
        compareInto(job, *comparison);
    } catch (const std::exception& e) {
        comparison->error = thrown(e);
    }
    emit compared(comparison);   // a one-shot job always answers
}

void HistogramWorker::compareInto(const HistogramJob& job, StrategyComparison& comparison)
{
    ensureEngine(job.settings.counting.useGpu);
    comparison.backend = m_backend;
    hs::HistogramRequest request = frameRequest(job.frame, job.settings.counting, job.roi);
    hs::HistogramResult reference;
    comparison.error = Error::fromStatus(hs::referenceHistogram(request, reference), {});
    for (hs::Strategy s : hs::allStrategies()) {
        if (hs::isGpuStrategy(s) && !m_engine->hasGpu())
            continue;
        StrategyTiming timing;
        timing.strategy = s;
        request.strategy = s;
        hs::HistogramResult result;
        hs::Status status;
        // Engine phases only on the GPU (events, without the copies); wall time on the CPU.
        const bool gpuTimed = m_engine->hasGpu() && s != hs::Strategy::Cpu;
        const double ms = hs::medianRunMs(1, 5, [&] {
            QElapsedTimer timer;
            timer.start();
            status = m_engine->compute(request, result);
            if (!status)
                return -1.0;
            const double wall = double(timer.nsecsElapsed()) / 1e6;
            const hs::PhaseTimings& t = result.timings;
            return gpuTimed ? t.totalMs() - t.uploadMs - t.downloadMs : wall;
        });
        if (!status) {
            timing.error = Error::fromStatus(status, {});
        } else {
            timing.milliseconds = ms;
            timing.exact = !comparison.error.isError() && result == reference;
            timing.ran = result.strategyRan;
        }
        comparison.timings.push_back(timing);
    }
}
