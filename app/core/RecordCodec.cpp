#include "app/core/RecordCodec.h"

#include "io/NativePath.h"

#include "histoscope/HistogramStatistics.h"

#include <QJsonArray>
#include <QHash>
#include <QJsonDocument>

#include <cmath>
#include <limits>

namespace {

constexpr qint64 kMaxCount = std::numeric_limits<qint64>::max();

const QStringList& fixedColumns(int version)
{
    static const QStringList v1{"schema", "file", "frame", "channel", "bins", "lo", "hi", "count", "mean", "std",
                                "median", "min", "max", "below", "above", "nan"};
    static const QStringList v2{"schema", "record", "file", "frame", "x", "y", "width", "height", "channel", "type",
                                "bins", "lo", "hi", "binning", "count", "mean", "std", "median", "min", "max",
                                "below", "above", "nan"};
    // Version 3: `record` first, so that a line says what it is in its first field.
    static const QStringList v3{"record", "schema", "file", "frame", "x", "y", "width", "height", "channel", "type",
                                "bins", "lo", "hi", "binning", "count", "mean", "std", "median", "min", "max",
                                "below", "above", "nan"};
    return version == 1 ? v1 : version == 2 ? v2 : v3;
}

// The statistics the app's CSV export adds after `nan`, named as in JSON ("p5" for
// percentiles["5"]).
const QStringList& statisticsColumns()
{
    static const QStringList columns{"exact", "std_sample", "mode", "p1", "p5", "p25", "p75", "p95",
                                     "clipped_low", "clipped_high", "entropy_bits"};
    return columns;
}

// Column positions of one CSV layout version.
struct Columns {
    int record = -1, file, frame, channel, bins, lo, hi, binning = -1, count, max, below, above, nan, firstBin;
    int region = -1, type = -1;  // version 2: x, y, width, height from `region`; the sample type
    int schema = 0;
};

Columns columnsOf(int version)
{
    if (version == 1)
        return {-1, 1, 2, 3, 4, 5, 6, -1, 7, 12, 13, 14, 15, 16};
    if (version == 2)
        return {1, 2, 3, 8, 10, 11, 12, 13, 14, 19, 20, 21, 22, 23, 4, 9, 0};
    return {0, 2, 3, 8, 10, 11, 12, 13, 14, 19, 20, 21, 22, 23, 4, 9, 1};
}

// The caller names the file and the line; only the kind and the cause are known here.
Error syntaxError(const QString& cause) { return Error::make(ErrorKind::DecodeFailed, QString(), cause); }
Error schemaError(const QString& cause) { return Error::make(ErrorKind::InvalidInput, QString(), cause); }

QByteArray number(double v) { return QByteArray::number(v, 'g', QLocale::FloatingPointShortest); }

// JSON and CSV have no infinities: a non-finite value is written as null (JSON) or empty (CSV).
QJsonValue optionalJson(std::optional<double> value) { return value && std::isfinite(*value) ? QJsonValue(*value) : QJsonValue(); }
QByteArray optionalCsv(std::optional<double> value);

hs::StatisticsContext statisticsContextOf(const HistogramRecord& r)
{
    hs::StatisticsContext context;
    context.type = r.sampleType;
    return context;
}

// Version 2 states the exact extremes of the counted samples; keep them with the counts, so a
// merge reports the data's min and max, not bin edges. The engine knows both or neither, so
// one null beside a number is an infinite sample, which JSON and CSV cannot write.
bool setExtremes(hs::ChannelHistogram& h, std::optional<double> min, std::optional<double> max, Error& error)
{
    h.hasValues = min || max;
    h.minValue = h.hasValues ? min.value_or(-HUGE_VAL) : 0;
    h.maxValue = h.hasValues ? max.value_or(HUGE_VAL) : 0;
    if (h.hasValues && !(h.minValue <= h.maxValue)) {
        error = schemaError(QStringLiteral("min %1 is above max %2").arg(h.minValue, 0, 'g', 17).arg(h.maxValue, 0, 'g', 17));
        return false;
    }
    return true;
}
QByteArray shortNumber(double v) { return QByteArray::number(v, 'g', 10); }
QByteArray optionalCsv(std::optional<double> value) { return value && std::isfinite(*value) ? number(*value) : QByteArray(); }

QString describe(const QJsonValue& v)
{
    switch (v.type()) {
    case QJsonValue::Undefined: return QStringLiteral("missing");
    case QJsonValue::Null: return QStringLiteral("null");
    case QJsonValue::Bool: return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    case QJsonValue::String: return QStringLiteral("the string \"%1\"").arg(v.toString().left(40));
    case QJsonValue::Array: return QStringLiteral("an array");
    case QJsonValue::Object: return QStringLiteral("an object");
    case QJsonValue::Double: return QString::number(v.toDouble(), 'g', 17);
    }
    return {};
}

QString countRule() { return QStringLiteral("a whole number from 0 to 2^63-1"); }

bool jsonCount(const QJsonValue& v, const QString& what, std::uint64_t& out, Error& error)
{
    const qint64 i = v.isDouble() ? v.toInteger(-1) : -1;
    if (i < 0) {
        error = schemaError(QStringLiteral("%1 is %2, not %3").arg(what, describe(v), countRule()));
        return false;
    }
    out = std::uint64_t(i);
    return true;
}

bool csvCount(const QByteArray& field, const QString& what, std::uint64_t& out, Error& error)
{
    bool digits = !field.isEmpty() && field.size() <= 19;
    for (char c : field)
        digits = digits && c >= '0' && c <= '9';
    bool ok = false;
    const qulonglong v = digits ? field.toULongLong(&ok) : 0;
    if (!ok || v > std::uint64_t(kMaxCount)) {
        error = schemaError(QStringLiteral("%1 is \"%2\", not %3").arg(what, QString::fromUtf8(field.left(40)), countRule()));
        return false;
    }
    out = v;
    return true;
}

bool csvNumber(const QByteArray& field, const QString& what, double& out, Error& error)
{
    bool ok = false;
    out = field.toDouble(&ok);
    if (!ok || !std::isfinite(out)) {
        error = schemaError(QStringLiteral("%1 is \"%2\", not a finite number").arg(what, QString::fromUtf8(field.left(40))));
        return false;
    }
    return true;
}

// With one bin per value the counts say where the data's extremes are, so a stated min or max
// that contradicts them (a copied or hand-edited record) is refused like a wrong sum: min is
// the first non-empty bin's value when nothing lies below the range, and below lo otherwise;
// max likewise. Wider bins cannot tell a value from its bin's neighbours, so they are not checked.
bool checkExtremes(const hs::ChannelHistogram& h, Error& error)
{
    const hs::ChannelBinning& b = h.binning;
    if (!b.identity || !h.hasValues)
        return true;
    std::int64_t first = -1, last = -1;
    for (std::size_t i = 0; i < h.counts.size(); ++i)
        if (h.counts[i]) {
            if (first < 0)
                first = std::int64_t(i);
            last = std::int64_t(i);
        }
    if (first < 0 && h.below == 0 && h.above == 0) {
        error = schemaError(QStringLiteral("min and max are given, but no sample is counted (both must be null)"));
        return false;
    }
    const auto text = [](double v) { return QString::number(v, 'g', 17); };
    const double lo = b.lo, hi = hs::upperEdge(b);
    QString problem;
    if (h.below > 0 && !(h.minValue < lo))
        problem = QStringLiteral("min %1 contradicts the counts: %2 sample(s) lie below lo %3").arg(text(h.minValue)).arg(h.below).arg(text(lo));
    else if (h.below == 0 && first >= 0 && h.minValue != lo + double(first))
        problem = QStringLiteral("min %1 contradicts the counts: nothing lies below lo, and the smallest value counted is %2")
                      .arg(text(h.minValue), text(lo + double(first)));
    else if (h.below == 0 && first < 0 && !(h.minValue >= hi))
        problem = QStringLiteral("min %1 contradicts the counts: every sample lies at or above hi %2").arg(text(h.minValue), text(hi));
    else if (h.above > 0 && !(h.maxValue >= hi))
        problem = QStringLiteral("max %1 contradicts the counts: %2 sample(s) lie at or above hi %3").arg(text(h.maxValue)).arg(h.above).arg(text(hi));
    else if (h.above == 0 && last >= 0 && h.maxValue != lo + double(last))
        problem = QStringLiteral("max %1 contradicts the counts: nothing lies above the range, and the largest value counted is %2")
                      .arg(text(h.maxValue), text(lo + double(last)));
    else if (h.above == 0 && last < 0 && !(h.maxValue < lo))
        problem = QStringLiteral("max %1 contradicts the counts: every sample lies below lo %2").arg(text(h.maxValue), text(lo));
    if (problem.isEmpty())
        return true;
    error = schemaError(problem);
    return false;
}

// The checks every record passes, whatever its encoding.
bool validateHistogram(const HistogramRecord& r, Error& error)
{
    const hs::ChannelBinning& b = r.histogram.binning;
    if (!RecordCodec::isChannelName(r.channel)) {
        error = schemaError(QStringLiteral("channel \"%1\" is not gray, R, G, B, A or luma").arg(r.channel.left(40)));
        return false;
    }
    if (!(b.lo < b.hi)) {
        error = schemaError(QStringLiteral("lo %1 is not below hi %2").arg(b.lo, 0, 'g', 17).arg(b.hi, 0, 'g', 17));
        return false;
    }
    if (b.identity && (b.lo != std::floor(b.lo) || b.hi != b.lo + double(b.bins))) {
        error = schemaError(QStringLiteral("identity binning needs an integer lo and hi = lo + bins, not [%1, %2) with %3 bins")
                    .arg(b.lo, 0, 'g', 17).arg(b.hi, 0, 'g', 17).arg(b.bins));
        return false;
    }
    if (r.histogram.counts.size() != b.bins) {
        error = schemaError(QStringLiteral("%1 counts for %2 bins").arg(r.histogram.counts.size()).arg(b.bins));
        return false;
    }
    return checkExtremes(r.histogram, error);
}

bool checkBins(qint64 bins, Error& error)
{
    if (bins < 1 || bins > qint64(hs::kMaxBins)) {
        error = schemaError(QStringLiteral("bins %1 is outside 1..%2").arg(bins).arg(hs::kMaxBins));
        return false;
    }
    return true;
}

// The in-range total a record states must be what its counts add up to.
bool checkTotal(const hs::ChannelHistogram& h, std::uint64_t stated, Error& error)
{
    std::uint64_t sum = 0;
    for (std::uint64_t c : h.counts)
        if (__builtin_add_overflow(sum, c, &sum)) {
            error = schemaError(QStringLiteral("the counts add up to more than 2^64-1"));
            return false;
        }
    if (sum != stated) {
        error = schemaError(QStringLiteral("count %1 is not the sum of the counts, %2").arg(stated).arg(sum));
        return false;
    }
    return true;
}

// Version 1 did not write the binning mode, but its max tells it. With one bin per integer
// value, max is a value of the data: the last non-empty bin's lower edge (or, in later version 1
// files, the exact maximum, the same value unless samples lie above the range). Otherwise it is
// the last bin's upper edge, or a float sample inside the bin. Without a usable max (later
// version 1 files write null when unknown), unit bins over an integer range are taken as one bin
// per value, as the writer chose them for integer data.
bool inferIdentity(const hs::ChannelHistogram& h, std::optional<double> statedMax)
{
    const hs::ChannelBinning& b = h.binning;
    if (b.lo != std::floor(b.lo) || b.hi != b.lo + double(b.bins))
        return false;
    if (!statedMax || (h.above > 0 && *statedMax >= b.hi))
        return true;
    for (std::size_t i = h.counts.size(); i-- > 0;)
        if (h.counts[i])
            return *statedMax == b.lo + double(i);
    return true;  // nothing in range: the statistics are the same either way
}

bool parseSummaryText(const QByteArray& text, RunSummary& s, Error& error)
{
    QMap<QByteArray, std::uint64_t> values;
    for (const QByteArray& part : text.split(';')) {
        const qsizetype eq = part.indexOf('=');
        std::uint64_t v = 0;
        if (eq < 0 || !csvCount(part.mid(eq + 1), QString::fromUtf8(part.left(eq)), v, error)) {
            if (eq < 0)
                error = schemaError(QStringLiteral("summary field \"%1\" is not key=value").arg(QString::fromUtf8(part.left(40))));
            return false;
        }
        values[part.left(eq)] = v;
    }
    for (const char* key : {"records", "files", "failed", "frames"})
        if (!values.contains(key)) {
            error = schemaError(QStringLiteral("the summary lacks %1").arg(QLatin1String(key)));
            return false;
        }
    s = {qint64(values["records"]), qint64(values["files"]), qint64(values["failed"]), qint64(values["frames"])};
    return true;
}

}  // namespace

