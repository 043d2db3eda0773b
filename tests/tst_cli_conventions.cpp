// Issue 20: the command line as data people load and as shell users expect it, run as a user
// would (QProcess): records whose keys follow docs/SCHEMA.md, `histogram --format`, the long
// layout, integer keys binned as numpy.bincount bins them, scope outputs merged, stdin as `-`,
// help and version on every command, -q and -v, and one list of strategies.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include "gpu/testing/TestCases.h"

#include <algorithm>
#include <cstring>
#include <random>

class TestCliConventions : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void jsonKeysFollowTheSchema();
    void histogramFormats_data();
    void histogramFormats();
    void longLayout_data();
    void longLayout();
    void integerKeysAreBincounted_data();
    void integerKeysAreBincounted();
    void scopeOutputsMerge();
    void stdinIsDash();
    void helpAndVersion_data();
    void helpAndVersion();
    void quietAndVerbose();
    void oneStrategyList();
    void csvCarriesTheJsonStatistics_data();
    void csvCarriesTheJsonStatistics();
    void guiHelpWithoutDisplay_data();
    void guiHelpWithoutDisplay();
    void csvRecordColumnFirst();
    void mergeReadsVersion2_data();
    void mergeReadsVersion2();
    void sparklineOfFlatDataIsFlat_data();
    void sparklineOfFlatDataIsFlat();
    void estimatesSayHowToBeExact_data();
    void estimatesSayHowToBeExact();

private:
    struct Run {
        int exitCode = -1;
        QByteArray out;
        QByteArray err;
    };
    Run cli(const QStringList& args, const QString& stdinFile = {});
    QString path(const QString& name) const { return m_dir.filePath(name); }
    QString randomPng(const QString& name, int width, int height, int type = CV_8UC3);
    static QList<QJsonObject> lines(const QByteArray& jsonl, const QString& record = QStringLiteral("histogram"));
    static QStringList topLevelKeys(const QByteArray& json);

    QTemporaryDir m_dir;
    std::mt19937_64 m_rng;
};

TestCliConventions::Run TestCliConventions::cli(const QStringList& args, const QString& stdinFile)
{
    QProcess p;
    if (!stdinFile.isEmpty())
        p.setStandardInputFile(stdinFile);
    p.start(QStringLiteral(HISTOSCOPE_CLI), args);
    if (!p.waitForFinished(120000))
        return {};
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(), p.readAllStandardError()};
}

QString TestCliConventions::randomPng(const QString& name, int width, int height, int type)
{
    const QString file = path(name);
    QDir().mkpath(QFileInfo(file).path());
    cv::Mat m(height, width, type);
    cv::RNG(m_rng()).fill(m, cv::RNG::UNIFORM, 0, CV_MAT_DEPTH(type) == CV_16U ? 65536 : 256);
    return cv::imwrite(QFile::encodeName(file).toStdString(), m) ? file : QString();
}

QList<QJsonObject> TestCliConventions::lines(const QByteArray& jsonl, const QString& record)
{
    QList<QJsonObject> out;
    for (const QByteArray& line : jsonl.split('\n'))
        if (!line.trimmed().isEmpty()) {
            const QJsonObject o = QJsonDocument::fromJson(line).object();
            if (o["record"].toString() == record)
                out << o;
        }
    return out;
}

// The keys of a JSON object's top level, in the order they are written.
QStringList TestCliConventions::topLevelKeys(const QByteArray& json)
{
    QStringList keys;
    QByteArray stack;  // the open containers, '{' or '['
    for (qsizetype i = 0; i < json.size(); ++i) {
        const char c = json[i];
        if (c == '"') {
            QByteArray text;
            for (++i; i < json.size() && json[i] != '"'; ++i) {
                if (json[i] == '\\')
                    text += json[i++];
                text += json[i];
            }
            if (stack == "{" && json.mid(i + 1, 1) == ":")
                keys << QString::fromUtf8(text);
        } else if (c == '{' || c == '[') {
            stack += c;
        } else if (c == '}' || c == ']') {
            stack.chop(1);
        }
    }
    return keys;
}

void TestCliConventions::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_rng.seed(hs::testing::runSeed());
}

