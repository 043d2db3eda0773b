// The record codec (app/core/RecordCodec.h) and its readers: RFC 4180 cases for the CSV
// reader, round-trips of random records through both encodings (file names with commas,
// quotes, newlines and bytes that are not UTF-8), every way a record can break the schema
// (issue 11, items 8 and 17), and version 1 files as the previous release wrote them.
#include "app/core/CsvReader.h"
#include "app/core/RecordCodec.h"
#include "app/core/RecordReader.h"
#include "io/NativePath.h"

#include "histoscope/HistogramStatistics.h"

#include <QBuffer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

#include <cmath>
#include <random>

using Rows = QList<QList<QByteArray>>;
Q_DECLARE_METATYPE(ErrorKind)

class TestRecordCodec : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void csvReader_data();
    void csvReader();
    void csvRowLines();
    void nativePathsRoundTrip_data();
    void nativePathsRoundTrip();
    void roundTrip_data();
    void roundTrip();
    void rejectsWhatBreaksTheSchema_data();
    void rejectsWhatBreaksTheSchema();
    void errorKinds_data();
    void errorKinds();
    void summaryRules_data();
    void summaryRules();
    void warningsRoundTrip();
    void coarseIsFlaggedInBothEncodings_data();
    void coarseIsFlaggedInBothEncodings();
    void readsCsvWrittenBeforeTheCoarseColumn();
    void readsVersion1_data();
    void readsVersion1();

private:
    HistogramRecord randomRecord(const QString& file, std::uint32_t bins, bool identity);
    static QByteArray validJson(const HistogramRecord& record) { return RecordCodec::jsonLine(record).trimmed(); }

    std::mt19937_64 m_rng;
};

void TestRecordCodec::initTestCase()
{
    const QByteArray fixed = qgetenv("HISTOSCOPE_SEED");
    const std::uint64_t seed = fixed.isEmpty() ? std::random_device{}() : fixed.toULongLong();
    qInfo("HISTOSCOPE_SEED=%llu", static_cast<unsigned long long>(seed));
    m_rng.seed(seed);
}

HistogramRecord TestRecordCodec::randomRecord(const QString& file, std::uint32_t bins, bool identity)
{
    HistogramRecord r;
    r.file = file;
    r.frame = m_rng() % 3 == 0 ? qint64(m_rng() % 100000) : -1;
    static const char* channels[] = {"gray", "R", "G", "B", "A", "luma"};
    r.channel = QString::fromLatin1(channels[m_rng() % 6]);
    hs::ChannelHistogram& h = r.histogram;
    h.binning.bins = bins;
    h.binning.identity = identity;
    h.binning.lo = identity ? double(std::int64_t(m_rng() % 2000) - 1000) : (double(m_rng() % 100000) - 50000) / 7.0;
    h.binning.hi = identity ? h.binning.lo + bins : h.binning.lo + 0.1 + double(m_rng() % 1000000) / 3.0;
    h.counts.resize(bins);
    for (auto& c : h.counts)
        c = m_rng() % 4 == 0 ? 0 : m_rng() >> (24 + m_rng() % 40);  // zeros and values up to 2^40
    // Exact beyond a double's 53 bits; alone, near the 2^63 - 1 the schema allows.
    h.counts[0] = bins == 1 ? (std::uint64_t(1) << 62) + 1 : (std::uint64_t(1) << 53) + 1;
    h.below = m_rng() % 1000;
    h.above = m_rng() >> 20;
    h.nan = m_rng() % 2 ? 0 : m_rng() % 77;
    // Exact extremes: none, finite, or one side infinite (written as null, read back as such).
    h.hasValues = m_rng() % 5 != 0;
    if (h.hasValues) {
        h.minValue = h.binning.lo - double(m_rng() % 100) / 8.0;
        h.maxValue = m_rng() % 7 == 0 ? HUGE_VAL : h.binning.hi + double(m_rng() % 100) / 16.0;
    }
    if (h.hasValues && identity) {
        // One bin per value: the counts say where the extremes are (the codec checks it).
        std::int64_t first = -1, last = -1;
        for (std::size_t i = 0; i < h.counts.size(); ++i)
            if (h.counts[i]) {
                first = first < 0 ? std::int64_t(i) : first;
                last = std::int64_t(i);
            }
        h.minValue = h.below ? h.binning.lo - 1 - double(m_rng() % 100) : h.binning.lo + double(first);
        h.maxValue = h.above ? h.binning.hi + double(m_rng() % 100) : h.binning.lo + double(last);
    }
    static const hs::SampleType types[] = {hs::SampleType::U8, hs::SampleType::U16, hs::SampleType::I32,
                                           hs::SampleType::U32, hs::SampleType::F16, hs::SampleType::F32};
    if (m_rng() % 4)
        r.sampleType = types[m_rng() % 6];
    if (m_rng() % 3 == 0)
        r.region = hs::Rect{qint64(m_rng() % 100), qint64(m_rng() % 100), qint64(1 + m_rng() % 1000), qint64(1 + m_rng() % 1000)};
    return r;
}