qsizetype CsvLayout::columns() const
{
    return fixedColumns(version).size() + (version >= 2 && coarseColumn ? 1 : 0)
           + (allStatistics ? statisticsColumns().size() : 0) + (warningsColumn ? 1 : 0) + bins;
}

QString RecordCodec::schemaName(int version) { return QStringLiteral("histoscope.histogram/%1").arg(version); }

bool RecordCodec::isChannelName(const QString& name)
{
    static const QStringList names{"gray", "R", "G", "B", "A", "luma"};
    return names.contains(name);
}

QJsonObject RecordCodec::recordJson(const HistogramRecord& r)
{
    const hs::ChannelHistogram& h = r.histogram;
    const hs::ChannelStatistics s = hs::computeStatistics(h, statisticsContextOf(r));
    QJsonObject stats;
    stats["count"] = qint64(s.count);
    stats["exact"] = s.exact;
    stats["coarse"] = s.coarse;
    stats["min"] = optionalJson(s.min);
    stats["max"] = optionalJson(s.max);
    stats["mean"] = s.mean;
    stats["std"] = s.stdDevPopulation;
    stats["std_sample"] = s.stdDevSample;
    stats["median"] = s.median;
    stats["mode"] = s.mode;
    QJsonObject percentiles;
    for (std::size_t i = 0; i < hs::kPercentiles.size(); ++i)
        percentiles[QString::number(hs::kPercentiles[i])] = s.percentiles[i];
    stats["percentiles"] = percentiles;
    stats["clipped_low"] = optionalJson(s.clippedLowShare);
    stats["clipped_high"] = optionalJson(s.clippedHighShare);
    stats["entropy_bits"] = s.entropyBits;
    stats["below"] = qint64(s.below);
    stats["above"] = qint64(s.above);
    stats["nan"] = qint64(s.nan);

    QJsonObject o;
    o["schema"] = schemaName();
    o["record"] = QStringLiteral("histogram");
    o["file"] = r.file;
    if (r.frame >= 0)
        o["frame"] = r.frame;
    if (r.region)
        o["region"] = QJsonObject{{"x", qint64(r.region->x)}, {"y", qint64(r.region->y)},
                                  {"width", qint64(r.region->width)}, {"height", qint64(r.region->height)}};
    o["channel"] = r.channel;
    if (r.sampleType)
        o["type"] = QString::fromLatin1(hs::sampleTypeName(*r.sampleType).data(), qsizetype(hs::sampleTypeName(*r.sampleType).size()));
    o["bins"] = qint64(h.counts.size());
    o["lo"] = h.binning.lo;
    o["hi"] = hs::upperEdge(h.binning);
    o["binning"] = h.binning.identity ? QStringLiteral("identity") : QStringLiteral("uniform");
    QJsonArray counts;
    for (std::uint64_t c : h.counts)
        counts.append(qint64(c));
    o["counts"] = counts;
    o["statistics"] = stats;
    if (!r.warnings.isEmpty())
        o["warnings"] = QJsonArray::fromStringList(r.warnings);
    return o;
}