// JSON keys in docs/SCHEMA.md's order, `record` first, for histogram records and summaries.
void TestCliConventions::jsonKeysFollowTheSchema()
{
    const QString png = randomPng("keys/a.png", 9, 5);
    const QByteArray out = cli({"batch", "-q", "--cpu", png}).out;
    const QList<QByteArray> rows = out.trimmed().split('\n');
    QCOMPARE(rows.size(), 4);
    const QStringList schemaOrder{"record", "schema", "file", "frame", "region", "channel", "type", "bins", "lo", "hi",
                                  "binning", "counts", "warnings", "statistics"};
    QStringList keys = topLevelKeys(rows[0]);
    QCOMPARE(keys.first(), QStringLiteral("record"));
    QStringList expected;
    for (const QString& k : schemaOrder)
        if (keys.contains(k))
            expected << k;
    QCOMPARE(keys.mid(0, expected.size()), expected);
    // The statistics object in its documented order.
    const qsizetype at = rows[0].indexOf("\"statistics\":");
    const QStringList stats = topLevelKeys(rows[0].mid(at + 13, rows[0].lastIndexOf('}') - at - 13));
    QVERIFY(stats.size() >= 16);
    const QStringList statsOrder{"count", "exact", "coarse", "min", "max", "mean", "std", "std_sample", "median", "mode",
                                 "percentiles", "clipped_low", "clipped_high", "entropy_bits", "below", "above", "nan"};
    QStringList statsExpected;
    for (const QString& k : statsOrder)
        if (stats.contains(k))
            statsExpected << k;
    QCOMPARE(stats.mid(0, statsExpected.size()), statsExpected);
    QCOMPARE(topLevelKeys(rows.last()), (QStringList{"record", "schema", "records", "files", "failed", "frames"}));
}

// `histogram --format` writes what batch writes for the same file; text stays the default.
void TestCliConventions::histogramFormats_data()
{
    QTest::addColumn<QString>("format");
    QTest::newRow("jsonl") << "jsonl";
    QTest::newRow("csv") << "csv";
}

void TestCliConventions::histogramFormats()
{
    QFETCH(QString, format);
    const QString png = randomPng("formats/a.png", 13, 7);
    const Run histogram = cli({"histogram", "-q", "--cpu", "--format", format, png});
    const Run batch = cli({"batch", "-q", "--cpu", "--format", format, png});
    QCOMPARE(histogram.exitCode, 0);
    QCOMPARE(batch.exitCode, 0);
    QVERIFY(!histogram.out.isEmpty());
    QCOMPARE(histogram.out, batch.out);
    const Run text = cli({"histogram", "-q", "--cpu", png});
    QVERIFY2(text.out.startsWith(QFile::encodeName(png) + ": 13x7, 3 channel(s), u8"), text.out.constData());
    const Run bad = cli({"histogram", "--format", "xml", png});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains("--format takes text, jsonl or csv"), bad.err.constData());
}

// --layout long: one row per file, channel and bin, with the bin's edges; the counts are the
// wide record's.
void TestCliConventions::longLayout_data()
{
    QTest::addColumn<QString>("format");
    QTest::addColumn<QStringList>("binning");
    QTest::newRow("csv, one bin per value") << "csv" << QStringList{};
    QTest::newRow("csv, 10 bins over [0, 256)") << "csv" << QStringList{"--bins", "10", "--range", "0:256"};
    QTest::newRow("jsonl, one bin per value") << "jsonl" << QStringList{};
}

