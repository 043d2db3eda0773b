#include "app/gui/SnapshotPresenter.h"

#include "app/core/FrameRequest.h"
#include "app/core/StatisticsText.h"

#include "histoscope/HistogramStatistics.h"

QColor channelColor(const QString& name)
{
    if (name == "R") return QColor(235, 80, 70);
    if (name == "G") return QColor(90, 200, 90);
    if (name == "B") return QColor(80, 140, 240);
    if (name == "A") return QColor(180, 180, 180);
    if (name == "luma") return QColor(240, 240, 240);
    return QColor(210, 210, 210);
}

QVector<NamedChannel> orderedChannels(const HistogramSnapshot& snapshot)
{
    QVector<NamedChannel> out = displayOrderedChannels(snapshot.frame, snapshot.result);
    if (snapshot.luma)
        out.append({QStringLiteral("luma"), &*snapshot.luma});
    return out;
}

QString valueAxisTitle(hs::SampleType type)
{
    switch (type) {
    case hs::SampleType::U8: return QObject::tr("value (8-bit)");
    case hs::SampleType::U16: return QObject::tr("value (16-bit)");
    case hs::SampleType::I32: return QObject::tr("value (32-bit signed)");
    case hs::SampleType::U32: return QObject::tr("value (32-bit)");
    case hs::SampleType::F16: return QObject::tr("value (16-bit float)");
    case hs::SampleType::F32: return QObject::tr("value (float)");
    }
    return QObject::tr("value");
}

HistogramDisplay toDisplay(const HistogramSnapshot& snapshot)
{
    // The worker made the plot values (snapshot.plot); a snapshot built on this thread (the
    // equalize dialog's, from a result already counted) has them made here.
    const QVector<PlotChannel> plot = snapshot.plot.isEmpty() && !snapshot.result.channels.empty() ? plotChannels(snapshot) : snapshot.plot;
    HistogramDisplay display;
    display.generation = snapshot.generation;
    display.integerValues = !hs::isFloatType(snapshot.frame.type());
    display.valueTitle = valueAxisTitle(snapshot.frame.type());
    for (const PlotChannel& p : plot) {
        HistogramSeries series;
        series.name = p.name;
        series.color = channelColor(p.name);
        series.outline = p.name == QStringLiteral("luma");
        series.counts = p.counts;   // shared, not copied
        series.total = p.total;
        series.peaks = p.peaks;
        series.cumulative = p.cumulative;
        series.binsPerPeak = p.binsPerPeak;
        display.lo = p.lo;
        display.hi = p.hi;
        display.series.append(series);
    }
    return display;
}

void addReference(HistogramDisplay& display, const HistogramSnapshot& reference, const QString& title)
{
    const HistogramDisplay ref = toDisplay(reference);
    display.reference.clear();
    display.referenceLo = ref.lo;
    display.referenceHi = ref.hi;
    display.referenceTitle = title;
    for (HistogramSeries r : ref.series)
        for (const HistogramSeries& s : display.series)
            if (s.name == r.name) {
                // Equal areas: a reference of another size compares by shape. Per unit of value
                // too: a reference counted in finer bins holds less per bin. The view applies the
                // scale as it paints, so nothing here grows with the bins.
                const double widthRatio = s.counts.isEmpty() || r.counts.isEmpty() || !(ref.hi > ref.lo)
                                              ? 1.0
                                              : ((display.hi - display.lo) / double(s.counts.size())) /
                                                    ((ref.hi - ref.lo) / double(r.counts.size()));
                r.scale = r.total > 0 ? s.total / r.total * widthRatio : 0;
                display.reference.append(r);
            }
}

namespace {

// The worker computed them; a snapshot built elsewhere (the equalize dialog) has none.
hs::ChannelStatistics statisticsOf(const HistogramSnapshot& snapshot, const hs::ChannelHistogram* h)
{
    if (snapshot.luma && h == &*snapshot.luma && snapshot.lumaStatistics)
        return *snapshot.lumaStatistics;
    for (std::size_t i = 0; i < snapshot.result.channels.size() && i < snapshot.statistics.size(); ++i)
        if (&snapshot.result.channels[i] == h)
            return snapshot.statistics[i];
    return hs::computeStatistics(*h, statisticsContext(snapshot.frame, *h));
}

}  // namespace