namespace {

// One JSON value as Qt writes it (strings escaped, numbers shortest).
QByteArray jsonValue(const QJsonValue& v)
{
    if (v.isArray())
        return QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact);
    const QByteArray wrapped = QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact);
    return wrapped.mid(1, wrapped.size() - 2);
}

// An object with its keys in `order` (docs/SCHEMA.md's), then any others in Qt's order, so a
// key added later is kept rather than lost. QJsonDocument would sort every key.
QByteArray orderedJson(const QJsonObject& o, const QStringList& order,
                       const QHash<QString, QStringList>& nested = {})
{
    QByteArray out = "{";
    auto put = [&](const QString& key) {
        if (out.size() > 1)
            out += ',';
        out += jsonValue(key) + ':';
        const QJsonValue v = o.value(key);
        const auto inner = nested.constFind(key);
        out += v.isObject() ? orderedJson(v.toObject(), inner != nested.cend() ? *inner : QStringList(), nested) : jsonValue(v);
    };
    for (const QString& key : order)
        if (o.contains(key))
            put(key);
    for (auto it = o.constBegin(); it != o.constEnd(); ++it)
        if (!order.contains(it.key()))
            put(it.key());
    return out + '}';
}

}  // namespace

QByteArray RecordCodec::jsonLine(const HistogramRecord& record) { return jsonText(record) + '\n'; }