void TestCliConventions::longLayout()
{
    QFETCH(QString, format);
    QFETCH(QStringList, binning);
    const QString png = randomPng("long/a.png", 11, 6);
    const QList<QJsonObject> wide = lines(cli(QStringList{"batch", "-q", "--cpu"} + binning + QStringList{png}).out);
    QCOMPARE(wide.size(), 3);
    const int bins = wide[0]["bins"].toInt();
    const Run run = cli(QStringList{"batch", "-q", "--cpu", "--layout", "long", "--format", format} + binning + QStringList{png});
    QCOMPARE(run.exitCode, 0);
    QList<QByteArray> rows = run.out.trimmed().split('\n');
    const qsizetype header = format == "csv" ? 1 : 0;
    QCOMPARE(rows.size(), header + 3 * bins + 1);  // the summary ends it
    QStringList columns;
    if (format == "csv") {
        columns = QString::fromUtf8(rows[0]).split(',');
        QCOMPARE(columns.mid(columns.size() - 4), (QStringList{"bin", "bin_lo", "bin_hi", "count"}));
    }
    const double lo = wide[0]["lo"].toDouble(), hi = wide[0]["hi"].toDouble();
    for (int c = 0; c < 3; ++c) {
        const QJsonArray counts = wide[c]["counts"].toArray();
        for (int b = 0; b < bins; ++b) {
            const QByteArray& row = rows[header + c * bins + b];
            QString channel;
            double binLo = 0, binHi = 0;
            qint64 count = 0, bin = -1;
            if (format == "csv") {
                const QStringList f = QString::fromUtf8(row).split(',');
                channel = f[columns.indexOf("channel")];
                bin = f[columns.indexOf("bin")].toLongLong();
                binLo = f[columns.indexOf("bin_lo")].toDouble();
                binHi = f[columns.indexOf("bin_hi")].toDouble();
                count = f[columns.indexOf("count")].toLongLong();
            } else {
                const QJsonObject o = QJsonDocument::fromJson(row).object();
                channel = o["channel"].toString();
                bin = o["bin"].toInteger();
                binLo = o["bin_lo"].toDouble();
                binHi = o["bin_hi"].toDouble();
                count = o["count"].toInteger();
            }
            QCOMPARE(channel, wide[c]["channel"].toString());
            QCOMPARE(bin, qint64(b));
            QCOMPARE(count, counts[b].toInteger());
            QVERIFY(qAbs(binLo - (lo + (hi - lo) * b / bins)) < 1e-9);
            QVERIFY(qAbs(binHi - (lo + (hi - lo) * (b + 1) / bins)) < 1e-9);
        }
    }
    QVERIFY(rows.last().contains("summary"));
    if (format == "csv") {
        const QString saved = path("long/out.csv");
        QFile f(saved);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(run.out);
        f.close();
        const Run merged = cli({"merge", saved});
        QCOMPARE(merged.exitCode, 1);
        QVERIFY2(merged.err.contains("a long-layout CSV"), merged.err.constData());
    }
}

// 1-D integer keys without --bins or --range: one bin per value from 0 (or the smallest,
// negative, key) to the largest, as numpy.bincount counts them.
void TestCliConventions::integerKeysAreBincounted_data()
{
    QTest::addColumn<QString>("type");
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<int>("expectedBins");  // 0: max + 1 - min(0, smallest)
    QTest::newRow("u16 keys") << "u16" << QStringList{} << 0;
    QTest::newRow("u32 keys") << "u32" << QStringList{} << 0;
    QTest::newRow("i32 keys with negatives") << "i32" << QStringList{} << 0;
    QTest::newRow("u16 keys, --bins 16 given") << "u16" << QStringList{"--bins", "16"} << 16;
}

void TestCliConventions::integerKeysAreBincounted()
{
    QFETCH(QString, type);
    QFETCH(QStringList, extra);
    QFETCH(int, expectedBins);
    const int n = 5000;
    std::uniform_int_distribution<int> key(type == "i32" ? -300 : 0, 2000 + int(m_rng() % 3000));
    std::vector<qint64> values(n);
    QByteArray bytes;
    for (qint64& v : values) {
        v = key(m_rng);
        if (type == "u16") {
            const quint16 x = quint16(v);
            bytes.append(reinterpret_cast<const char*>(&x), 2);
        } else {
            const qint32 x = qint32(v);
            bytes.append(reinterpret_cast<const char*>(&x), 4);
        }
    }
    const qint64 lo = std::min<qint64>(0, *std::min_element(values.begin(), values.end()));
    const qint64 hi = *std::max_element(values.begin(), values.end()) + 1;
    const QString file = path("keys/" + type + ".bin");
    QDir().mkpath(path("keys"));
    QFile f(file);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes);
    f.close();
    const Run run = cli(QStringList{"batch", "-q", "--cpu", "--raw-shape", "0", "--raw-type", type} + extra + QStringList{file});
    QCOMPARE(run.exitCode, 0);
    const QList<QJsonObject> list = lines(run.out);
    QCOMPARE(list.size(), 1);
    const QJsonObject r = list[0];
    if (expectedBins) {
        QCOMPARE(r["bins"].toInt(), expectedBins);
        return;
    }
    QCOMPARE(r["binning"].toString(), QStringLiteral("identity"));
    QCOMPARE(r["lo"].toInteger(), lo);
    QCOMPARE(r["hi"].toInteger(), hi);
    std::vector<qint64> bincount(std::size_t(hi - lo), 0);
    for (qint64 v : values)
        ++bincount[std::size_t(v - lo)];
    const QJsonArray counts = r["counts"].toArray();
    QCOMPARE(counts.size(), qsizetype(bincount.size()));
    for (qsizetype i = 0; i < counts.size(); ++i)
        QCOMPARE(counts[i].toInteger(), bincount[std::size_t(i)]);
}