void TestRecordCodec::csvReader_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<Rows>("rows");
    QTest::addColumn<QString>("error");  // empty: all rows read
    QTest::newRow("plain fields") << QByteArray("a,b,c\n1,2,3\n") << Rows{{"a", "b", "c"}, {"1", "2", "3"}} << "";
    QTest::newRow("CRLF line ends") << QByteArray("a,b\r\nc,d\r\n") << Rows{{"a", "b"}, {"c", "d"}} << "";
    QTest::newRow("no newline at the end") << QByteArray("a,b\nc,d") << Rows{{"a", "b"}, {"c", "d"}} << "";
    QTest::newRow("quoted comma") << QByteArray("\"a,b\",c\n") << Rows{{"a,b", "c"}} << "";
    QTest::newRow("doubled quotes") << QByteArray("\"say \"\"hi\"\"\",x\n") << Rows{{"say \"hi\"", "x"}} << "";
    QTest::newRow("only a quote") << QByteArray("\"\"\"\"\n") << Rows{{"\""}} << "";
    QTest::newRow("newline inside quotes") << QByteArray("\"one\ntwo\",x\n") << Rows{{"one\ntwo", "x"}} << "";
    QTest::newRow("CRLF inside quotes") << QByteArray("\"one\r\ntwo\",x\r\n") << Rows{{"one\r\ntwo", "x"}} << "";
    QTest::newRow("empty fields") << QByteArray(",,\n") << Rows{{"", "", ""}} << "";
    QTest::newRow("empty quoted field") << QByteArray("\"\",a\n") << Rows{{"", "a"}} << "";
    QTest::newRow("trailing comma") << QByteArray("a,\n") << Rows{{"a", ""}} << "";
    QTest::newRow("blank line is one empty field") << QByteArray("a\n\nb\n") << Rows{{"a"}, {""}, {"b"}} << "";
    QTest::newRow("spaces are data") << QByteArray(" a , b \n") << Rows{{" a ", " b "}} << "";
    QTest::newRow("bytes that are not UTF-8") << QByteArray("\xff\xfe,\"\x80\"\n") << Rows{{"\xff\xfe", "\x80"}} << "";
    QTest::newRow("unterminated quote") << QByteArray("\"abc\n") << Rows{} << "ends inside a quoted field";
    QTest::newRow("quote in an unquoted field") << QByteArray("ab\"c\n") << Rows{} << "quote inside an unquoted field";
    QTest::newRow("text after the closing quote") << QByteArray("\"a\"b,c\n") << Rows{} << "after the closing quote";
    QTest::newRow("bare carriage return") << QByteArray("a\rb\n") << Rows{} << "carriage return";
    QTest::newRow("second row broken") << QByteArray("a,b\n\"c\n") << Rows{{"a", "b"}} << "ends inside a quoted field";
}

void TestRecordCodec::csvReader()
{
    QFETCH(QByteArray, input);
    QFETCH(Rows, rows);
    QFETCH(QString, error);
    QBuffer buffer(&input);
    QVERIFY(buffer.open(QIODevice::ReadOnly));
    CsvReader reader(&buffer);
    Rows got;
    QList<QByteArray> fields;
    Error problem;
    while (reader.readRow(fields, problem))
        got << fields;
    QCOMPARE(got, rows);
    if (error.isEmpty()) {
        QVERIFY2(!problem.isError(), qPrintable(problem.message()));
    } else {
        QCOMPARE(int(problem.kind), int(ErrorKind::DecodeFailed));  // malformed CSV, named by the caller
        QVERIFY(problem.source.isEmpty());
        QVERIFY2(problem.cause.contains(error), qPrintable(problem.cause));
    }
}

void TestRecordCodec::csvRowLines()
{
    // A quoted newline belongs to its row: the next row starts two lines further down.
    QByteArray input("h\n\"a\nb\nc\",x\nlast\n");
    QBuffer buffer(&input);
    QVERIFY(buffer.open(QIODevice::ReadOnly));
    CsvReader reader(&buffer);
    QList<QByteArray> fields;
    Error problem;
    QList<qint64> lines;
    while (reader.readRow(fields, problem))
        lines << reader.rowLine();
    QCOMPARE(lines, (QList<qint64>{1, 2, 5}));
}

void TestRecordCodec::nativePathsRoundTrip_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::newRow("ascii") << QByteArray("photos/a.png");
    QTest::newRow("utf-8") << QByteArray("fotos/\xc3\xa4rger \xe2\x82\xac.png");
    QTest::newRow("latin-1 byte") << QByteArray("caf\xe9.png");
    QTest::newRow("lone continuation bytes") << QByteArray("\x80\x81\xbf.png");
    QTest::newRow("overlong slash") << QByteArray("a\xc0\xaf" "b");
    QTest::newRow("encoded surrogate") << QByteArray("x\xed\xb2\x80y");
    QTest::newRow("cut sequence at the end") << QByteArray("name\xe2\x82");
    QTest::newRow("four-byte character") << QByteArray("\xf0\x9f\x93\xb7.jpg");
    QTest::newRow("byte-order mark") << QByteArray("\xef\xbb\xbf" "a\xef\xbb\xbf.png");  // found by the fuzz target
}

