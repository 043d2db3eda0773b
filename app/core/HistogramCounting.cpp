#include "app/core/HistogramCounting.h"

#include "app/core/FrameRequest.h"
#include "app/core/LumaPlane.h"

#include "histoscope/ReferenceHistogram.h"
#include "histoscope/RunTiming.h"

#include <QElapsedTimer>

#include <algorithm>

namespace {

// What a job that threw (allocation, OpenCV in the luma plane) answers instead.
Error thrown(const std::exception& e)
{
    return Error::make(ErrorKind::Engine, {}, QString::fromUtf8(e.what()).trimmed());
}

void compareInto(hs::HistogramEngine& engine, const HistogramJob& job, StrategyComparison& comparison)
{
    comparison.backend = engineDescription(engine);
    hs::HistogramRequest request = frameRequest(job.frame, job.settings.counting, job.roi);
    hs::HistogramResult reference;
    comparison.error = Error::fromStatus(hs::referenceHistogram(request, reference), {});
    for (hs::Strategy s : hs::allStrategies()) {
        if (hs::isGpuStrategy(s) && !engine.hasGpu())
            continue;
        StrategyTiming timing;
        timing.strategy = s;
        request.strategy = s;
        hs::HistogramResult result;
        hs::Status status;
        // Engine phases only on the GPU (events, without the copies); wall time on the CPU.
        const bool gpuTimed = engine.hasGpu() && s != hs::Strategy::Cpu;
        const double ms = hs::medianRunMs(1, 5, [&] {
            QElapsedTimer timer;
            timer.start();
            status = engine.compute(request, result);
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
        if (timing.error.kind == ErrorKind::DeviceLost)
            return;   // the holder rebuilds and runs the whole comparison again
    }
}

}  // namespace

QString deviceFaultOf(const Error& error) { return error.kind == ErrorKind::DeviceLost ? error.cause : QString(); }

QVector<PlotChannel> plotChannels(const HistogramSnapshot& snapshot)
{
    QVector<PlotChannel> plot;
    auto add = [&plot](const QString& name, const hs::ChannelHistogram& h) {
        PlotChannel p;
        p.name = name;
        const qsizetype bins = qsizetype(h.counts.size());
        p.binsPerPeak = int(std::max<qsizetype>(1, (bins + PlotChannel::kMaxPeaks - 1) / PlotChannel::kMaxPeaks));
        p.counts.reserve(bins);
        p.peaks.reserve(bins / p.binsPerPeak + 1);
        p.cumulative.reserve(bins / p.binsPerPeak + 1);
        for (qsizetype b = 0; b < bins; ++b) {
            const double c = double(h.counts[std::size_t(b)]);
            p.counts.append(c);
            p.total += c;
            if (b % p.binsPerPeak == 0) {
                p.peaks.append(c);
                p.cumulative.append(p.total);
            } else {
                p.peaks.last() = std::max(p.peaks.last(), c);
                p.cumulative.last() = p.total;
            }
        }
        p.lo = h.binning.lo;
        p.hi = hs::upperEdge(h.binning);
        plot.append(std::move(p));
    };
    for (const auto& [name, h] : displayOrderedChannels(snapshot.frame, snapshot.result))
        add(name, *h);
    if (snapshot.luma)
        add(QStringLiteral("luma"), *snapshot.luma);
    return plot;
}

std::shared_ptr<HistogramSnapshot> countJob(hs::HistogramEngine& engine, const HistogramJob& job)
{
    auto snapshot = std::make_shared<HistogramSnapshot>();
    snapshot->generation = job.generation;
    snapshot->frame = job.frame;
    snapshot->frameIndex = job.frameIndex;
    snapshot->frameSerial = job.frameSerial;
    snapshot->settings = job.settings;
    snapshot->roi = job.roi;
    snapshot->backend = engineDescription(engine);
    try {
        countSnapshot(engine, job, *snapshot);
    } catch (const std::exception& e) {
        snapshot->error = thrown(e);
    }
    return snapshot;
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
    if (status)
        snapshot.plot = plotChannels(snapshot);
    snapshot.wallMs = double(timer.nsecsElapsed()) / 1e6;
}

std::shared_ptr<StrategyComparison> compareJob(EngineHolder<hs::HistogramEngine>& holder, const HistogramJob& job)
{
    auto faultOf = [](const std::shared_ptr<StrategyComparison>& c) {
        QString cause = deviceFaultOf(c->error);
        for (const StrategyTiming& t : c->timings)
            if (cause.isEmpty())
                cause = deviceFaultOf(t.error);
        return cause;
    };
    return holder.run(
        job.settings.counting.useGpu,
        [&](hs::HistogramEngine& engine) {
            auto c = std::make_shared<StrategyComparison>();
            c->generation = job.generation;
            try {
                compareInto(engine, job, *c);
            } catch (const std::exception& e) {
                c->error = thrown(e);
            }
            return c;
        },
        faultOf);
}