// merge adds scope outputs cell by cell, with the histogram records' checks.
void TestCliConventions::scopeOutputsMerge()
{
    const QString a = randomPng("scopes/a.png", 12, 5), b = randomPng("scopes/b.png", 12, 9);
    const QString sa = path("scopes/a.jsonl"), sb = path("scopes/b.jsonl");
    QCOMPARE(cli({"scope", "-q", "parade", a, "-o", sa}).exitCode, 0);
    QCOMPARE(cli({"scope", "-q", "parade", b, "-o", sb}).exitCode, 0);
    const Run run = cli({"merge", sa, sb});
    QCOMPARE(run.exitCode, 0);
    const QList<QJsonObject> merged = lines(run.out, "histogram2d");
    QCOMPARE(merged.size(), 3);
    const QList<QJsonObject> one = lines(cli({"scope", "-q", "parade", a}).out, "histogram2d");
    const QList<QJsonObject> two = lines(cli({"scope", "-q", "parade", b}).out, "histogram2d");
    for (int c = 0; c < 3; ++c) {
        QCOMPARE(merged[c]["channel"], one[c]["channel"]);
        QCOMPARE(merged[c]["file"].toString(), QStringLiteral("merged:2"));
        const QJsonArray m = merged[c]["counts"].toArray(), x = one[c]["counts"].toArray(), y = two[c]["counts"].toArray();
        QCOMPARE(m.size(), 12);
        for (int col = 0; col < 12; ++col)
            for (int v = 0; v < 256; ++v)
                QCOMPARE(m[col].toArray()[v].toInteger(), x[col].toArray()[v].toInteger() + y[col].toArray()[v].toInteger());
    }
    const QJsonObject summary = lines(run.out, "summary").value(0);
    QCOMPARE(summary["files"].toInt(), 2);
    QCOMPARE(summary["records"].toInt(), 3);
    // Unfinished (no summary) and overflowing inputs are refused, nothing written.
    QFile cut(path("scopes/cut.jsonl"));
    QVERIFY(cut.open(QIODevice::WriteOnly));
    QByteArray bytes = cli({"scope", "-q", "parade", a}).out;
    cut.write(bytes.left(bytes.lastIndexOf("{\"record\":\"summary\"")));
    cut.close();
    Run refused = cli({"merge", sa, path("scopes/cut.jsonl")});
    QCOMPARE(refused.exitCode, 1);
    QVERIFY2(refused.err.contains("no summary record"), refused.err.constData());
    QVERIFY(refused.out.isEmpty());
    QFile in(sa);
    QVERIFY(in.open(QIODevice::ReadOnly));
    QByteArray big = in.readAll();
    const qsizetype first = big.indexOf("\"counts\":[[") + 11;
    big.replace(first, big.indexOf(',', first) - first, "9223372036854775807");
    for (const char* name : {"scopes/big1.jsonl", "scopes/big2.jsonl"}) {
        QFile out(path(name));
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QByteArray(big).replace(QFile::encodeName(a), QFile::encodeName(path(name))));
    }
    refused = cli({"merge", path("scopes/big1.jsonl"), path("scopes/big2.jsonl")});
    QCOMPARE(refused.exitCode, 1);
    QVERIFY2(refused.err.contains("overflows 64 bits"), refused.err.constData());
}

