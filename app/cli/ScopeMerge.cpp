#include "app/cli/ScopeMerge.h"

#include "io/NativePath.h"

#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>

#include <cmath>
#include <fcntl.h>
#include <unistd.h>
#include <limits>
#include <vector>

namespace {

constexpr std::uint64_t kMaxCount = std::uint64_t(std::numeric_limits<qint64>::max());

bool addChecked(std::uint64_t& a, std::uint64_t b)
{
    if (b > kMaxCount - std::min(a, kMaxCount))
        return false;
    a += b;
    return true;
}

struct Axis {
    QString name;
    qint64 bins = 0;
    double lo = 0, hi = 0;
    QString key() const { return QStringLiteral("%1 %2 [%3, %4)").arg(name).arg(bins).arg(lo, 0, 'g', 17).arg(hi, 0, 'g', 17); }
};

struct Merged {
    QJsonObject head;                  // kind, channel, standard, x, y: what every part shares
    Axis x, y;
    std::vector<std::uint64_t> counts;  // x-major, bins(x) * bins(y)
    std::uint64_t outside[2][3] = {};   // x, y: below, above, nan
    qint64 parts = 0;
    QString first;                     // FILE:LINE of the first part
};

// A count of the schema: a whole number from 0 to 2^63-1.
bool count(const QJsonValue& v, std::uint64_t& out)
{
    const qint64 i = v.isDouble() ? v.toInteger(-1) : -1;
    if (i < 0)
        return false;
    out = std::uint64_t(i);
    return true;
}

bool axis(const QJsonValue& v, Axis& a)
{
    const QJsonObject o = v.toObject();
    a.name = o["name"].toString();
    a.bins = o["bins"].toInteger(0);
    a.lo = o["lo"].toDouble(NAN);
    a.hi = o["hi"].toDouble(NAN);
    return v.isObject() && o["name"].isString() && a.bins >= 1 && a.bins <= (qint64(1) << 24) && std::isfinite(a.lo)
        && std::isfinite(a.hi) && a.lo < a.hi;
}

// By the name's bytes (a name that is not UTF-8 opens too).
bool openInput(const QString& path, QFile& file)
{
    const int fd = ::open(nativePath(path).constData(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        file.setFileName(path);
        return file.open(QIODevice::ReadOnly);  // fails, with the cause in errorString()
    }
    if (!file.open(fd, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle)) {
        ::close(fd);
        return false;
    }
    return true;
}

QByteArray compact(const QJsonValue& v)
{
    const QByteArray wrapped = QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact);
    return wrapped.mid(1, wrapped.size() - 2);
}

class ScopeMerger {
public:
    ScopeMerger(bool allowPartial, bool strict) : m_allowPartial(allowPartial), m_strict(strict) {}
    void read(const QString& path);
    void reportOverlaps();
    ScopeMergeResult result;
    QMap<QString, Merged> merged;
    QStringList order;  // keys as first seen, the order of the output
    qint64 files = 0, failed = 0, frames = 0;

private:
    bool take(const QJsonObject& o, const QString& where, int input);
    bool m_allowPartial, m_strict;
    QHash<QString, int> m_sources;
    QMap<QPair<int, int>, QPair<qint64, QString>> m_overlaps;
    QStringList m_names;
};

bool ScopeMerger::take(const QJsonObject& o, const QString& where, int input)
{
    auto fail = [&](const QString& cause) {
        result.problems << QStringLiteral("%1: %2").arg(where, cause);
        return false;
    };
    Axis x, y;
    if (!axis(o["x"], x) || !axis(o["y"], y))
        return fail(QStringLiteral("an axis is not {name, bins 1..2^24, lo < hi finite}"));
    if (!o["kind"].isString() || !o["channel"].isString() || !o["file"].isString())
        return fail(QStringLiteral("kind, channel and file must be strings"));
    const QJsonArray columns = o["counts"].toArray();
    if (!o["counts"].isArray() || columns.size() != x.bins)
        return fail(QStringLiteral("counts holds %1 lists for %2 x bins").arg(columns.size()).arg(x.bins));
    std::vector<std::uint64_t> counts(std::size_t(x.bins * y.bins));
    for (qint64 i = 0; i < x.bins; ++i) {
        const QJsonArray column = columns[i].toArray();
        if (column.size() != y.bins)
            return fail(QStringLiteral("counts[%1] holds %2 counts for %3 y bins").arg(i).arg(column.size()).arg(y.bins));
        for (qint64 j = 0; j < y.bins; ++j)
            if (!count(column[j], counts[std::size_t(i * y.bins + j)]))
                return fail(QStringLiteral("counts[%1][%2] is not a whole number from 0 to 2^63-1").arg(i).arg(j));
    }
    std::uint64_t outside[2][3];
    const char* axes[] = {"x", "y"};
    const char* sides[] = {"below", "above", "nan"};
    for (int a = 0; a < 2; ++a)
        for (int s = 0; s < 3; ++s)
            if (!count(o["outside"].toObject()[QLatin1String(axes[a])].toObject()[QLatin1String(sides[s])], outside[a][s]))
                return fail(QStringLiteral("outside.%1.%2 is not a whole number from 0 to 2^63-1").arg(QLatin1String(axes[a]), QLatin1String(sides[s])));
    // The same source in two inputs counts its pixels twice.
    const QString file = o["file"].toString();
    if (!file.startsWith(QLatin1String("merged:"))) {
        const QString source = file + QChar(0) + (o.contains("frame") ? QString::number(o["frame"].toInteger()) : QString());
        const auto seen = m_sources.constFind(source);
        if (seen == m_sources.cend())
            m_sources.insert(source, input);
        else if (*seen != input) {
            auto& overlap = m_overlaps[{*seen, input}];
            if (overlap.first++ == 0)
                overlap.second = o.contains("frame") ? QStringLiteral("%1 (frame %2)").arg(file).arg(o["frame"].toInteger()) : file;
            m_sources[source] = input;
        }
    }
    const QString key = QStringLiteral("%1|%2|%3|%4|%5")
                            .arg(o["kind"].toString(), o["channel"].toString(), o["standard"].toString(), x.key(), y.key());
    auto it = merged.find(key);
    if (it == merged.end()) {
        Merged m;
        for (const char* k : {"kind", "channel", "standard", "x", "y"})
            if (o.contains(QLatin1String(k)))
                m.head[QLatin1String(k)] = o[QLatin1String(k)];
        m.x = x;
        m.y = y;
        m.counts = std::move(counts);
        std::copy(&outside[0][0], &outside[0][0] + 6, &m.outside[0][0]);
        m.parts = 1;
        m.first = where;
        merged.insert(key, std::move(m));
        order << key;
        return true;
    }
    // Checked before anything is added, so a refused object leaves no trace.
    for (std::size_t i = 0; i < counts.size(); ++i) {
        std::uint64_t sum = it->counts[i];
        if (!addChecked(sum, counts[i]))
            return fail(QStringLiteral("adding its %1 %2 counts to the %3 merged before it overflows 64 bits (a count is at most 2^63-1)")
                            .arg(o["kind"].toString(), o["channel"].toString()).arg(it->parts));
    }
    for (int a = 0; a < 2; ++a)
        for (int s = 0; s < 3; ++s) {
            std::uint64_t sum = it->outside[a][s];
            if (!addChecked(sum, outside[a][s]))
                return fail(QStringLiteral("adding its outside counts to the merged ones overflows 64 bits"));
        }
    for (std::size_t i = 0; i < counts.size(); ++i)
        it->counts[i] += counts[i];
    for (int a = 0; a < 2; ++a)
        for (int s = 0; s < 3; ++s)
            it->outside[a][s] += outside[a][s];
    ++it->parts;
    return true;
}

void ScopeMerger::read(const QString& path)
{
    const int input = int(m_names.size());
    m_names << path;
    QFile file;
    if (!openInput(path, file)) {
        result.problems << QStringLiteral("%1: %2").arg(path, file.errorString());
        return;
    }
    qint64 line = 0, records = 0;
    bool summary = false;
    int version = 0;
    const qsizetype before = result.problems.size();
    while (!file.atEnd() && result.problems.size() == before) {
        const QByteArray bytes = file.readLine().trimmed();
        ++line;
        if (bytes.isEmpty())
            continue;
        const QString where = QStringLiteral("%1: line %2").arg(path).arg(line);
        QJsonParseError parseError;
        const QJsonObject o = QJsonDocument::fromJson(bytes, &parseError).object();
        if (parseError.error != QJsonParseError::NoError) {
            result.problems << QStringLiteral("%1: not JSON (%2)").arg(where, parseError.errorString());
            break;
        }
        const QString schema = o["schema"].toString();
        const int v = schema == QLatin1String("histoscope.histogram2d/2") ? 2 : schema == QLatin1String("histoscope.histogram2d/1") ? 1 : 0;
        if (!v || (version && v != version)) {
            result.problems << QStringLiteral("%1: schema is \"%2\", not histoscope.histogram2d/%3").arg(where, schema).arg(version ? version : 2);
            break;
        }
        version = v;
        if (summary) {
            result.problems << QStringLiteral("%1: a record after the summary, which ends a finished output").arg(where);
            break;
        }
        if (o["record"].toString() == QLatin1String("summary")) {
            std::uint64_t n[4];
            const char* keys[] = {"records", "files", "failed", "frames"};
            for (int i = 0; i < 4; ++i)
                if (!count(o[QLatin1String(keys[i])], n[i])) {
                    result.problems << QStringLiteral("%1: summary %2 is not a whole number").arg(where, QLatin1String(keys[i]));
                    return;
                }
            if (qint64(n[0]) != records) {
                result.problems << QStringLiteral("%1: the summary counts %2 records, the file holds %3").arg(where).arg(n[0]).arg(records);
                return;
            }
            std::uint64_t sums[3] = {std::uint64_t(files), std::uint64_t(failed), std::uint64_t(frames)};
            if (!addChecked(sums[0], n[1]) || !addChecked(sums[1], n[2]) || !addChecked(sums[2], n[3])) {
                result.problems << QStringLiteral("%1: adding its summary to the inputs' before it overflows 64 bits").arg(where);
                return;
            }
            files = qint64(sums[0]);
            failed = qint64(sums[1]);
            frames = qint64(sums[2]);
            summary = true;
            continue;
        }
        if (v == 2 && o["record"].toString() != QLatin1String("histogram2d")) {
            result.problems << QStringLiteral("%1: record is \"%2\", not histogram2d or summary").arg(where, o["record"].toString());
            break;
        }
        if (take(o, where, input))
            ++records;
    }
    if (result.problems.size() > before || summary)
        return;
    const QString why = version == 1 ? QStringLiteral("it is histoscope.histogram2d/1, which has no summary record")
                                     : QStringLiteral("no summary record at its end: the run that wrote it did not finish");
    if (m_allowPartial)
        result.warnings << QStringLiteral("%1: %2; merged anyway (--allow-partial)").arg(path, why);
    else
        result.problems << QStringLiteral("%1: %2 (--allow-partial merges it anyway)").arg(path, why);
}

void ScopeMerger::reportOverlaps()
{
    for (auto it = m_overlaps.cbegin(); it != m_overlaps.cend(); ++it) {
        const QString text = QStringLiteral("%1 and %2 both hold %3%4: its counts are added twice")
                                 .arg(m_names[it.key().first], m_names[it.key().second], it->second,
                                      it->first > 1 ? QStringLiteral(" and %1 more source(s)").arg(it->first - 1) : QString());
        if (m_strict)
            result.problems << text + QStringLiteral(" (refused under --strict)");
        else
            result.warnings << text;
    }
}

QByteArray objectLine(const Merged& m)
{
    QByteArray s = "{\"record\":\"histogram2d\",\"schema\":\"histoscope.histogram2d/2\",\"file\":\"merged:" + QByteArray::number(m.parts) + '"';
    for (const char* k : {"kind", "channel", "standard", "x", "y"}) {
        if (!m.head.contains(QLatin1String(k)))
            continue;
        const QJsonValue v = m.head[QLatin1String(k)];
        if (v.isObject()) {  // an axis, in the order the scope command writes it
            const QJsonObject a = v.toObject();
            s += ",\"" + QByteArray(k) + "\":{\"name\":" + compact(a["name"]) + ",\"bins\":" + compact(a["bins"]) + ",\"lo\":"
                 + compact(a["lo"]) + ",\"hi\":" + compact(a["hi"]) + '}';
        } else {
            s += ",\"" + QByteArray(k) + "\":" + compact(v);
        }
    }
    s += ",\"outside\":{";
    const char* axes[] = {"x", "y"};
    for (int a = 0; a < 2; ++a)
        s += (a ? ",\"" : "\"") + QByteArray(axes[a]) + "\":{\"below\":" + QByteArray::number(m.outside[a][0]) + ",\"above\":"
             + QByteArray::number(m.outside[a][1]) + ",\"nan\":" + QByteArray::number(m.outside[a][2]) + '}';
    s += "},\"counts\":[";
    for (qint64 i = 0; i < m.x.bins; ++i) {
        s += i ? ",[" : "[";
        for (qint64 j = 0; j < m.y.bins; ++j) {
            if (j)
                s += ',';
            s += QByteArray::number(m.counts[std::size_t(i * m.y.bins + j)]);
        }
        s += ']';
    }
    return s + "]}\n";
}

}  // namespace