QByteArray RecordCodec::jsonText(const HistogramRecord& record)
{
    // The keys in docs/SCHEMA.md's order, `record` first, so that a reader sees what a line is
    // before anything else, and a person reads the file as the schema lists it.
    static const QStringList keys{"record", "schema", "file", "frame", "region", "channel", "type", "bins", "lo", "hi",
                                  "binning", "counts", "warnings", "statistics"};
    static const QHash<QString, QStringList> nested{
        {"region", {"x", "y", "width", "height"}},
        {"statistics", {"count", "exact", "coarse", "min", "max", "mean", "std", "std_sample", "median", "mode", "percentiles",
                        "clipped_low", "clipped_high", "entropy_bits", "below", "above", "nan"}},
        {"percentiles", {"1", "5", "25", "75", "95"}},
    };
    // Qt's parser drops U+FEFF at the start of a string as if it were a byte-order mark, so a
    // file name that begins with one is written escaped. Its bytes occur only inside strings.
    QByteArray line = orderedJson(recordJson(record), keys, nested);
    line.replace("\xef\xbb\xbf", "\\ufeff");
    return line;
}

QByteArray RecordCodec::summaryJsonLine(const RunSummary& s)
{
    QJsonObject o;
    o["schema"] = schemaName();
    o["record"] = QStringLiteral("summary");
    o["records"] = s.records;
    o["files"] = s.files;
    o["failed"] = s.failed;
    o["frames"] = s.frames;
    return orderedJson(o, {"record", "schema", "records", "files", "failed", "frames"}) + '\n';
}

QByteArray RecordCodec::csvField(const QByteArray& field)
{
    if (!field.contains(',') && !field.contains('"') && !field.contains('\n') && !field.contains('\r'))
        return field;
    QByteArray escaped = field;
    escaped.replace('"', "\"\"");
    return '"' + escaped + '"';
}

QByteArray RecordCodec::csvHeader(int bins)
{
    QByteArray line = fixedColumns(kVersion).join(',').toUtf8() + ",coarse," + statisticsColumns().join(',').toUtf8() + ",warnings";
    for (int b = 0; b < bins; ++b)
        line += ",c" + QByteArray::number(b);
    return line + '\n';
}

QByteArray RecordCodec::csvLine(const HistogramRecord& r)
{
    const hs::ChannelHistogram& h = r.histogram;
    const hs::ChannelStatistics s = hs::computeStatistics(h, statisticsContextOf(r));
    QByteArray line = "histogram," + schemaName().toUtf8();
    line.reserve(qsizetype(64 + h.counts.size() * 4));
    const auto regionField = [&](std::int64_t v) { return r.region ? QByteArray::number(qlonglong(v)) : QByteArray(); };
    const hs::Rect region = r.region.value_or(hs::Rect{});
    const std::string_view type = r.sampleType ? hs::sampleTypeName(*r.sampleType) : std::string_view();
    for (const QByteArray& f : {csvField(nativePath(r.file)),
                                r.frame >= 0 ? QByteArray::number(r.frame) : QByteArray(), regionField(region.x),
                                regionField(region.y), regionField(region.width), regionField(region.height),
                                csvField(r.channel.toUtf8()), QByteArray(type.data(), qsizetype(type.size())),
                                QByteArray::number(qulonglong(h.counts.size())), number(h.binning.lo),
                                number(hs::upperEdge(h.binning)),
                                QByteArray(h.binning.identity ? "identity" : "uniform"), QByteArray::number(s.count),
                                shortNumber(s.mean), shortNumber(s.stdDevPopulation), shortNumber(s.median),
                                optionalCsv(s.min), optionalCsv(s.max), QByteArray::number(h.below), QByteArray::number(h.above),
                                QByteArray::number(h.nan), QByteArray(s.coarse ? "true" : "false")})
        line += ',' + f;
    // Numbers exactly (shortest round trip), as JSON has them; shares, not percent.
    line += s.exact ? ",true" : ",false";
    for (double v : {s.stdDevSample, s.mode})
        line += ',' + number(v);
    for (double v : s.percentiles)
        line += ',' + number(v);
    line += ',' + optionalCsv(s.clippedLowShare) + ',' + optionalCsv(s.clippedHighShare) + ',' + number(s.entropyBits);
    // The warnings as JSON writes them (one field that any JSON parser splits), empty without.
    line += ',';
    if (!r.warnings.isEmpty())
        line += csvField(QJsonDocument(QJsonArray::fromStringList(r.warnings)).toJson(QJsonDocument::Compact));
    for (std::uint64_t c : h.counts) {
        line += ',';
        line += QByteArray::number(c);
    }
    return line + '\n';
}