// `-` reads standard input, named "-" in records and messages.
void TestCliConventions::stdinIsDash()
{
    const QString png = randomPng("stdin/a.png", 10, 4);
    const Run fromFile = cli({"histogram", "-q", "--cpu", "--format", "jsonl", png});
    const Run fromStdin = cli({"histogram", "-q", "--cpu", "--format", "jsonl", "-"}, png);
    QCOMPARE(fromStdin.exitCode, 0);
    QByteArray expected = fromFile.out;
    expected.replace("\"file\":\"" + QFile::encodeName(png) + '"', "\"file\":\"-\"");
    QCOMPARE(fromStdin.out, expected);
    const Run batch = cli({"batch", "-q", "--cpu", "-"}, png);
    QCOMPARE(batch.exitCode, 0);
    QCOMPARE(lines(batch.out).value(0)["file"].toString(), QStringLiteral("-"));
    const Run scope = cli({"scope", "-q", "parade", "-"}, png);
    QCOMPARE(scope.exitCode, 0);
    QCOMPARE(lines(scope.out, "histogram2d").size(), 3);
    const Run twice = cli({"batch", "-q", "--cpu", "-", "-"}, png);
    QCOMPARE(twice.exitCode, 2);
    QVERIFY2(twice.err.contains("standard input (-) can be read once"), twice.err.constData());
    // Errors name it as given, never the copy's temporary path.
    const QString junk = path("stdin/junk.bin");
    QFile f(junk);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("not an image at all");
    f.close();
    const Run bad = cli({"histogram", "-q", "--cpu", "-"}, junk);
    QCOMPARE(bad.exitCode, 1);
    QVERIFY2(bad.err.startsWith("error: -: ") && !bad.err.contains("histoscope-stdin"), bad.err.constData());
}

void TestCliConventions::helpAndVersion_data()
{
    QTest::addColumn<QString>("command");
    for (const char* c : {"histogram", "batch", "merge", "scope"})
        QTest::newRow(c) << c;
}

void TestCliConventions::helpAndVersion()
{
    QFETCH(QString, command);
    const Run help = cli({command, "--help"});
    QCOMPARE(help.exitCode, 0);
    QVERIFY2(help.out.startsWith("Usage: histoscope-cli " + command.toUtf8() + " [options]"), help.out.constData());
    QVERIFY2(!help.out.contains("--help-all"), help.out.constData());
    for (const char* option : {"--quiet", "--verbose", "--version"})
        QVERIFY2(help.out.contains(option), help.out.constData());
    QCOMPARE(cli({"help", command}).out, help.out);
    QCOMPARE(cli({command, "-h"}).out, help.out);
    const Run version = cli({command, "--version"});
    QCOMPARE(version.exitCode, 0);
    QVERIFY2(version.out.startsWith("histoscope-cli "), version.out.constData());
    const Run bench = cli({"bench", "--help"});
    QCOMPARE(bench.exitCode, 0);
    QVERIFY2(bench.out.contains("histoscope-cli bench") && !bench.out.contains("histoscope-bench"), bench.out.constData());
    QCOMPARE(cli({"bench", "--version"}).out, version.out);
}

// -q keeps notes back; -v names what was skipped; both at once is a usage error.
void TestCliConventions::quietAndVerbose()
{
    const QString dir = path("verbose");
    randomPng("verbose/a.png", 5, 5);
    QFile notes(dir + "/notes.txt");
    QVERIFY(notes.open(QIODevice::WriteOnly));
    notes.write("not an image");
    notes.close();
    const Run normal = cli({"batch", "--cpu", dir});
    QCOMPARE(normal.exitCode, 0);
    QVERIFY2(normal.err.contains("note: 1 file(s) skipped"), normal.err.constData());
    const Run quiet = cli({"batch", "--cpu", "-q", dir});
    QVERIFY2(!quiet.err.contains("note:"), quiet.err.constData());
    const Run verbose = cli({"batch", "--cpu", "-v", dir});
    QVERIFY2(verbose.err.contains("skipped " + QFile::encodeName(dir + "/notes.txt")), verbose.err.constData());
    const Run both = cli({"batch", "--cpu", "-q", "-v", dir});
    QCOMPARE(both.exitCode, 2);
    QVERIFY2(both.err.contains("-q and -v exclude each other"), both.err.constData());
    QCOMPARE(cli({"histogram", "--cpu", "-q", path("verbose/a.png")}).err, QByteArray());
}

