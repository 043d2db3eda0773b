#include "app/core/HistogramExport.h"

#include "histoscope/HistogramStatistics.h"

#include <QJsonArray>

namespace {

QJsonValue optionalJson(std::optional<double> value) { return value ? QJsonValue(*value) : QJsonValue(); }
QString optionalCsv(std::optional<double> value) { return value ? QString::number(*value, 'g', 17) : QString(); }

}  // namespace

QJsonObject statisticsJson(const hs::ChannelHistogram& h, const hs::StatisticsContext& context)
{
    const hs::ChannelStatistics s = hs::computeStatistics(h, context);
    QJsonObject o;
    o["count"] = qint64(s.count);
    o["exact"] = s.exact;
    o["min"] = optionalJson(s.min);
    o["max"] = optionalJson(s.max);
    o["mean"] = s.mean;
    o["std"] = s.stdDevPopulation;
    o["std_sample"] = s.stdDevSample;
    o["median"] = s.median;
    o["mode"] = s.mode;
    QJsonObject percentiles;
    for (std::size_t i = 0; i < hs::kPercentiles.size(); ++i)
        percentiles[QString::number(hs::kPercentiles[i])] = s.percentiles[i];
    o["percentiles"] = percentiles;
    o["clipped_low"] = optionalJson(s.clippedLowShare);
    o["clipped_high"] = optionalJson(s.clippedHighShare);
    o["entropy_bits"] = s.entropyBits;
    o["below"] = qint64(s.below);
    o["above"] = qint64(s.above);
    o["nan"] = qint64(s.nan);
    return o;
}

QJsonObject recordJson(const ChannelRecord& r)
{
    const hs::ChannelHistogram& h = *r.histogram;
    QJsonObject o;
    o["schema"] = QString::fromLatin1(kRecordSchema);
    o["file"] = r.file;
    if (r.frame >= 0)
        o["frame"] = r.frame;
    o["channel"] = r.channel;
    o["bins"] = qint64(h.counts.size());
    o["lo"] = h.binning.lo;
    o["hi"] = hs::upperEdge(h.binning);
    QJsonArray counts;
    for (std::uint64_t c : h.counts)
        counts.append(qint64(c));  // exact up to 2^53, far beyond any frame
    o["counts"] = counts;
    o["statistics"] = statisticsJson(h, r.context);
    return o;
}

QString csvEscape(const QString& field)
{
    if (!field.contains(',') && !field.contains('"') && !field.contains('\n'))
        return field;
    QString escaped = field;
    escaped.replace('"', QStringLiteral("\"\""));
    return '"' + escaped + '"';
}

QString csvHeader(int bins)
{
    QStringList columns{"schema", "file", "frame", "channel", "bins", "lo", "hi", "count", "mean", "std",
                        "median", "min", "max", "below", "above", "nan"};
    for (int b = 0; b < bins; ++b)
        columns << QStringLiteral("c%1").arg(b);
    return columns.join(',');
}

QString csvLine(const ChannelRecord& r)
{
    const hs::ChannelHistogram& h = *r.histogram;
    const hs::ChannelStatistics s = hs::computeStatistics(h, r.context);
    QStringList fields{QString::fromLatin1(kRecordSchema), csvEscape(r.file), r.frame >= 0 ? QString::number(r.frame) : QString(),
                       r.channel, QString::number(h.counts.size()), QString::number(h.binning.lo, 'g', 17),
                       QString::number(hs::upperEdge(h.binning), 'g', 17), QString::number(s.count),
                       QString::number(s.mean, 'g', 17), QString::number(s.stdDevPopulation, 'g', 17), QString::number(s.median, 'g', 17),
                       optionalCsv(s.min), optionalCsv(s.max), QString::number(h.below),
                       QString::number(h.above), QString::number(h.nan)};
    for (std::uint64_t c : h.counts)
        fields << QString::number(c);
    return fields.join(',');
}