void TestRecordCodec::nativePathsRoundTrip()
{
    QFETCH(QByteArray, bytes);
    const QString name = pathFromNative(bytes);
    QCOMPARE(nativePath(name), bytes);
    // Through the codec's JSON, as records carry it.
    HistogramRecord record;
    record.file = name;
    record.channel = QStringLiteral("gray");
    record.histogram.binning = {true, 1, 0, 1, false};
    record.histogram.counts = {7};
    RecordLine back;
    Error error;
    QVERIFY2(RecordCodec::decodeJson(RecordCodec::jsonLine(record).trimmed(), back, error), qPrintable(error.message()));
    QCOMPARE(nativePath(back.record.file), bytes);
}

void TestRecordCodec::roundTrip_data()
{
    QTest::addColumn<int>("format");
    QTest::addColumn<QByteArray>("file");
    QTest::addColumn<int>("bins");
    QTest::addColumn<bool>("identity");
    const struct { const char* name; QByteArray file; } names[] = {
        {"plain", "photos/a.png"},
        {"comma", "photos/a,b.png"},
        {"quotes", "photos/\"quoted\" name.png"},
        {"newline", "photos/two\nlines.png"},
        {"CRLF", "photos/two\r\nlines.png"},
        {"not UTF-8", "photos/caf\xe9\xff.png"},
        {"unicode", "fotos/\xc3\xa4rger \xe2\x82\xac.png"},
        {"empty", ""},
    };
    for (int format : {int(RecordFormat::JsonLines), int(RecordFormat::Csv)})
        for (const auto& n : names)
            for (int bins : {1, 256, 4099})
                for (bool identity : {false, true}) {
                    const QByteArray row = QByteArray(format == int(RecordFormat::Csv) ? "csv" : "jsonl") + ", " + n.name + ", "
                                         + QByteArray::number(bins) + (identity ? " identity" : " uniform");
                    QTest::newRow(row.constData()) << format << n.file << bins << identity;
                }
}

void TestRecordCodec::roundTrip()
{
    QFETCH(int, format);
    QFETCH(QByteArray, file);
    QFETCH(int, bins);
    QFETCH(bool, identity);
    const bool csv = format == int(RecordFormat::Csv);
    QList<HistogramRecord> written;
    QByteArray bytes = csv ? RecordCodec::csvHeader(bins) : QByteArray();
    for (int i = 0; i < 5; ++i) {
        written << randomRecord(pathFromNative(file), std::uint32_t(bins), identity);
        bytes += csv ? RecordCodec::csvLine(written.last()) : RecordCodec::jsonLine(written.last());
    }
    const RunSummary summary{5, qint64(m_rng() % 1000), qint64(m_rng() % 10), qint64(m_rng() % 100000)};
    bytes += csv ? RecordCodec::summaryCsvLine(summary, bins) : RecordCodec::summaryJsonLine(summary);

    QBuffer buffer(&bytes);
    QVERIFY(buffer.open(QIODevice::ReadOnly));
    RecordReader reader(&buffer, QStringLiteral("mem"));
    RecordLine line;
    Error error;
    QList<HistogramRecord> read;
    while (reader.next(line, error))
        if (line.kind == RecordLine::Kind::Histogram)
            read << line.record;
    QVERIFY2(!error.isError(), qPrintable(error.message()));
    QCOMPARE(int(reader.format()), format);
    QCOMPARE(read.size(), written.size());
    for (int i = 0; i < read.size(); ++i) {
        const HistogramRecord &a = written[i], &b = read[i];
        QCOMPARE(nativePath(b.file), file);
        QCOMPARE(b.frame, a.frame);
        QCOMPARE(b.channel, a.channel);
        QCOMPARE(b.histogram.binning.bins, a.histogram.binning.bins);
        QCOMPARE(b.histogram.binning.identity, a.histogram.binning.identity);
        QCOMPARE(b.histogram.binning.lo, a.histogram.binning.lo);
        QCOMPARE(b.histogram.binning.hi, a.histogram.binning.hi);
        QVERIFY(b.histogram.counts == a.histogram.counts);
        QCOMPARE(b.histogram.below, a.histogram.below);
        QCOMPARE(b.histogram.above, a.histogram.above);
        QCOMPARE(b.histogram.nan, a.histogram.nan);
        // Extremes the writer had come back; ones it derived from one-value bins come back as
        // known. Either way the statistics are the same. CSV carries no type or region.
        if (a.histogram.hasValues) {
            QVERIFY(b.histogram.hasValues);
            QCOMPARE(b.histogram.minValue, a.histogram.minValue);
            QCOMPARE(b.histogram.maxValue, a.histogram.maxValue);
        }
        const HistogramRecord& expected = a;  // CSV carries the type and region too
        QCOMPARE(RecordCodec::recordJson(b)["statistics"], RecordCodec::recordJson(expected)["statistics"]);
        QCOMPARE(b.sampleType.has_value(), expected.sampleType.has_value());
        if (expected.sampleType)
            QCOMPARE(int(*b.sampleType), int(*expected.sampleType));
        QCOMPARE(b.region.has_value(), expected.region.has_value());
        if (expected.region)
            QVERIFY(b.region->x == expected.region->x && b.region->y == expected.region->y
                    && b.region->width == expected.region->width && b.region->height == expected.region->height);
    }
    QVERIFY(reader.sawSummary());
    QCOMPARE(reader.summary().records, summary.records);
    QCOMPARE(reader.summary().files, summary.files);
    QCOMPARE(reader.summary().failed, summary.failed);
    QCOMPARE(reader.summary().frames, summary.frames);
}