// One list of strategies: bench --list-strategies, histogram --help and the README agree.
void TestCliConventions::oneStrategyList()
{
    const QStringList listed = QString::fromUtf8(cli({"bench", "--list-strategies"}).out).split('\n', Qt::SkipEmptyParts);
    QVERIFY(listed.contains("per-lane") && listed.contains("auto"));
    QVERIFY(!listed.contains("read-probe"));
    const QString help = QString::fromUtf8(cli({"histogram", "--help"}).out).simplified();
    const qsizetype at = help.indexOf("Engine strategy: ");
    QVERIFY(at >= 0);
    const QString named = help.mid(at + 17, help.indexOf(" (docs/STRATEGIES.md)", at) - at - 17);
    QCOMPARE(named.split(", "), listed);
    QFile readme(QStringLiteral(HISTOSCOPE_SOURCE_DIR "/README.md"));
    QVERIFY(readme.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(readme.readAll());
    const qsizetype line = text.indexOf("(`histoscope-cli bench --list-strategies`):");
    QVERIFY(line >= 0);
    const QString list = text.mid(line, text.indexOf("A strategy that cannot", line) - line);
    QStringList inReadme;
    static const QRegularExpression name(QStringLiteral("`([a-z-]+)`"));
    for (auto m = name.globalMatch(list); m.hasNext();)
        inReadme << m.next().captured(1);
    QCOMPARE(inReadme, listed);
}

// CSV from batch, merge and histogram carries every statistic JSON has, in the columns
// docs/SCHEMA.md names, and the summary row is as wide as the header.
void TestCliConventions::csvCarriesTheJsonStatistics_data()
{
    QTest::addColumn<QString>("command");
    QTest::addColumn<QStringList>("binning");
    QTest::newRow("batch, one bin per value") << "batch" << QStringList{};
    QTest::newRow("batch, 7 bins") << "batch" << QStringList{"--bins", "7", "--range", "0:256"};
    QTest::newRow("merge") << "merge" << QStringList{};
    QTest::newRow("histogram") << "histogram" << QStringList{};
}

void TestCliConventions::csvCarriesTheJsonStatistics()
{
    QFETCH(QString, command);
    QFETCH(QStringList, binning);
    const QString png = randomPng("csvstats/a.png", 17, 6);
    auto run = [&](const QString& format) {
        if (command != "merge")
            return cli(QStringList{command, "-q", "--cpu", "--format", format} + binning + QStringList{png});
        const QString saved = path("csvstats/batch.jsonl");
        QFile f(saved);
        if (!f.open(QIODevice::WriteOnly) || f.write(cli({"batch", "-q", "--cpu", png}).out) <= 0)
            return Run{};
        f.close();
        return cli({"merge", "--format", format, saved});
    };
    const Run json = run("jsonl"), csv = run("csv");
    QCOMPARE(json.exitCode, 0);
    QCOMPARE(csv.exitCode, 0);
    const QList<QJsonObject> records = lines(json.out);
    QCOMPARE(records.size(), 3);
    const QList<QByteArray> rows = csv.out.trimmed().split('\n');
    QCOMPARE(rows.size(), 1 + 3 + 1);
    const QStringList header = QString::fromUtf8(rows[0]).split(',');
    for (const QByteArray& row : rows)
        QCOMPARE(row.count(',') + 1, header.size());  // the summary too
    for (int c = 0; c < 3; ++c) {
        const QStringList f = QString::fromUtf8(rows[1 + c]).split(',');
        const QJsonObject s = records[c]["statistics"].toObject();
        const auto field = [&](const char* name) {
            const qsizetype at = header.indexOf(QLatin1String(name));
            return at < 0 ? QStringLiteral("<no column %1>").arg(QLatin1String(name)) : f[at];
        };
        const auto same = [&](const char* column, const QJsonValue& v) {
            const QString text = field(column);
            if (v.isBool())
                return text == (v.toBool() ? "true" : "false");
            if (v.isNull())
                return text.isEmpty();
            bool ok = false;
            return text.toDouble(&ok) == v.toDouble() && ok;
        };
        QCOMPARE(field("channel"), records[c]["channel"].toString());
        for (const char* key : {"exact", "coarse", "std_sample", "mode", "clipped_low", "clipped_high", "entropy_bits", "min",
                                "max", "below", "above", "nan", "count"})
            QVERIFY2(same(key, s[QLatin1String(key)]), qPrintable(QStringLiteral("%1: %2 in CSV, %3 in JSON")
                         .arg(QLatin1String(key), field(key), QString::fromUtf8(QJsonDocument(QJsonArray{s[QLatin1String(key)]}).toJson()))));
        const QJsonObject percentiles = s["percentiles"].toObject();
        for (const char* p : {"1", "5", "25", "75", "95"})
            QVERIFY2(same(qPrintable(QStringLiteral("p") + QLatin1String(p)), percentiles[QLatin1String(p)]), p);
    }
    QVERIFY(rows.last().contains("summary"));
}

// The app answers --help and --version without a display (help2man, ssh): no QApplication, so
// no platform plugin to load.
void TestCliConventions::guiHelpWithoutDisplay_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("starts");
    QTest::addColumn<QString>("holds");
    QTest::newRow("--help") << QStringList{"--help"} << "Usage: " << "--screenshot <FILE>";
    QTest::newRow("-h") << QStringList{"-h"} << "Usage: " << "--screenshot <FILE>";
    QTest::newRow("--version") << QStringList{"--version"} << "HistoScope " << "HistoScope ";
    QTest::newRow("--help after a file") << QStringList{"photo.jpg", "--help"} << "Usage: " << "--live <SOURCE>";
}

