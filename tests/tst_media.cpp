// Issue 10, "Real-world media" and the command-line side of "Ranges", run as a user would
// (QProcess) on files the test makes: an AVI whose header miscounts its frames (zero-size
// "repeat the previous frame" index entries, or an inflated count), one cut in the middle, a
// truncated JPEG that the decoder fills with grey, and ranges that do not fit the data. Every
// warning is on stderr once per file, naming it, and in the record's `warnings`; --strict
// makes a warning a failure.
#include "AviEdit.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>
#include <opencv2/videoio/registry.hpp>

#include <random>

class TestMedia : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void variableCountVideo_data();
    void variableCountVideo();
    void truncatedJpegIsMarked();
    void rangeWarningsReachTheCli_data();
    void rangeWarningsReachTheCli();

private:
    struct Run {
        int exitCode = -1;
        QByteArray out;
        QByteArray err;
    };
    Run cli(const QStringList& args);
    QString path(const QString& name) const { return m_dir.filePath(name); }
    cv::Mat randomMat(int rows, int cols, int type);
    void writeBytes(const QString& name, const QByteArray& bytes);
    QByteArray readBytes(const QString& name);
    static QList<QJsonObject> lines(const QByteArray& jsonl, const QString& kind);
    static QStringList warningsOf(const QJsonObject& record);

    QTemporaryDir m_dir;
    std::mt19937_64 m_rng;
};

TestMedia::Run TestMedia::cli(const QStringList& args)
{
    QProcess p;
    p.start(QStringLiteral(HISTOSCOPE_CLI), args);
    if (!p.waitForFinished(120000))
        return {};
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(), p.readAllStandardError()};
}

void TestMedia::initTestCase()
{
    QVERIFY(m_dir.isValid());
    const QByteArray fixed = qgetenv("HISTOSCOPE_SEED");
    const std::uint64_t seed = fixed.isEmpty() ? std::random_device{}() : fixed.toULongLong();
    qInfo("HISTOSCOPE_SEED=%llu", static_cast<unsigned long long>(seed));
    m_rng.seed(seed);
}

cv::Mat TestMedia::randomMat(int rows, int cols, int type)
{
    cv::Mat m(rows, cols, type);
    cv::RNG rng(m_rng());
    rng.fill(m, cv::RNG::UNIFORM, 0, 256);
    return m;
}

void TestMedia::writeBytes(const QString& name, const QByteArray& bytes)
{
    QFile f(path(name));
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(f.write(bytes), bytes.size());
}