TableContent statisticsTable(const HistogramSnapshot& snapshot)
{
    TableContent t;
    t.rowLabels = {"count", "precision", "min", "max", "mean", "std dev (population)", "std dev (sample)", "median", "mode", "p1", "p5",
                   "p25", "p75", "p95", "clipped low %", "clipped high %", "entropy (bits)", "below range", "above range", "NaN"};
    t.cells.resize(t.rowLabels.size());
    for (const auto& [name, h] : orderedChannels(snapshot)) {
        t.columns << name;
        const hs::ChannelStatistics s = statisticsOf(snapshot, h);
        // Exact values as they are; estimates marked "≈" with the digits their bins give.
        auto value = [&s](double v) { return statisticText(v, s); };
        auto maybe = [](std::optional<double> v, double scale = 1, int decimals = -1) {
            if (!v)
                return QStringLiteral("—");
            return decimals < 0 ? QString::number(*v * scale, 'g', 6) : QString::number(*v * scale, 'f', decimals);
        };
        const bool counted = s.count > 0;
        auto position = [&](double v) { return counted ? value(v) : QStringLiteral("—"); };
        const QStringList values{QString::number(s.count), precisionText(s), maybe(s.min), maybe(s.max), position(s.mean),
                                 position(s.stdDevPopulation), position(s.stdDevSample), position(s.median), position(s.mode),
                                 position(s.percentiles[0]), position(s.percentiles[1]), position(s.percentiles[2]),
                                 position(s.percentiles[3]), position(s.percentiles[4]),
                                 maybe(s.clippedLowShare, 100, 3), maybe(s.clippedHighShare, 100, 3),
                                 QString::number(s.entropyBits, 'f', 4), QString::number(s.below), QString::number(s.above),
                                 QString::number(s.nan)};
        for (int r = 0; r < values.size(); ++r)
            t.cells[r] << values[r];
    }
    return t;
}

TableContent timingTable(const HistogramSnapshot& snapshot, const QString& backend, const LiveCounters& counters)
{
    const hs::PhaseTimings& p = snapshot.result.timings;
    TableContent t;
    t.columns = {"value"};
    auto ms = [](double v) { return QStringLiteral("%1 ms").arg(v, 0, 'f', 3); };
    const double seconds = std::max(1e-9, p.totalMs() > 0 ? p.totalMs() / 1e3 : snapshot.wallMs / 1e3);
    const QVector<QPair<QString, QString>> rows{
        {"backend", backend},
        {"strategy", QString::fromStdString(std::string(hs::strategyName(snapshot.result.strategyRan)))
                         + (snapshot.settings.counting.strategy == hs::Strategy::Auto ? QStringLiteral(" (chosen by auto)") : QString())},
        {"upload", ms(p.uploadMs)},
        {"clear", ms(p.clearMs)},
        {"tally", ms(p.tallyMs)},
        {"download", ms(p.downloadMs)},
        {"engine total", ms(p.totalMs())},
        {"wall (worker)", ms(snapshot.wallMs)},
        {"throughput", QStringLiteral("%1 Gsamples/s").arg(double(snapshot.result.samples) / seconds / 1e9, 0, 'f', 3)},
    };
    const LiveCounters& c = counters;
    auto fps = [](double v) { return QStringLiteral("%1 fps").arg(v, 0, 'f', 1); };
    QVector<QPair<QString, QString>> live{
        {"source rate", c.sourceFps > 0 ? QStringLiteral("%1 fps").arg(c.sourceFps, 0, 'f', 2) : QStringLiteral("unknown")},
        {"decoded (measured)", fps(c.decodedFps)},
        {"counted and shown (measured)", fps(c.shownFps)},
        {"frames decoded", QString::number(c.produced)},
        {"frames shown", QString::number(c.shown)},
        {"dropped before shown", QString::number(c.droppedMedia)},
        {"dropped before counted", QString::number(c.droppedHistogram)},
        {"dropped in all", QString::number(c.dropped())},
    };
    if (c.live)
        live.append({"not read from the source", c.notReadEstimate >= 0 ? QStringLiteral("≈%1 (from its rate and the clock)").arg(c.notReadEstimate)
                                                                       : QStringLiteral("unknown (no declared rate)")});
    for (const auto& [label, value] : rows + live) {
        t.rowLabels << label;
        t.cells.append({value});
    }
    return t;
}