void TestCliConventions::guiHelpWithoutDisplay()
{
#ifndef HISTOSCOPE_GUI
    QSKIP("the app is not built");
#else
    QFETCH(QStringList, arguments);
    QFETCH(QString, starts);
    QFETCH(QString, holds);
    QProcess p;
    p.start(QStringLiteral("env"), QStringList{"-u", "DISPLAY", "-u", "QT_QPA_PLATFORM", "-u", "WAYLAND_DISPLAY",
                                               QStringLiteral(HISTOSCOPE_GUI)} + arguments);
    QVERIFY(p.waitForFinished(60000));
    const QByteArray out = p.readAllStandardOutput(), err = p.readAllStandardError();
    QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0, err.constData());
    QVERIFY2(out.startsWith(starts.toUtf8()) && out.contains(holds.toUtf8()), out.constData());
    QVERIFY2(!err.contains("platform plugin"), err.constData());
#endif
}

// Version 3: `record` is the first field of every CSV row (header, histograms, summary) and the
// first key of every JSON object, in both layouts.
void TestCliConventions::csvRecordColumnFirst()
{
    const QString png = randomPng("first/a.png", 8, 3);
    for (const QString& layout : {QStringLiteral("wide"), QStringLiteral("long")}) {
        const Run csv = cli({"batch", "-q", "--cpu", "--format", "csv", "--layout", layout, png});
        QCOMPARE(csv.exitCode, 0);
        const QList<QByteArray> rows = csv.out.trimmed().split('\n');
        QVERIFY(rows.size() >= 5);
        QVERIFY2(rows[0].startsWith("record,schema,file,"), rows[0].constData());
        for (qsizetype i = 1; i + 1 < rows.size(); ++i)
            QVERIFY2(rows[i].startsWith("histogram,histoscope.histogram/3,"), rows[i].constData());
        QVERIFY2(rows.last().startsWith("summary,histoscope.histogram/3,records=3;files=1;failed=0;frames=1"), rows.last().constData());
        const Run json = cli({"batch", "-q", "--cpu", "--layout", layout, png});
        for (const QByteArray& line : json.out.trimmed().split('\n'))
            QVERIFY2(line.startsWith("{\"record\":\"") && line.contains("\"schema\":\"histoscope.histogram/3\""), line.constData());
    }
}

// Files of version 2 (`schema` first in CSV) still merge, alone and with version 3 files.
void TestCliConventions::mergeReadsVersion2_data()
{
    QTest::addColumn<QString>("format");
    QTest::newRow("csv") << "csv";
    QTest::newRow("jsonl") << "jsonl";
}

void TestCliConventions::mergeReadsVersion2()
{
    QFETCH(QString, format);
    const QString a = randomPng("v2/a.png", 9, 4), b = randomPng("v2/b.png", 5, 6);
    QByteArray old = cli({"batch", "-q", "--cpu", "--format", format, a}).out;
    // As version 2 wrote it: the same records, `schema` before `record` in CSV.
    QByteArray v2;
    for (const QByteArray& line : old.trimmed().split('\n')) {
        QList<QByteArray> f = line.split(',');
        if (format == "csv")
            f.swapItemsAt(0, 1);
        v2 += f.join(',').replace("histoscope.histogram/3", "histoscope.histogram/2") + '\n';
    }
    QVERIFY(v2.startsWith(format == "csv" ? "schema,record," : "{\"record\""));
    const QString oldFile = path("v2/a." + format), newFile = path("v2/b." + format);
    for (const auto& [file, bytes] : {std::pair{oldFile, v2}, std::pair{newFile, cli({"batch", "-q", "--cpu", "--format", format, b}).out}}) {
        QFile out(file);
        QVERIFY(out.open(QIODevice::WriteOnly) && out.write(bytes) == bytes.size());
    }
    const Run alone = cli({"merge", oldFile});
    QVERIFY2(alone.exitCode == 0, alone.err.constData());
    QCOMPARE(lines(alone.out).size(), 3);
    const Run both = cli({"merge", oldFile, newFile});
    QVERIFY2(both.exitCode == 0, both.err.constData());
    const QList<QJsonObject> merged = lines(both.out);
    const QList<QJsonObject> one = lines(cli({"batch", "-q", "--cpu", a}).out), two = lines(cli({"batch", "-q", "--cpu", b}).out);
    QCOMPARE(merged.size(), 3);
    for (int c = 0; c < 3; ++c) {
        QCOMPARE(merged[c]["schema"].toString(), QStringLiteral("histoscope.histogram/3"));
        const QJsonArray m = merged[c]["counts"].toArray(), x = one[c]["counts"].toArray(), y = two[c]["counts"].toArray();
        for (qsizetype i = 0; i < m.size(); ++i)
            QCOMPARE(m[i].toInteger(), x[i].toInteger() + y[i].toInteger());
    }
    QCOMPARE(lines(both.out, "summary").value(0)["files"].toInt(), 2);
}