QByteArray TestMedia::readBytes(const QString& name)
{
    QFile f(path(name));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QList<QJsonObject> TestMedia::lines(const QByteArray& jsonl, const QString& kind)
{
    QList<QJsonObject> list;
    for (const QByteArray& line : jsonl.split('\n'))
        if (!line.trimmed().isEmpty()) {
            const QJsonObject o = QJsonDocument::fromJson(line).object();
            if (o["record"].toString() == kind)
                list << o;
        }
    return list;
}

QStringList TestMedia::warningsOf(const QJsonObject& record)
{
    QStringList out;
    for (const QJsonValue& v : record["warnings"].toArray())
        out << v.toString();
    return out;
}

void TestMedia::variableCountVideo_data()
{
    QTest::addColumn<QString>("edit");
    QTest::addColumn<bool>("perFrame");
    for (const char* edit : {"repeats", "inflated", "truncated"})
        for (bool perFrame : {true, false})
            QTest::addRow("%s, %s", edit, perFrame ? "per frame" : "summed") << QString::fromLatin1(edit) << perFrame;
}

// A header's frame count is an estimate: decode to the end, count every decoded frame, warn
// when the header said otherwise; a file cut short fails, keeping what came before the cut.
void TestMedia::variableCountVideo()
{
    QFETCH(QString, edit);
    QFETCH(bool, perFrame);
    if (!cv::videoio_registry::hasBackend(cv::CAP_FFMPEG))
        QSKIP("zero-size index entries are FFmpeg's reading; this OpenCV has no FFmpeg");
    const int width = 64, height = 48;
    const int written = 10 + int(m_rng() % 10);
    const QString name = QStringLiteral("%1-%2.avi").arg(edit).arg(perFrame);
    {
        cv::VideoWriter writer(path(name).toStdString(), cv::CAP_FFMPEG, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 25.0,
                               cv::Size(width, height));
        if (!writer.isOpened())
            QSKIP("no MJPG AVI writer");
        for (int i = 0; i < written; ++i)
            writer.write(randomMat(height, width, CV_8UC3));
    }
    QByteArray bytes = readBytes(name);
    qint64 header = written;
    if (edit == "repeats") {
        const int repeats = 2 + int(m_rng() % 4);
        bytes = aviedit::withRepeatEntries(bytes, repeats);
        QVERIFY(!bytes.isEmpty());
        header = qint64(written) * (repeats + 1);
    } else if (edit == "inflated") {
        header = 444;
        aviedit::setHeaderFrameCount(bytes, 444);
    } else {
        bytes = bytes.left(bytes.size() / 2);
    }
    writeBytes(name, bytes);

    QStringList args{"batch", "--cpu", path(name)};
    if (perFrame)
        args << "--per-frame";
    const Run run = cli(args);
    const QList<QJsonObject> records = lines(run.out, "histogram");
    const QList<QJsonObject> summary = lines(run.out, "summary");
    QCOMPARE(summary.size(), 1);
    if (edit != "truncated") {
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY2(!run.err.contains("error:"), run.err.constData());
        const QByteArray warning = QStringLiteral("warning: %1: its header declares %2 frame(s), %3 were decoded")
                                       .arg(path(name)).arg(header).arg(written).toUtf8();
        QVERIFY2(run.err.count(warning) == 1, run.err.constData());
        QCOMPARE(summary.first()["frames"].toInt(), written);
        QCOMPARE(summary.first()["failed"].toInt(), 0);
        QCOMPARE(records.size(), perFrame ? 3 * written : 3);
        for (const QJsonObject& r : records) {
            QCOMPARE(r["statistics"].toObject()["count"].toInteger(), qint64(width) * height * (perFrame ? 1 : written));
            if (!perFrame)  // known only at the end: a summed record carries it
                QVERIFY2(warningsOf(r).join('\n').contains("header declares"), QJsonDocument(r).toJson().constData());
        }
        if (perFrame)
            QCOMPARE(records.last()["frame"].toInt(), written - 1);
        // --strict: the warning fails the file.
        const Run strict = cli(args << "--strict");
        QCOMPARE(strict.exitCode, 1);
        QVERIFY2(strict.err.contains("failed under --strict"), strict.err.constData());
        QVERIFY(strict.err.contains("failed:\n  " + path(name).toUtf8()));
        if (!perFrame)
            QVERIFY(lines(strict.out, "histogram").isEmpty());
        return;
    }
    // Cut in the middle: a failure that keeps and says what came before it.
    QCOMPARE(run.exitCode, 1);
    const QRegularExpression stopped(QStringLiteral("decoding stopped at frame (\\d+) of the (\\d+)"));
    const auto m = stopped.match(QString::fromUtf8(run.err));
    QVERIFY2(m.hasMatch(), run.err.constData());
    const int decoded = m.captured(1).toInt();
    QCOMPARE(m.captured(2).toInt(), written);
    QVERIFY2(decoded > 0 && decoded < written, run.err.constData());
    QVERIFY(run.err.contains("failed:\n  " + path(name).toUtf8()));
    QCOMPARE(summary.first()["failed"].toInt(), 1);
    QCOMPARE(records.size(), perFrame ? 3 * decoded : 3);
    for (const QJsonObject& r : records)
        QCOMPARE(r["statistics"].toObject()["count"].toInteger(), qint64(width) * height * (perFrame ? 1 : decoded));
    if (perFrame) {
        QVERIFY(run.err.contains(QStringLiteral("the first %1 frame(s) are in the output").arg(decoded).toUtf8()));
    } else {
        const QString w = warningsOf(records.first()).join('\n');
        QVERIFY2(w.contains(QStringLiteral("decoding stopped at frame %1").arg(decoded))
                     && w.contains(QStringLiteral("holds the %1 frame(s) decoded before it").arg(decoded)),
                 qPrintable(w));
    }
}

// A JPEG cut short is decoded with grey where its data is missing: counted, grey included, and
// marked: a warning on stderr and in the record; --strict fails it; merge reads records with
// and without warnings.
void TestMedia::truncatedJpegIsMarked()
{
    const cv::Mat image = randomMat(120, 160, CV_8UC3);
    std::vector<unsigned char> encoded;
    QVERIFY(cv::imencode(".jpg", image, encoded));
    const QByteArray whole(reinterpret_cast<const char*>(encoded.data()), qsizetype(encoded.size()));
    writeBytes("cut.jpg", whole.left(whole.size() * 6 / 10));
    QVERIFY(cv::imwrite(path("good.png").toStdString(), randomMat(30, 40, CV_8UC3)));
    if (cv::imread(path("cut.jpg").toStdString()).empty())
        QSKIP("this OpenCV refuses truncated JPEGs instead of filling them");

    const Run run = cli({"batch", "--cpu", "-o", path("cut.jsonl"), path("cut.jpg")});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QByteArray warning = "warning: " + path("cut.jpg").toUtf8() + ": JPEG data ends before its end-of-image marker";
    QCOMPARE(run.err.count(warning), qsizetype(1));
    const QList<QJsonObject> records = lines(readBytes("cut.jsonl"), "histogram");
    QCOMPARE(records.size(), 3);
    for (const QJsonObject& r : records) {
        QCOMPARE(r["statistics"].toObject()["count"].toInteger(), qint64(120 * 160));  // grey included
        const QStringList w = warningsOf(r);
        QCOMPARE(w.size(), 1);
        QVERIFY2(w.first().startsWith(path("cut.jpg")) && w.first().contains("end-of-image"), qPrintable(w.first()));
    }
    // A clean file has no warnings key at all.
    const Run clean = cli({"batch", "--cpu", "-o", path("good.jsonl"), path("good.png")});
    QCOMPARE(clean.exitCode, 0);
    for (const QJsonObject& r : lines(readBytes("good.jsonl"), "histogram"))
        QVERIFY(!r.contains("warnings"));

    // --strict: a failure, listed, and no record.
    const Run strict = cli({"batch", "--cpu", "--strict", path("cut.jpg"), path("good.png")});
    QCOMPARE(strict.exitCode, 1);
    QVERIFY(strict.err.contains(warning));
    QVERIFY(strict.err.contains("failed:\n  " + path("cut.jpg").toUtf8()));
    const QList<QJsonObject> strictRecords = lines(strict.out, "histogram");
    QCOMPARE(strictRecords.size(), 3);
    for (const QJsonObject& r : strictRecords)
        QCOMPARE(r["file"].toString(), path("good.png"));
    QCOMPARE(lines(strict.out, "summary").first()["failed"].toInt(), 1);
    const Run single = cli({"histogram", "--cpu", "--strict", path("cut.jpg")});
    QCOMPARE(single.exitCode, 1);
    QVERIFY(single.err.contains(warning));
    QVERIFY(cli({"histogram", "--cpu", path("cut.jpg")}).exitCode == 0);

    // merge reads both, and says how many of the merged records carried warnings.
    const Run merged = cli({"merge", path("cut.jsonl"), path("good.jsonl")});
    QVERIFY2(merged.exitCode == 0, merged.err.constData());
    const QList<QJsonObject> mergedRecords = lines(merged.out, "histogram");
    QCOMPARE(mergedRecords.size(), 3);
    for (const QJsonObject& r : mergedRecords)
        QCOMPARE(warningsOf(r), QStringList{"1 of the 2 merged records carried warnings"});
    // CSV carries them too (issue 20), in its `warnings` column, and on stderr.
    const Run csv = cli({"batch", "--cpu", "--format", "csv", path("cut.jpg")});
    QCOMPARE(csv.exitCode, 0);
    QVERIFY(csv.out.startsWith("record,schema,file,frame,x,y,width,height,channel,type,bins,lo,hi,binning,count,"));
    QVERIFY(csv.out.left(csv.out.indexOf('\n')).contains(",entropy_bits,warnings,c0,"));
    QVERIFY2(csv.out.count(": JPEG data ends before its end-of-image marker") == 3, csv.out.constData());  // one per channel
    QVERIFY(csv.err.contains(warning));
}

void TestMedia::rangeWarningsReachTheCli_data()
{
    QTest::addColumn<QString>("command");
    QTest::addColumn<QString>("range");
    QTest::addColumn<QString>("expected");
    for (const char* command : {"histogram", "batch"}) {
        QTest::addRow("%s, range without an integer", command) << command << "0.25:0.75" << "holds no integer";
        QTest::addRow("%s, samples outside the range", command) << command << "0:100" << "of the samples fall outside the counted range";
    }
}

// resolveRequest's notices and outOfRangeWarning reach the command line: on stderr once per
// file, naming it, and in the record's warnings.
void TestMedia::rangeWarningsReachTheCli()
{
    QFETCH(QString, command);
    QFETCH(QString, range);
    QFETCH(QString, expected);
    QStringList files;
    for (int i = 0; i < (command == "batch" ? 2 : 1); ++i) {
        files << path(QStringLiteral("range-%1-%2.png").arg(command).arg(i));
        QVERIFY(cv::imwrite(files.last().toStdString(), randomMat(40 + i, 50, CV_8UC1)));
    }
    const Run run = cli(QStringList{command, "--cpu", "--range", range} + files);
    QVERIFY2(run.exitCode == 0, run.err.constData());
    for (const QString& file : files) {
        const QByteArray line = "warning: " + file.toUtf8() + ": ";
        QCOMPARE(run.err.count(line), qsizetype(1));
        const qsizetype at = run.err.indexOf(line);
        QVERIFY2(run.err.mid(at, run.err.indexOf('\n', at) - at).contains(expected.toUtf8()), run.err.constData());
    }
    if (command == "batch") {
        const QList<QJsonObject> records = lines(run.out, "histogram");
        QCOMPARE(records.size(), 2);
        for (const QJsonObject& r : records) {
            const QStringList w = warningsOf(r);
            QCOMPARE(w.size(), 1);
            QVERIFY2(w.first().startsWith(r["file"].toString() + ": ") && w.first().contains(expected), qPrintable(w.first()));
        }
    }
    QList<QString> strictArgs{command, "--cpu", "--strict", "--range", range};
    QCOMPARE(cli(strictArgs + files).exitCode, 1);
}

QTEST_GUILESS_MAIN(TestMedia)
#include "tst_media.moc"
