#include "app/core/HistogramSettings.h"

#include <cmath>

QString strategyDisplayName(hs::Strategy strategy)
{
    return QString::fromLatin1(hs::strategyName(strategy).data(), qsizetype(hs::strategyName(strategy).size()));
}

std::optional<hs::Strategy> parseStrategy(const QString& name, Error& error)
{
    if (const auto strategy = hs::strategyFromName(name.trimmed().toStdString()))
        return strategy;
    QStringList names;
    for (hs::Strategy s : hs::allStrategies())
        names << strategyDisplayName(s);
    error = Error::make(ErrorKind::InvalidInput, QString(),
                        QStringLiteral("unknown strategy '%1' (valid: %2)").arg(name, names.join(QStringLiteral(", "))));
    return std::nullopt;
}

RangeKind rangeKindOf(hs::SampleType type)
{
    switch (type) {
    case hs::SampleType::U8: return RangeKind::Int8;
    case hs::SampleType::U16: return RangeKind::Int16;
    case hs::SampleType::I32:
    case hs::SampleType::U32: return RangeKind::Int32;
    case hs::SampleType::F16:
    case hs::SampleType::F32: return RangeKind::Float;
    }
    return RangeKind::Float;
}

QString rangeModeName(RangeMode mode)
{
    switch (mode) {
    case RangeMode::DataType: return QStringLiteral("type");
    case RangeMode::DataMinMax: return QStringLiteral("minmax");
    case RangeMode::BitDepth: return QStringLiteral("bitdepth");
    case RangeMode::Manual: return QStringLiteral("manual");
    }
    return QStringLiteral("type");
}

std::optional<RangeMode> parseRangeMode(const QString& name)
{
    for (RangeMode m : {RangeMode::DataType, RangeMode::DataMinMax, RangeMode::BitDepth, RangeMode::Manual})
        if (name.compare(rangeModeName(m), Qt::CaseInsensitive) == 0)
            return m;
    return std::nullopt;
}

QString rangeKindName(RangeKind kind)
{
    switch (kind) {
    case RangeKind::Int8: return QStringLiteral("int8");
    case RangeKind::Int16: return QStringLiteral("int16");
    case RangeKind::Int32: return QStringLiteral("int32");
    case RangeKind::Float: return QStringLiteral("float");
    }
    return QStringLiteral("float");
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

QString histogramModeName(HistogramMode mode)
{
    switch (mode) {
    case HistogramMode::Overlay: return QStringLiteral("overlay");
    case HistogramMode::Separate: return QStringLiteral("separate");
    case HistogramMode::Table: return QStringLiteral("table");
    }
    return QStringLiteral("overlay");
}

std::optional<HistogramMode> parseHistogramMode(const QString& name)
{
    for (HistogramMode m : {HistogramMode::Overlay, HistogramMode::Separate, HistogramMode::Table})
        if (name.compare(histogramModeName(m), Qt::CaseInsensitive) == 0)
            return m;
    return std::nullopt;
}

QStringList HistogramSettings::load(QSettings& s)
{
    const HistogramSettings d;
    QStringList notices;
    *this = d;
    s.beginGroup(QStringLiteral("histogram"));
    if (s.contains("strategy")) {
        Error error;
        if (const auto strategy = parseStrategy(s.value("strategy").toString(), error))
            counting.strategy = *strategy;
        else
            notices << QStringLiteral("Saved setting ignored: %1; using %2").arg(error.message(), strategyDisplayName(d.counting.strategy));
    }
    bool ok = true;
    const int bins = s.value("bins", d.counting.bins).toInt(&ok);
    if (ok && bins >= 0 && bins <= int(hs::kMaxBins))
        counting.bins = bins;
    else
        notices << QStringLiteral("Saved bin count ignored: %1 is outside 0..%2").arg(s.value("bins").toString()).arg(hs::kMaxBins);
    if (s.contains("rangeMode")) {
        if (const auto mode = parseRangeMode(s.value("rangeMode").toString()))
            counting.rangeMode = *mode;
        else
            notices << QStringLiteral("Saved range mode '%1' ignored (valid: type, minmax, bitdepth, manual)").arg(s.value("rangeMode").toString());
    }
    const int depth = s.value("bitDepth", d.counting.bitDepth).toInt(&ok);
    if (ok && depth >= 1 && depth <= 31)
        counting.bitDepth = depth;
    else
        notices << QStringLiteral("Saved bit depth ignored: %1 is outside 1..31").arg(s.value("bitDepth").toString());
    for (int k = 0; k < kRangeKinds; ++k) {
        const QString key = QStringLiteral("range/") + rangeKindName(RangeKind(k));
        if (!s.contains(key + "/lo"))
            continue;
        const double lo = s.value(key + "/lo").toDouble();
        const double hi = s.value(key + "/hi").toDouble();
        if (lo < hi && std::isfinite(lo) && std::isfinite(hi))
            counting.manualRanges[std::size_t(k)] = ValueRange{lo, hi};
        else
            notices << QStringLiteral("Saved %1 range ignored: [%2, %3) is empty").arg(rangeKindName(RangeKind(k))).arg(lo).arg(hi);
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
    if (s.contains("hiddenSeries")) {
        static const QStringList known{"R", "G", "B", "A", "gray", "luma"};
        for (const QString& name : s.value("hiddenSeries").toString().split(',', Qt::SkipEmptyParts)) {
            if (known.contains(name.trimmed()))
                display.hiddenSeries << name.trimmed();
            else
                notices << QStringLiteral("Saved hidden channel '%1' ignored (valid: %2)").arg(name, known.join(", "));
        }
    }
    if (s.contains("mode")) {
        if (const auto mode = parseHistogramMode(s.value("mode").toString()))
            display.mode = *mode;
        else
            notices << QStringLiteral("Saved histogram mode '%1' ignored (valid: overlay, separate, table)").arg(s.value("mode").toString());
    }
    s.endGroup();
    notices << scopes.load(s);
    return notices;
}

void HistogramSettings::save(QSettings& s) const
{
    s.beginGroup(QStringLiteral("histogram"));
    s.setValue("strategy", strategyDisplayName(counting.strategy));
    s.setValue("bins", counting.bins);
    s.setValue("rangeMode", rangeModeName(counting.rangeMode));
    s.setValue("bitDepth", counting.bitDepth);
    s.remove("range");
    for (int k = 0; k < kRangeKinds; ++k)
        if (const auto& r = counting.manualRanges[std::size_t(k)]) {
            const QString key = QStringLiteral("range/") + rangeKindName(RangeKind(k));
            s.setValue(key + "/lo", r->lo);
            s.setValue(key + "/hi", r->hi);
        }
    s.setValue("channelMask", counting.channelMask);
    s.setValue("useGpu", counting.useGpu);
    s.setValue("luma", lumaName(display.luma));
    s.setValue("logCounts", display.logCounts);
    s.setValue("cumulative", display.cumulative);
    s.setValue("hiddenSeries", display.hiddenSeries.join(','));
    s.setValue("mode", histogramModeName(display.mode));
    s.endGroup();
    scopes.save(s);
}