// The text summary's sparkline: 64 columns over any number of bins. A flat histogram draws a full
// bar in every column, with fewer bins than columns (a bin spans several), more (a column spans
// one or two), or a number that divides neither way.
void TestCliConventions::sparklineOfFlatDataIsFlat_data()
{
    QTest::addColumn<int>("bins");
    QTest::newRow("8 bins") << 8;
    QTest::newRow("32 bins") << 32;
    QTest::newRow("63 bins") << 63;
    QTest::newRow("100 bins") << 100;
    QTest::newRow("256 bins") << 256;
}

void TestCliConventions::sparklineOfFlatDataIsFlat()
{
    QFETCH(int, bins);
    // Every value 0 .. bins - 1 equally often in every channel, in a shuffled order.
    const int repeats = 3;
    std::vector<unsigned char> values;
    for (int r = 0; r < repeats; ++r)
        for (int v = 0; v < bins; ++v)
            values.push_back(static_cast<unsigned char>(v));
    std::shuffle(values.begin(), values.end(), m_rng);
    cv::Mat m(1, int(values.size()), CV_8UC3);
    for (int x = 0; x < m.cols; ++x)
        m.at<cv::Vec3b>(0, x) = cv::Vec3b(values[x], values[x], values[x]);
    const QString png = path(QStringLiteral("spark/flat-%1.png").arg(bins));
    QDir().mkpath(QFileInfo(png).path());
    QVERIFY(cv::imwrite(QFile::encodeName(png).toStdString(), m));
    const Run text = cli({"histogram", "-q", "--cpu", "--bins", QString::number(bins), "--range",
                          QStringLiteral("0:%1").arg(bins), png});
    QCOMPARE(text.exitCode, 0);
    int lines = 0;
    for (const QString& line : QString::fromUtf8(text.out).split(QLatin1Char('\n'))) {
        const QString trimmed = line.trimmed();
        if (!trimmed.startsWith(QLatin1Char('|')))
            continue;
        ++lines;
        QCOMPARE(trimmed, QStringLiteral("|%1|").arg(QString(64, QChar(0x2588))));
    }
    QCOMPARE(lines, 3);
}

// 16-bit data at the default 256 bins get estimated statistics ("≈"); the text says that one bin
// per value (--bins 0) makes them exact, and says nothing where they already are.
void TestCliConventions::estimatesSayHowToBeExact_data()
{
    QTest::addColumn<QStringList>("binning");
    QTest::addColumn<bool>("exact");
    QTest::newRow("16-bit, default bins") << QStringList{} << false;
    QTest::newRow("16-bit, --bins 0") << QStringList{"--bins", "0"} << true;
}

void TestCliConventions::estimatesSayHowToBeExact()
{
    QFETCH(QStringList, binning);
    QFETCH(bool, exact);
    const QString png = randomPng("exact/gray16.png", 40, 30, CV_16UC1);
    QVERIFY(!png.isEmpty());
    const Run text = cli(QStringList{"histogram", "-q", "--cpu"} + binning + QStringList{png});
    QCOMPARE(text.exitCode, 0);
    QCOMPARE(text.out.contains("(exact)"), exact);
    QCOMPARE(text.out.contains("--bins 0 gives exact statistics"), !exact);
    QCOMPARE(text.out.contains("\xe2\x89\x88"), !exact);  // "≈" marks the estimates
}

QTEST_GUILESS_MAIN(TestCliConventions)
#include "tst_cli_conventions.moc"
