#include "app/core/HistogramSettings.h"

QString strategyDisplayName(hs::Strategy strategy)
{
    return QString::fromLatin1(hs::strategyName(strategy).data(), qsizetype(hs::strategyName(strategy).size()));
}

std::optional<hs::Strategy> parseStrategy(const QString& name, QString* error)
{
    if (const auto strategy = hs::strategyFromName(name.trimmed().toStdString()))
        return strategy;
    if (error) {
        QStringList names;
        for (hs::Strategy s : hs::allStrategies())
            names << strategyDisplayName(s);
        *error = QStringLiteral("unknown strategy '%1' (valid: %2)").arg(name, names.join(QStringLiteral(", ")));
    }
    return std::nullopt;
}

QString lumaName(LumaCoefficients luma)
{
    switch (luma) {
    case LumaCoefficients::None: return QStringLiteral("none");
    case LumaCoefficients::Bt601: return QStringLiteral("bt601");
    case LumaCoefficients::Bt709: return QStringLiteral("bt709");
    }
    return QStringLiteral("none");
}

std::optional<LumaCoefficients> parseLuma(const QString& name)
{
    for (LumaCoefficients l : {LumaCoefficients::None, LumaCoefficients::Bt601, LumaCoefficients::Bt709})
        if (name.compare(lumaName(l), Qt::CaseInsensitive) == 0)
            return l;
    return std::nullopt;
}

QStringList HistogramSettings::load(QSettings& s)
{
    const HistogramSettings d;
    QStringList notices;
    *this = d;
    s.beginGroup(QStringLiteral("histogram"));
    if (s.contains("strategy")) {
        QString error;
        if (const auto strategy = parseStrategy(s.value("strategy").toString(), &error))
            counting.strategy = *strategy;
        else
            notices << QStringLiteral("Saved setting ignored: %1; using %2").arg(error, strategyDisplayName(d.counting.strategy));
    }
    bool ok = true;
    const int bins = s.value("bins", d.counting.bins).toInt(&ok);
    if (ok && bins >= 0 && bins <= int(hs::kMaxBins))
        counting.bins = bins;
    else
        notices << QStringLiteral("Saved bin count ignored: %1 is outside 0..%2").arg(s.value("bins").toString()).arg(hs::kMaxBins);
    counting.autoRange = s.value("autoRange", d.counting.autoRange).toBool();
    const double lo = s.value("lo", d.counting.lo).toDouble();
    const double hi = s.value("hi", d.counting.hi).toDouble();
    if (lo < hi) {
        counting.lo = lo;
        counting.hi = hi;
    } else {
        notices << QStringLiteral("Saved range ignored: [%1, %2) is empty").arg(lo).arg(hi);
    }
    counting.channelMask = s.value("channelMask", d.counting.channelMask).toUInt() & 0xfu;
    counting.useGpu = s.value("useGpu", d.counting.useGpu).toBool();
    if (s.contains("luma")) {
        bool isIndex = false;
        const int index = s.value("luma").toInt(&isIndex);  // written as an index before 0.2
        if (const auto luma = parseLuma(s.value("luma").toString()))
            display.luma = *luma;
        else if (isIndex && index >= 0 && index <= 2)
            display.luma = LumaCoefficients(index);
        else
            notices << QStringLiteral("Saved luma setting '%1' ignored (valid: none, bt601, bt709)").arg(s.value("luma").toString());
    }
    display.logCounts = s.value("logCounts", d.display.logCounts).toBool();
    display.cumulative = s.value("cumulative", d.display.cumulative).toBool();
    s.endGroup();
    return notices;
}

void HistogramSettings::save(QSettings& s) const
{
    s.beginGroup(QStringLiteral("histogram"));
    s.setValue("strategy", strategyDisplayName(counting.strategy));
    s.setValue("bins", counting.bins);
    s.setValue("autoRange", counting.autoRange);
    s.setValue("lo", counting.lo);
    s.setValue("hi", counting.hi);
    s.setValue("channelMask", counting.channelMask);
    s.setValue("useGpu", counting.useGpu);
    s.setValue("luma", lumaName(display.luma));
    s.setValue("logCounts", display.logCounts);
    s.setValue("cumulative", display.cumulative);
    s.endGroup();
}