void TestRecordCodec::rejectsWhatBreaksTheSchema_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("cause");

    HistogramRecord r;
    r.file = QStringLiteral("a.png");
    r.channel = QStringLiteral("R");
    r.histogram.binning = {true, 4, 0, 4, true};
    r.histogram.counts = {1, 2, 3, 4};
    r.histogram.hasValues = true;
    r.histogram.minValue = 0;
    r.histogram.maxValue = 3;
    r.sampleType = hs::SampleType::U8;
    const QByteArray good = validJson(r);
    const QJsonObject base = QJsonDocument::fromJson(good).object();
    auto with = [&](const char* key, const QJsonValue& value) {
        QJsonObject o = base;
        if (value.isUndefined())
            o.remove(QLatin1String(key));
        else
            o[QLatin1String(key)] = value;
        return good + "\n" + QJsonDocument(o).toJson(QJsonDocument::Compact) + "\n";
    };
    auto withCount = [&](const QByteArray& text) {
        QByteArray line = good;
        line.replace("\"counts\":[1,2,3,4]", "\"counts\":[1," + text + ",3,4]");
        return good + "\n" + line + "\n";
    };
    // Issue 10: warnings are optional, but when present an array of strings.
    QTest::newRow("warnings a string") << with("warnings", QStringLiteral("cut")) << 2 << "warnings is the string \"cut\", not an array of strings";
    QTest::newRow("warnings holds a number") << with("warnings", QJsonArray{QStringLiteral("a"), 3}) << 2 << "warnings holds 3, not a string";
    // Counts that used to become 0 or stay negative.
    QTest::newRow("count 1.5") << withCount("1.5") << 2 << "counts[1] is 1.5, not a whole number";
    QTest::newRow("count \"12\"") << withCount("\"12\"") << 2 << "counts[1] is the string \"12\"";
    QTest::newRow("count 1e300") << withCount("1e300") << 2 << "counts[1] is 1.0000000000000001e+300";
    QTest::newRow("count 2^63") << withCount("9223372036854775808") << 2 << "counts[1] is 9.2233720368547758e+18";
    QTest::newRow("count 2^64-1") << withCount("18446744073709551615") << 2 << "counts[1] is 1.8446744073709552e+19";
    QTest::newRow("count -5") << withCount("-5") << 2 << "counts[1] is -5";
    QTest::newRow("count null") << withCount("null") << 2 << "counts[1] is null";
    QTest::newRow("bins 0") << with("bins", 0) << 2 << "bins 0 is outside";
    QTest::newRow("bins 2^25") << with("bins", 1 << 25) << 2 << "is outside 1..16777216";
    QTest::newRow("lo above hi") << with("lo", 10) << 2 << "lo 10 is not below hi 4";
    QTest::newRow("lo infinite") << with("lo", QJsonValue(QStringLiteral("inf"))) << 2 << "lo is the string";
    QTest::newRow("counts too short") << with("counts", QJsonArray{1, 2, 3}) << 2 << "3 counts for 4 bins";
    QTest::newRow("identity with wrong hi") << with("hi", 5) << 2 << "identity binning needs";
    QTest::newRow("unknown binning") << with("binning", QStringLiteral("log")) << 2 << "binning is the string \"log\"";
    QTest::newRow("unknown channel") << with("channel", QStringLiteral("X")) << 2 << "channel \"X\"";
    QTest::newRow("unknown type") << with("type", QStringLiteral("u7")) << 2 << "type is the string \"u7\"";
    QTest::newRow("min above max") << with("statistics", QJsonObject{{"count", 10}, {"below", 0}, {"above", 0}, {"nan", 0}, {"min", 5}, {"max", 2}})
                                   << 2 << "min 5 is above max 2";
    // Issue 20: identity counts {1, 2, 3, 4} over [0, 4) hold the values 0 to 3, nothing outside.
    QTest::newRow("identity min below the counts") << with("statistics", QJsonObject{{"count", 10}, {"below", 0}, {"above", 0}, {"nan", 0}, {"min", -1000}, {"max", 3}})
                                                   << 2 << "min -1000 contradicts the counts";
    QTest::newRow("identity max above the counts") << with("statistics", QJsonObject{{"count", 10}, {"below", 0}, {"above", 0}, {"nan", 0}, {"min", 0}, {"max", 99999}})
                                                   << 2 << "max 99999 contradicts the counts";
    QTest::newRow("identity min inside, samples below") << with("statistics", QJsonObject{{"count", 10}, {"below", 2}, {"above", 0}, {"nan", 0}, {"min", 0}, {"max", 3}})
                                                        << 2 << "min 0 contradicts the counts: 2 sample(s) lie below lo 0";
    QTest::newRow("negative region") << with("region", QJsonObject{{"x", -1}, {"y", 0}, {"width", 4}, {"height", 4}}) << 2 << "region.x is -1";
    QTest::newRow("stated count is not the sum") << with("statistics", QJsonObject{{"count", 11}, {"below", 0}, {"above", 0}, {"nan", 0}})
                                                 << 2 << "count 11 is not the sum of the counts, 10";
    QTest::newRow("negative frame") << with("frame", -1) << 2 << "frame is -1";
    for (const char* key : {"file", "channel", "bins", "lo", "hi", "binning", "counts", "statistics", "record", "schema"}) {
        const QByteArray name = QByteArray("missing ") + key;
        QTest::newRow(name.constData()) << with(key, QJsonValue(QJsonValue::Undefined)) << 2 << "";
    }
    QTest::newRow("other schema") << with("schema", QStringLiteral("histoscope.histogram/4")) << 2 << "schema is the string";
    QTest::newRow("not JSON") << good + "\n{\"schema\": \n" << 2 << "not JSON";
    QTest::newRow("an array") << good + "\n[1,2]\n" << 2 << "not a JSON object";
    QTest::newRow("blank lines counted") << good + "\n\n\n" + withCount("-1").mid(good.size() + 1) << 4 << "counts[1] is -1";

    // CSV: the same checks, and one layout per file.
    const QByteArray header = RecordCodec::csvHeader(4);
    const QByteArray row = RecordCodec::csvLine(r);
    auto csvWith = [&](int column, const QByteArray& value) {
        QList<QByteArray> fields = row.trimmed().split(',');
        fields[column] = value;
        return header + row + fields.join(',') + "\n";
    };
    const int c1 = int(header.trimmed().split(',').indexOf("c1"));
    QTest::newRow("csv count 1.5") << csvWith(c1, "1.5") << 3 << "c1 is \"1.5\"";
    QTest::newRow("csv count -5") << csvWith(c1, "-5") << 3 << "c1 is \"-5\"";
    QTest::newRow("csv count 2^63") << csvWith(c1, "9223372036854775808") << 3 << "c1 is \"9223372036854775808\"";
    QTest::newRow("csv count 1e3") << csvWith(c1, "1e3") << 3 << "c1 is \"1e3\"";
    QTest::newRow("csv count empty") << csvWith(c1, "") << 3 << "c1 is \"\"";
    QTest::newRow("csv min above max") << csvWith(18, "9") << 3 << "min 9 is above max 3";
    QTest::newRow("csv infinite min") << csvWith(18, "-inf") << 3 << "min is \"-inf\", not a finite number";
    QTest::newRow("csv bins 0") << csvWith(10, "0") << 3 << "bins 0 is outside";
    QTest::newRow("csv bins not the header's") << csvWith(10, "5") << 3 << "bins is 5 under a header of 4";
    QTest::newRow("csv lo above hi") << csvWith(11, "9") << 3 << "lo 9 is not below hi 4";
    QTest::newRow("csv lo nan") << csvWith(11, "nan") << 3 << "lo is \"nan\"";
    QTest::newRow("csv binning") << csvWith(13, "log") << 3 << "binning is \"log\"";
    QTest::newRow("csv type") << csvWith(9, "u12") << 3 << "type is \"u12\"";
    QTest::newRow("csv region, part of it") << csvWith(6, "-1") << 3 << "x is \"\"";
    QTest::newRow("csv coarse") << csvWith(23, "maybe") << 3 << "coarse is \"maybe\", not true or false";
    QTest::newRow("csv mixed layouts") << header + row + RecordCodec::csvLine(randomRecord("b.png", 8, false)) << 3
                                       << "44 fields where the header has 40 (one CSV file holds one column layout)";
    QTest::newRow("csv bad header") << QByteArray("schema,record,file\n") << 1 << "column 4 should be \"frame\"";
    QTest::newRow("csv header with gaps") << QByteArray(header).replace(",c2,", ",c7,") << 1 << "should be \"c2\"";
    QTest::newRow("csv broken quoting") << header + row + "histogram,histoscope.histogram/3,\"a.png\n" << 3 << "ends inside a quoted field";
    QTest::newRow("neither format") << QByteArray("\x89PNG\r\n\x1a\n") << 1 << "";
}