QByteArray RecordCodec::summaryCsvLine(const RunSummary& s, int bins)
{
    QByteArray line = "summary," + schemaName().toUtf8() + ',';
    line += QStringLiteral("records=%1;files=%2;failed=%3;frames=%4").arg(s.records).arg(s.files).arg(s.failed).arg(s.frames).toUtf8();
    // Padded to the header's width: coarse, the statistics, warnings and the counts are empty.
    line += QByteArray(fixedColumns(kVersion).size() - 3 + 1 + statisticsColumns().size() + 1 + bins, ',');
    return line + '\n';
}

namespace {

const QStringList& longColumns()
{
    static const QStringList columns{"record", "schema", "file", "frame", "x", "y", "width", "height", "channel", "type",
                                     "binning", "bin", "bin_lo", "bin_hi", "count"};
    return columns;
}

// Bin i's edges, as the engine bins: one value per bin, or lo + i * width (binLowerEdge).
std::pair<double, double> binEdges(const hs::ChannelBinning& b, std::uint32_t i)
{
    if (b.identity)
        return {b.lo + double(i), b.lo + double(i) + 1};
    const double upper = i + 1 >= b.bins ? hs::upperEdge(b) : hs::binLowerEdge(b, i + 1);
    return {hs::binLowerEdge(b, i), upper};
}

}  // namespace

QByteArray RecordCodec::longCsvHeader() { return longColumns().join(',').toUtf8() + '\n'; }

QByteArray RecordCodec::longCsvLines(const HistogramRecord& r)
{
    const hs::ChannelHistogram& h = r.histogram;
    const auto regionField = [&](std::int64_t v) { return r.region ? QByteArray::number(qlonglong(v)) : QByteArray(); };
    const hs::Rect region = r.region.value_or(hs::Rect{});
    const std::string_view type = r.sampleType ? hs::sampleTypeName(*r.sampleType) : std::string_view();
    QByteArray prefix = "histogram," + schemaName().toUtf8();
    for (const QByteArray& f : {csvField(nativePath(r.file)),
                                r.frame >= 0 ? QByteArray::number(r.frame) : QByteArray(), regionField(region.x),
                                regionField(region.y), regionField(region.width), regionField(region.height),
                                csvField(r.channel.toUtf8()), QByteArray(type.data(), qsizetype(type.size())),
                                QByteArray(h.binning.identity ? "identity" : "uniform")})
        prefix += ',' + f;
    QByteArray out;
    out.reserve(qsizetype(h.counts.size()) * (prefix.size() + 24));
    for (std::uint32_t i = 0; i < h.counts.size(); ++i) {
        const auto [lo, hi] = binEdges(h.binning, i);
        out += prefix + ',' + QByteArray::number(i) + ',' + number(lo) + ',' + number(hi) + ',' + QByteArray::number(h.counts[i]) + '\n';
    }
    return out;
}

QByteArray RecordCodec::longJsonLines(const HistogramRecord& r)
{
    const hs::ChannelHistogram& h = r.histogram;
    QByteArray prefix = "{\"record\":\"bin\",\"schema\":" + jsonValue(schemaName()) + ",\"file\":" + jsonValue(r.file);
    prefix.replace("\xef\xbb\xbf", "\\ufeff");
    if (r.frame >= 0)
        prefix += ",\"frame\":" + QByteArray::number(r.frame);
    if (r.region)
        prefix += ",\"region\":{\"x\":" + QByteArray::number(qlonglong(r.region->x)) + ",\"y\":" + QByteArray::number(qlonglong(r.region->y))
                + ",\"width\":" + QByteArray::number(qlonglong(r.region->width)) + ",\"height\":"
                + QByteArray::number(qlonglong(r.region->height)) + '}';
    prefix += ",\"channel\":" + jsonValue(r.channel);
    if (r.sampleType)
        prefix += ",\"type\":\"" + QByteArray(hs::sampleTypeName(*r.sampleType).data(), qsizetype(hs::sampleTypeName(*r.sampleType).size())) + '"';
    prefix += QByteArray(",\"binning\":\"") + (h.binning.identity ? "identity" : "uniform") + '"';
    QByteArray out;
    for (std::uint32_t i = 0; i < h.counts.size(); ++i) {
        const auto [lo, hi] = binEdges(h.binning, i);
        out += prefix + ",\"bin\":" + QByteArray::number(i) + ",\"bin_lo\":" + jsonValue(lo) + ",\"bin_hi\":" + jsonValue(hi)
             + ",\"count\":" + QByteArray::number(h.counts[i]) + "}\n";
    }
    return out;
}