bool isScopeOutput(const QString& path)
{
    QFile file;
    if (!openInput(path, file))
        return false;
    const QByteArray head = file.peek(256);
    return head.contains("\"schema\":\"histoscope.histogram2d/");
}

ScopeMergeResult mergeScopeOutputs(const QStringList& inputs, bool allowPartial, bool strict, OutputSink& sink,
                                   const QString& output, Error& written)
{
    ScopeMerger merger(allowPartial, strict);
    for (const QString& path : inputs)
        merger.read(path);
    merger.reportOverlaps();
    if (!merger.result.problems.isEmpty())
        return merger.result;
    if (!sink.open(output, written))
        return merger.result;
    bool ok = true;
    for (qsizetype i = 0; ok && i < merger.order.size(); ++i)
        ok = sink.writeLine(objectLine(merger.merged[merger.order[i]]), written);
    const QByteArray summary = "{\"record\":\"summary\",\"schema\":\"histoscope.histogram2d/2\",\"records\":"
                             + QByteArray::number(merger.merged.size()) + ",\"files\":" + QByteArray::number(merger.files)
                             + ",\"failed\":" + QByteArray::number(merger.failed) + ",\"frames\":" + QByteArray::number(merger.frames) + "}\n";
    if (ok)
        ok = sink.writeLine(summary, written);
    if (ok)
        sink.close(written);
    return merger.result;
}