void TestRecordCodec::rejectsWhatBreaksTheSchema()
{
    QFETCH(QByteArray, bytes);
    QFETCH(int, line);
    QFETCH(QString, cause);
    QBuffer buffer(&bytes);
    QVERIFY(buffer.open(QIODevice::ReadOnly));
    RecordReader reader(&buffer, QStringLiteral("shard-7.out"));
    RecordLine record;
    Error error;
    int read = 0;
    while (reader.next(record, error))
        ++read;
    QVERIFY2(error.isError(), "the bad line was accepted");
    QCOMPARE(read, line > 1 ? 1 : 0);  // every row has one good record before the bad line
    const QString message = error.message();
    QVERIFY2(message.startsWith(QStringLiteral("shard-7.out: line %1: ").arg(line)), qPrintable(message));
    QVERIFY2(message.contains(cause), qPrintable(message));
}

// Issue 17: text that is not JSON or not CSV is decode-failed, a line that parses but breaks
// the schema (or a rule across lines) invalid-input; the reader names the file and the line.
void TestRecordCodec::errorKinds_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<int>("line");
    QTest::addColumn<ErrorKind>("kind");
    HistogramRecord r = randomRecord("a.png", 4, false);
    const QByteArray json = RecordCodec::jsonLine(r);
    const QByteArray csv = RecordCodec::csvHeader(4) + RecordCodec::csvLine(r);
    QTest::newRow("not JSON") << json + "{\"schema\": \n" << 2 << ErrorKind::DecodeFailed;
    QTest::newRow("csv quoting left open") << csv + "histogram,histoscope.histogram/3,\"a.png\n" << 3 << ErrorKind::DecodeFailed;
    QTest::newRow("csv quote inside a field") << csv + "histo\"gram,histoscope.histogram/3\n" << 3 << ErrorKind::DecodeFailed;
    QTest::newRow("JSON, not an object") << json + "[1,2]\n" << 2 << ErrorKind::InvalidInput;
    QJsonObject negative = QJsonDocument::fromJson(json).object();
    negative["counts"] = QJsonArray{1, -2, 3, 4};
    QTest::newRow("negative count") << json + QJsonDocument(negative).toJson(QJsonDocument::Compact) + "\n" << 2 << ErrorKind::InvalidInput;
    QList<QByteArray> fields = RecordCodec::csvLine(r).trimmed().split(',');
    fields[RecordCodec::csvHeader(4).trimmed().split(',').indexOf("c1")] = "1.5";
    QTest::newRow("csv count 1.5") << csv + fields.join(',') + "\n" << 3 << ErrorKind::InvalidInput;
    QTest::newRow("csv header of another layout") << QByteArray("schema,record,file\n") << 1 << ErrorKind::InvalidInput;
    QTest::newRow("record after the summary") << json + RecordCodec::summaryJsonLine({1, 1, 0, 1}) + json << 3 << ErrorKind::InvalidInput;
}