QByteArray RecordCodec::longSummaryCsvLine(const RunSummary& s)
{
    QByteArray line = "summary," + schemaName().toUtf8() + ',';
    line += QStringLiteral("records=%1;files=%2;failed=%3;frames=%4").arg(s.records).arg(s.files).arg(s.failed).arg(s.frames).toUtf8();
    line += QByteArray(longColumns().size() - 3, ',');
    return line + '\n';
}

bool RecordCodec::decodeJson(const QByteArray& line, RecordLine& out, Error& error)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(line, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        error = syntaxError(QStringLiteral("not JSON (%1 at byte %2)").arg(parseError.errorString()).arg(parseError.offset));
        return false;
    }
    if (!doc.isObject()) {
        error = schemaError(QStringLiteral("not a JSON object"));
        return false;
    }
    const QJsonObject o = doc.object();
    const QString schema = o["schema"].toString();
    out.version = 0;
    for (int v = 1; v <= kVersion; ++v)
        if (schema == schemaName(v))
            out.version = v;
    if (!out.version) {
        error = schemaError(QStringLiteral("schema is %1, not %2, %3 or %4")
                                .arg(describe(o["schema"]), schemaName(3), schemaName(2), schemaName(1)));
        return false;
    }
    const QString kind = out.version == 1 ? QStringLiteral("histogram") : o["record"].toString();
    if (kind == QLatin1String("summary")) {
        out.kind = RecordLine::Kind::Summary;
        std::uint64_t v[4];
        const char* keys[] = {"records", "files", "failed", "frames"};
        for (int i = 0; i < 4; ++i)
            if (!jsonCount(o[QLatin1String(keys[i])], QLatin1String(keys[i]), v[i], error))
                return false;
        out.summary = {qint64(v[0]), qint64(v[1]), qint64(v[2]), qint64(v[3])};
        return true;
    }
    if (kind != QLatin1String("histogram")) {
        error = schemaError(QStringLiteral("record is %1, not \"histogram\" or \"summary\"").arg(describe(o["record"])));
        return false;
    }
    out.kind = RecordLine::Kind::Histogram;
    HistogramRecord& r = out.record;
    r = {};
    if (!o["file"].isString() || !o["channel"].isString()) {
        error = schemaError(QStringLiteral("file and channel must be strings (file is %1, channel %2)")
            .arg(describe(o["file"]), describe(o["channel"])));
        return false;
    }
    r.file = o["file"].toString();
    r.channel = o["channel"].toString();
    if (o.contains("frame")) {
        std::uint64_t frame = 0;
        if (!jsonCount(o["frame"], QStringLiteral("frame"), frame, error))
            return false;
        r.frame = qint64(frame);
    }
    std::uint64_t bins = 0;
    if (!jsonCount(o["bins"], QStringLiteral("bins"), bins, error) || !checkBins(qint64(std::min<std::uint64_t>(bins, std::uint64_t(kMaxCount))), error))
        return false;
    hs::ChannelHistogram& h = r.histogram;
    h.binning.bins = std::uint32_t(bins);
    for (const char* key : {"lo", "hi"})
        if (!o[QLatin1String(key)].isDouble() || !std::isfinite(o[QLatin1String(key)].toDouble())) {
            error = schemaError(QStringLiteral("%1 is %2, not a finite number").arg(QLatin1String(key), describe(o[QLatin1String(key)])));
            return false;
        }
    h.binning.lo = o["lo"].toDouble();
    h.binning.hi = o["hi"].toDouble();
    if (!o["counts"].isArray()) {
        error = schemaError(QStringLiteral("counts is %1, not an array").arg(describe(o["counts"])));
        return false;
    }
    const QJsonArray counts = o["counts"].toArray();
    if (counts.size() != qsizetype(bins)) {
        error = schemaError(QStringLiteral("%1 counts for %2 bins").arg(counts.size()).arg(bins));
        return false;
    }
    h.counts.resize(std::size_t(bins));
    for (qsizetype i = 0; i < counts.size(); ++i)
        if (!jsonCount(counts[i], QStringLiteral("counts[%1]").arg(i), h.counts[std::size_t(i)], error))
            return false;
    if (!o["statistics"].isObject()) {
        error = schemaError(QStringLiteral("statistics is %1, not an object").arg(describe(o["statistics"])));
        return false;
    }
    const QJsonObject s = o["statistics"].toObject();
    std::uint64_t total = 0;
    if (!jsonCount(s["below"], QStringLiteral("statistics.below"), h.below, error)
        || !jsonCount(s["above"], QStringLiteral("statistics.above"), h.above, error)
        || !jsonCount(s["nan"], QStringLiteral("statistics.nan"), h.nan, error)
        || !jsonCount(s["count"], QStringLiteral("statistics.count"), total, error) || !checkTotal(h, total, error))
        return false;
    if (out.version == 1) {
        const QJsonValue max = s["max"];
        if (!max.isDouble() && !max.isNull()) {
            error = schemaError(QStringLiteral("statistics.max is %1, not a number or null").arg(describe(max)));
            return false;
        }
        h.binning.identity = inferIdentity(h, max.isDouble() ? std::optional<double>(max.toDouble()) : std::nullopt);
    } else {
        const QString binning = o["binning"].toString();
        if (binning != QLatin1String("identity") && binning != QLatin1String("uniform")) {
            error = schemaError(QStringLiteral("binning is %1, not \"identity\" or \"uniform\"").arg(describe(o["binning"])));
            return false;
        }
        h.binning.identity = binning == QLatin1String("identity");
        std::optional<double> extremes[2];
        const char* keys[] = {"min", "max"};
        for (int i = 0; i < 2; ++i) {
            const QJsonValue v = s[QLatin1String(keys[i])];
            if (v.isDouble())
                extremes[i] = v.toDouble();
            else if (!v.isNull() && !v.isUndefined()) {
                error = schemaError(QStringLiteral("statistics.%1 is %2, not a number or null").arg(QLatin1String(keys[i]), describe(v)));
                return false;
            }
        }
        if (!setExtremes(h, extremes[0], extremes[1], error))
            return false;
        if (o.contains("type")) {
            const auto type = hs::sampleTypeFromName(o["type"].toString().toStdString());
            if (!type) {
                error = schemaError(QStringLiteral("type is %1, not a sample type (u8, u16, i32, u32, f16, f32)").arg(describe(o["type"])));
                return false;
            }
            r.sampleType = type;
        }
        if (o.contains("region")) {
            const QJsonObject region = o["region"].toObject();
            std::uint64_t v[4];
            const char* names[] = {"x", "y", "width", "height"};
            for (int i = 0; i < 4; ++i)
                if (!jsonCount(region[QLatin1String(names[i])], QStringLiteral("region.") + QLatin1String(names[i]), v[i], error))
                    return false;
            r.region = hs::Rect{std::int64_t(v[0]), std::int64_t(v[1]), std::int64_t(v[2]), std::int64_t(v[3])};
        }
        // Added within version 2: a reader that ignores unknown keys reads records with it.
        if (o.contains("warnings")) {
            if (!o["warnings"].isArray()) {
                error = schemaError(QStringLiteral("warnings is %1, not an array of strings").arg(describe(o["warnings"])));
                return false;
            }
            for (const QJsonValue w : o["warnings"].toArray()) {
                if (!w.isString()) {
                    error = schemaError(QStringLiteral("warnings holds %1, not a string").arg(describe(w)));
                    return false;
                }
                r.warnings << w.toString();
            }
        }
    }
    return validateHistogram(r, error);
}

