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
    // Binned as the live count bins it: one range for the plot's axis.
    hs::HistogramRequest request = frameRequest(job.frame, job.settings.counting, job.roi, {RangeScope::Shared, {}, {}});
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

namespace {

// The channels whose statistics are coarse because they share the plot's one range: their own
// data would be binned over a much narrower one (the command line's records bin each alone).
QString sharedRangeNotice(const HistogramSnapshot& snapshot, const CountSettings& counting,
                          const ChannelExtremes& extremes)
{
    const hs::HistogramRequest own = frameRequest(snapshot.frame, counting, snapshot.roi, {RangeScope::PerChannel, extremes, {}});
    QStringList names;
    const hs::ChannelBinning* shared = nullptr;
    for (const auto& [name, h] : displayOrderedChannels(snapshot.frame, snapshot.result)) {
        const std::size_t i = std::size_t(h - snapshot.result.channels.data());
        const hs::ChannelBinning& mine = own.binning[std::size_t(h->channel)];
        shared = &h->binning;
        // Coarse because of the sharing: its own range would be less than half as wide.
        if (i < snapshot.statistics.size() && snapshot.statistics[i].coarse
            && 2 * (hs::upperEdge(mine) - mine.lo) < hs::upperEdge(h->binning) - h->binning.lo)
            names << name;
    }
    if (names.isEmpty())
        return {};
    return QStringLiteral("%1: coarse statistics, as every channel is counted over one range, [%2, %3), for the plot; "
                          "histoscope-cli bins each channel over its own")
        .arg(names.join(QStringLiteral(", ")), QString::number(shared->lo, 'g', 4), QString::number(hs::upperEdge(*shared), 'g', 4));
}

}  // namespace

void countSnapshot(hs::HistogramEngine& engine, const HistogramJob& job, HistogramSnapshot& snapshot)
{
    QElapsedTimer timer;
    timer.start();
    // One range for every channel and the luma plane, so the plot draws them on one axis and
    // equal data give equal numbers (a grey image's luma and its channels).
    const std::optional<Frame> luma = lumaPlane(job.frame, job.settings.display.luma);
    RangeOptions ranges{RangeScope::Shared, {}, {}};
    const bool fromData = hs::isFloatType(job.frame.type()) || job.settings.counting.rangeMode == RangeMode::DataMinMax;
    if (fromData) {
        ranges.extremes = channelFiniteExtremes(job.frame, job.roi);
        if (luma)
            ranges.alsoHold = finiteExtremes(*luma, job.roi);
    }
    const ResolvedRequest resolved = resolveRequest(job.frame, job.settings.counting, job.roi, ranges);
    snapshot.notices = resolved.notices;
    if (resolved.error.isError()) {
        snapshot.error = resolved.error;
        snapshot.wallMs = double(timer.nsecsElapsed()) / 1e6;
        return;
    }
    hs::Status status = engine.compute(resolved.request, snapshot.result);
    if (status && luma) {
        hs::ImageView view = luma->view();
        view.roi = job.roi;
        hs::ChannelBinning binning;
        for (const hs::ChannelBinning& b : resolved.request.binning)
            if (b.active) {
                binning = b;
                break;
            }
        const hs::HistogramRequest lumaRequest = hs::makeRequest(view, binning, job.settings.counting.strategy);
        hs::HistogramResult lumaResult;
        status = engine.compute(lumaRequest, lumaResult);
        if (status && !lumaResult.channels.empty())
            snapshot.luma = lumaResult.channels.front();
    }
    snapshot.error = Error::fromStatus(status, {});
    if (status)
        if (const QString warning = outOfRangeWarning(snapshot.result); !warning.isEmpty())
            snapshot.notices << warning;
    for (const hs::ChannelHistogram& h : snapshot.result.channels)
        snapshot.statistics.push_back(hs::computeStatistics(h, statisticsContext(job.frame, h)));
    if (snapshot.luma)
        snapshot.lumaStatistics = hs::computeStatistics(*snapshot.luma, statisticsContext(job.frame, *snapshot.luma));
    if (status && fromData && ranges.extremes)
        if (const QString notice = sharedRangeNotice(snapshot, job.settings.counting, *ranges.extremes); !notice.isEmpty())
            snapshot.notices << notice;
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