void TestRecordCodec::errorKinds()
{
    QFETCH(QByteArray, bytes);
    QFETCH(int, line);
    QFETCH(ErrorKind, kind);
    QBuffer buffer(&bytes);
    QVERIFY(buffer.open(QIODevice::ReadOnly));
    RecordReader reader(&buffer, QStringLiteral("shard-2.out"));
    RecordLine record;
    Error error;
    while (reader.next(record, error)) {
    }
    QCOMPARE(int(error.kind), int(kind));
    QCOMPARE(error.source, QStringLiteral("shard-2.out"));
    QVERIFY2(error.cause.startsWith(QStringLiteral("line %1: ").arg(line)), qPrintable(error.message()));
}

void TestRecordCodec::summaryRules_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<bool>("summarised");
    QTest::addColumn<QString>("error");
    HistogramRecord r = randomRecord("a.png", 16, false);
    const QByteArray line = RecordCodec::jsonLine(r);
    QTest::newRow("finished") << line + line + RecordCodec::summaryJsonLine({2, 1, 0, 1}) << true << "";
    QTest::newRow("no summary: unfinished") << line + line << false << "";
    QTest::newRow("empty output, finished") << RecordCodec::summaryJsonLine({0, 0, 3, 0}) << true << "";
    QTest::newRow("summary counts fewer") << line + line + RecordCodec::summaryJsonLine({1, 1, 0, 1}) << false
                                          << "the summary counts 1 records, the file holds 2";
    QTest::newRow("record after the summary") << line + RecordCodec::summaryJsonLine({1, 1, 0, 1}) + line << true
                                              << "a record after the summary";
    QTest::newRow("summary with a bad number") << line + QByteArray("{\"schema\":\"histoscope.histogram/3\",\"record\":\"summary\","
                                                                    "\"records\":1,\"files\":-1,\"failed\":0,\"frames\":0}\n")
                                               << false << "files is -1";
    QTest::newRow("csv finished") << RecordCodec::csvHeader(16) + RecordCodec::csvLine(r) + RecordCodec::summaryCsvLine({1, 1, 0, 1}, 16)
                                  << true << "";
    QTest::newRow("csv with a byte-order mark") << "\xef\xbb\xbf" + RecordCodec::csvHeader(16) + RecordCodec::csvLine(r)
                                                   + RecordCodec::summaryCsvLine({1, 1, 0, 1}, 16) << true << "";
    QTest::newRow("csv summary only") << RecordCodec::csvHeader(0) + RecordCodec::summaryCsvLine({0, 0, 2, 0}, 0) << true << "";
    QTest::newRow("csv summary lacks frames") << RecordCodec::csvHeader(0) + "summary,histoscope.histogram/3,records=0;files=0;failed=0"
                                                     + QByteArray(RecordCodec::csvHeader(0).count(',') - 2, ',') + '\n'
                                              << false << "the summary lacks frames";
}