bool RecordCodec::decodeCsvHeader(const QList<QByteArray>& fields, CsvLayout& layout, Error& error)
{
    if (fields.contains("bin_lo") && fields.contains("bin_hi")) {
        error = schemaError(QStringLiteral("a long-layout CSV (--layout long: one row per bin, without below, above, nan or "
                                           "the extremes), which cannot be merged exactly; merge the wide layout or JSON Lines"));
        return false;
    }
    layout.version = !fields.isEmpty() && fields[0] == "record" ? 3 : fields.size() > 1 && fields[1] == "record" ? 2 : 1;
    const QStringList& fixed = fixedColumns(layout.version);
    for (qsizetype i = 0; i < fixed.size(); ++i)
        if (i >= fields.size() || fields[i] != fixed[i].toUtf8()) {
            error = schemaError(QStringLiteral("not a %1 CSV header: column %2 should be \"%3\"")
                        .arg(schemaName(layout.version)).arg(i + 1).arg(fixed[i]));
            return false;
        }
    layout.coarseColumn = layout.version >= 2 && fields.size() > fixed.size() && fields[fixed.size()] == "coarse";
    qsizetype first = fixed.size() + (layout.coarseColumn ? 1 : 0);
    // The app's export: every statistic, named as statisticsColumns() names them, in order.
    layout.allStatistics = layout.version >= 2 && fields.size() > first && fields[first] == statisticsColumns().first().toUtf8();
    if (layout.allStatistics) {
        const QStringList& extra = statisticsColumns();
        for (qsizetype i = 0; i < extra.size(); ++i)
            if (first + i >= fields.size() || fields[first + i] != extra[i].toUtf8()) {
                error = schemaError(QStringLiteral("column %1 of the header should be \"%2\"").arg(first + i + 1).arg(extra[i]));
                return false;
            }
        first += extra.size();
    }
    layout.warningsColumn = layout.version >= 2 && fields.size() > first && fields[first] == "warnings";
    if (layout.warningsColumn)
        ++first;
    layout.bins = int(fields.size() - first);
    for (int b = 0; b < layout.bins; ++b)
        if (fields[first + b] != "c" + QByteArray::number(b)) {
            error = schemaError(QStringLiteral("column %1 of the header should be \"c%2\"").arg(first + b + 1).arg(b));
            return false;
        }
    return true;
}

