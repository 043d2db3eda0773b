#include "app/core/HistogramSettings.h"

void HistogramSettings::load(QSettings& s)
{
    const HistogramSettings d;
    s.beginGroup(QStringLiteral("histogram"));
    strategy = s.value("strategy", d.strategy).toString();
    if (strategy.isEmpty())
        strategy = d.strategy;
    bins = qBound(0, s.value("bins", d.bins).toInt(), 1 << 24);
    autoRange = s.value("autoRange", d.autoRange).toBool();
    lo = s.value("lo", d.lo).toDouble();
    hi = s.value("hi", d.hi).toDouble();
    if (!(lo < hi)) {
        lo = d.lo;
        hi = d.hi;
    }
    channelMask = s.value("channelMask", d.channelMask).toUInt() & 0xfu;
    luma = LumaCoefficients(qBound(0, s.value("luma", int(d.luma)).toInt(), 2));
    logCounts = s.value("logCounts", d.logCounts).toBool();
    cumulative = s.value("cumulative", d.cumulative).toBool();
    useGpu = s.value("useGpu", d.useGpu).toBool();
    s.endGroup();
}

void HistogramSettings::save(QSettings& s) const
{
    s.beginGroup(QStringLiteral("histogram"));
    s.setValue("strategy", strategy);
    s.setValue("bins", bins);
    s.setValue("autoRange", autoRange);
    s.setValue("lo", lo);
    s.setValue("hi", hi);
    s.setValue("channelMask", channelMask);
    s.setValue("luma", int(luma));
    s.setValue("logCounts", logCounts);
    s.setValue("cumulative", cumulative);
    s.setValue("useGpu", useGpu);
    s.endGroup();
}