void TestRecordCodec::summaryRules()
{
    QFETCH(QByteArray, bytes);
    QFETCH(bool, summarised);
    QFETCH(QString, error);
    QBuffer buffer(&bytes);
    QVERIFY(buffer.open(QIODevice::ReadOnly));
    RecordReader reader(&buffer, QStringLiteral("out"));
    RecordLine line;
    Error problem;
    while (reader.next(line, problem)) {
    }
    QCOMPARE(reader.sawSummary(), summarised);
    if (error.isEmpty())
        QVERIFY2(!problem.isError(), qPrintable(problem.message()));
    else
        QVERIFY2(problem.message().contains(error), qPrintable(problem.message()));
}

// Issue 20, item 5: estimates made from bins too wide for the data are flagged in the record,
// JSON (`statistics.coarse`) and CSV (the `coarse` column) alike. The rows are built so the
// test knows where the samples are: all but one in one bin of a range an outlier made 1e30 wide,
// or spread over bins of the data's own range.
void TestRecordCodec::coarseIsFlaggedInBothEncodings_data()
{
    QTest::addColumn<double>("hi");
    QTest::addColumn<bool>("spread");
    QTest::addColumn<bool>("coarse");
    QTest::newRow("bulk in bin 0 of [-2.97, 1e30)") << 1e30 << false << true;
    QTest::newRow("spread over [-2.97, 2.5)") << 2.5 << true << false;
}

void TestRecordCodec::coarseIsFlaggedInBothEncodings()
{
    QFETCH(double, hi);
    QFETCH(bool, spread);
    QFETCH(bool, coarse);
    HistogramRecord r;
    r.file = QStringLiteral("outlier.npy");
    r.channel = QStringLiteral("R");
    r.sampleType = hs::SampleType::F32;
    hs::ChannelHistogram& h = r.histogram;
    h.binning = {true, 256, -2.97, hi, false};
    h.counts.assign(256, 0);
    for (int i = 0; i < 5000; ++i)
        ++h.counts[spread ? std::size_t(m_rng() % 256) : 0];
    ++h.counts[255];
    h.hasValues = true;
    h.minValue = -2.97;
    h.maxValue = spread ? 2.49 : 2.5;
    const QJsonObject json = RecordCodec::recordJson(r);
    QCOMPARE(json["statistics"].toObject()["coarse"].toBool(), coarse);
    QVERIFY(json["statistics"].toObject().contains("coarse"));

    const QByteArray csv = RecordCodec::csvHeader(256) + RecordCodec::csvLine(r);
    QBuffer buffer;
    buffer.setData(csv);
    QVERIFY(buffer.open(QIODevice::ReadOnly));
    CsvReader reader(&buffer);
    QList<QByteArray> header, row;
    Error error;
    QVERIFY(reader.readRow(header, error) && reader.readRow(row, error));
    const qsizetype column = header.indexOf("coarse");
    QVERIFY(column > header.indexOf("nan") && column < header.indexOf("c0"));
    QCOMPARE(row[column], QByteArray(coarse ? "true" : "false"));
}

// The column came within version 2: a CSV file written before it still merges.
void TestRecordCodec::readsCsvWrittenBeforeTheCoarseColumn()
{
    const HistogramRecord r = randomRecord("old.png", 8, false);
    auto dropColumn = [](const QByteArray& line, int column) {
        QList<QByteArray> fields = line.trimmed().split(',');
        fields.removeAt(column);
        return fields.join(',') + '\n';
    };
    const int coarse = int(RecordCodec::csvHeader(8).trimmed().split(',').indexOf("coarse"));
    QVERIFY(coarse > 0);
    QByteArray bytes = dropColumn(RecordCodec::csvHeader(8), coarse) + dropColumn(RecordCodec::csvLine(r), coarse)
                     + dropColumn(RecordCodec::summaryCsvLine({1, 1, 0, 1}, 8), coarse);
    QBuffer buffer(&bytes);
    QVERIFY(buffer.open(QIODevice::ReadOnly));
    RecordReader reader(&buffer, QStringLiteral("old.csv"));
    RecordLine line;
    Error error;
    QList<HistogramRecord> read;
    while (reader.next(line, error))
        if (line.kind == RecordLine::Kind::Histogram)
            read << line.record;
    QVERIFY2(!error.isError(), qPrintable(error.message()));
    QVERIFY(reader.sawSummary());
    QCOMPARE(read.size(), 1);
    QVERIFY(read[0].histogram.counts == r.histogram.counts);
    QCOMPARE(RecordCodec::recordJson(read[0])["statistics"], RecordCodec::recordJson(r)["statistics"]);
}