bool RecordCodec::decodeCsvRow(const CsvLayout& layout, const QList<QByteArray>& f, RecordLine& out, Error& error)
{
    if (f.size() != layout.columns()) {
        error = schemaError(QStringLiteral("%1 fields where the header has %2 (one CSV file holds one column layout)")
                    .arg(f.size()).arg(layout.columns()));
        return false;
    }
    Columns c = columnsOf(layout.version);
    if (f[c.schema] != schemaName(layout.version).toUtf8()) {
        error = schemaError(QStringLiteral("schema is \"%1\" in a %2 file")
            .arg(QString::fromUtf8(f[c.schema].left(40)), schemaName(layout.version)));
        return false;
    }
    if (layout.version >= 2 && layout.coarseColumn)
        ++c.firstBin;
    // The statistics columns are recomputed from the counts, as JSON's are; only the counts move.
    if (layout.allStatistics)
        c.firstBin += int(statisticsColumns().size());
    if (layout.warningsColumn)
        ++c.firstBin;
    out.version = layout.version;
    const QByteArray kind = c.record >= 0 ? f[c.record] : QByteArray("histogram");
    if (kind == "summary") {
        out.kind = RecordLine::Kind::Summary;
        return parseSummaryText(f[c.file], out.summary, error);
    }
    if (kind != "histogram") {
        error = schemaError(QStringLiteral("record is \"%1\", not histogram or summary").arg(QString::fromUtf8(kind.left(40))));
        return false;
    }
    out.kind = RecordLine::Kind::Histogram;
    HistogramRecord& r = out.record;
    r = {};
    r.file = pathFromNative(f[c.file]);
    r.channel = QString::fromUtf8(f[c.channel]);
    if (!f[c.frame].isEmpty()) {
        std::uint64_t frame = 0;
        if (!csvCount(f[c.frame], QStringLiteral("frame"), frame, error))
            return false;
        r.frame = qint64(frame);
    }
    if (c.region >= 0 && !(f[c.region] + f[c.region + 1] + f[c.region + 2] + f[c.region + 3]).isEmpty()) {
        std::uint64_t v[4];
        const char* names[] = {"x", "y", "width", "height"};
        for (int i = 0; i < 4; ++i)
            if (!csvCount(f[c.region + i], QLatin1String(names[i]), v[i], error))
                return false;
        r.region = hs::Rect{std::int64_t(v[0]), std::int64_t(v[1]), std::int64_t(v[2]), std::int64_t(v[3])};
    }
    if (c.type >= 0 && !f[c.type].isEmpty()) {
        r.sampleType = hs::sampleTypeFromName(f[c.type].toStdString());
        if (!r.sampleType) {
            error = schemaError(QStringLiteral("type is \"%1\", not a sample type (u8, u16, i32, u32, f16, f32)")
                .arg(QString::fromUtf8(f[c.type].left(40))));
            return false;
        }
    }
    std::uint64_t bins = 0;
    if (!csvCount(f[c.bins], QStringLiteral("bins"), bins, error) || !checkBins(qint64(bins), error))
        return false;
    if (bins != std::uint64_t(layout.bins)) {
        error = schemaError(QStringLiteral("bins is %1 under a header of %2 count columns").arg(bins).arg(layout.bins));
        return false;
    }
    hs::ChannelHistogram& h = r.histogram;
    h.binning.bins = std::uint32_t(bins);
    if (!csvNumber(f[c.lo], QStringLiteral("lo"), h.binning.lo, error) || !csvNumber(f[c.hi], QStringLiteral("hi"), h.binning.hi, error))
        return false;
    h.counts.resize(std::size_t(bins));
    for (std::uint64_t b = 0; b < bins; ++b)
        if (!csvCount(f[c.firstBin + qsizetype(b)], QStringLiteral("c%1").arg(b), h.counts[std::size_t(b)], error))
            return false;
    std::uint64_t total = 0;
    if (!csvCount(f[c.below], QStringLiteral("below"), h.below, error) || !csvCount(f[c.above], QStringLiteral("above"), h.above, error)
        || !csvCount(f[c.nan], QStringLiteral("nan"), h.nan, error) || !csvCount(f[c.count], QStringLiteral("count"), total, error)
        || !checkTotal(h, total, error))
        return false;
    if (layout.version == 1) {
        double max = 0;
        if (!f[c.max].isEmpty() && !csvNumber(f[c.max], QStringLiteral("max"), max, error))
            return false;
        h.binning.identity = inferIdentity(h, f[c.max].isEmpty() ? std::nullopt : std::optional<double>(max));
    } else if (layout.coarseColumn && f[c.nan + 1] != "true" && f[c.nan + 1] != "false") {
        error = schemaError(QStringLiteral("coarse is \"%1\", not true or false").arg(QString::fromUtf8(f[c.nan + 1].left(40))));
        return false;
    } else if (f[c.binning] == "identity" || f[c.binning] == "uniform") {
        h.binning.identity = f[c.binning] == "identity";
        std::optional<double> extremes[2];
        for (int i = 0; i < 2; ++i) {
            const QByteArray& field = f[c.max - 1 + i];  // min, then max
            double v = 0;
            if (!field.isEmpty()) {
                if (!csvNumber(field, i ? QStringLiteral("max") : QStringLiteral("min"), v, error))
                    return false;
                extremes[i] = v;
            }
        }
        if (!setExtremes(h, extremes[0], extremes[1], error))
            return false;
    } else {
        error = schemaError(QStringLiteral("binning is \"%1\", not identity or uniform").arg(QString::fromUtf8(f[c.binning].left(40))));
        return false;
    }
    if (layout.warningsColumn && !f[c.firstBin - 1].isEmpty()) {
        const QJsonDocument doc = QJsonDocument::fromJson(f[c.firstBin - 1]);
        bool strings = doc.isArray();
        for (const QJsonValue w : doc.array())
            strings = strings && w.isString();
        if (!strings) {
            error = schemaError(QStringLiteral("warnings is \"%1\", not a JSON array of strings").arg(QString::fromUtf8(f[c.firstBin - 1].left(40))));
            return false;
        }
        for (const QJsonValue w : doc.array())
            r.warnings << w.toString();
    }
    return validateHistogram(r, error);
}