void TestRecordCodec::readsVersion1_data()
{
    // Lines as the previous release wrote them: no binning mode, no record kind, no summary.
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<bool>("identity");
    QTest::addColumn<double>("mean");
    const QByteArray identityJson = R"({"bins":4,"channel":"gray","counts":[0,5,0,5],"file":"a.png","hi":4,"lo":0,)"
                                    R"("schema":"histoscope.histogram/1","statistics":{"above":0,"below":0,"count":10,"max":3,"mean":2,"nan":0}})";
    const QByteArray uniformJson = R"({"bins":4,"channel":"gray","counts":[0,5,0,5],"file":"a.png","hi":4,"lo":0,)"
                                   R"("schema":"histoscope.histogram/1","statistics":{"above":0,"below":0,"count":10,"max":4,"mean":2.5,"nan":0}})";
    const QByteArray csvHeader = "schema,file,frame,channel,bins,lo,hi,count,mean,std,median,min,max,below,above,nan,c0,c1,c2,c3\n";
    QTest::newRow("json, one bin per value") << identityJson + "\n" << true << 2.0;
    QTest::newRow("json, uniform bins") << uniformJson + "\n" << false << 2.5;
    QTest::newRow("csv, one bin per value") << csvHeader + "histoscope.histogram/1,\"a,b.png\",,gray,4,0,4,10,2,1,2,1,3,0,0,0,0,5,0,5\n" << true << 2.0;
    QTest::newRow("csv, uniform bins") << csvHeader + "histoscope.histogram/1,a.png,,gray,4,0,4,10,2.5,1,2.5,1.5,4,0,0,0,0,5,0,5\n" << false << 2.5;
}

void TestRecordCodec::readsVersion1()
{
    QFETCH(QByteArray, bytes);
    QFETCH(bool, identity);
    QFETCH(double, mean);
    QBuffer buffer(&bytes);
    QVERIFY(buffer.open(QIODevice::ReadOnly));
    RecordReader reader(&buffer, QStringLiteral("old"));
    RecordLine line;
    Error error;
    QVERIFY2(reader.next(line, error), qPrintable(error.message()));
    QCOMPARE(line.version, 1);
    QCOMPARE(line.record.histogram.binning.identity, identity);
    QCOMPARE(hs::computeStatistics(line.record.histogram).mean, mean);
    QVERIFY(!reader.next(line, error));
    QVERIFY(!error.isError());
    QVERIFY(!reader.sawSummary());
}

// Issue 10: `warnings` is written when there are any, read back exactly, and a record without it
// reads as having none. Issue 20: CSV carries them too, as a JSON array in one field.
void TestRecordCodec::warningsRoundTrip()
{
    HistogramRecord r = randomRecord(QStringLiteral("cut.jpg"), 1 + std::uint32_t(m_rng() % 300), false);
    const QByteArray plain = RecordCodec::jsonLine(r);
    QVERIFY(!plain.contains("\"warnings\""));
    RecordLine back;
    Error error;
    QVERIFY2(RecordCodec::decodeJson(plain, back, error), qPrintable(error.message()));
    QVERIFY(back.record.warnings.isEmpty());
    r.warnings = {QStringLiteral("cut.jpg: JPEG data ends before its end-of-image marker"),
                  QStringLiteral("cut.jpg: %1 % of the samples, \"quoted\"\n").arg(m_rng() % 100)};
    const QByteArray marked = RecordCodec::jsonLine(r);
    QVERIFY2(RecordCodec::decodeJson(marked, back, error), qPrintable(error.message()));
    QCOMPARE(back.record.warnings, r.warnings);
    QCOMPARE(RecordCodec::jsonLine(back.record), marked);
    QCOMPARE(RecordCodec::csvLine(r), RecordCodec::csvLine(back.record));
    QVERIFY(RecordCodec::csvLine(r).contains("JPEG"));
    // Through a CSV file and back, the warnings are kept, quotes and newlines included.
    QByteArray csv = RecordCodec::csvHeader(int(r.histogram.counts.size())) + RecordCodec::csvLine(r);
    QBuffer buffer(&csv);
    QVERIFY(buffer.open(QIODevice::ReadOnly));
    RecordReader reader(&buffer, QStringLiteral("w.csv"));
    RecordLine line;
    QVERIFY2(reader.next(line, error), qPrintable(error.message()));
    QCOMPARE(line.record.warnings, r.warnings);
}

QTEST_GUILESS_MAIN(TestRecordCodec)
#include "tst_recordcodec.moc"
