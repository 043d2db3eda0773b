// Issue 11, run as a user would (QProcess) against inputs and faults made on the spot: write
// errors, outputs over inputs, concurrent writers, silently dropped files, colliding output
// names, merge validation, unchecked numbers, broken CSV, hangs, bombs, special files and
// options that used to fail late. Each test names the item it covers.
#include "tests/NumpyOracle.h"
#include "HostileCorpus.h"

#include "app/core/CsvReader.h"
#include "io/NativePath.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <csignal>
#include <cstring>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

class TestCliHostile : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void writeErrorsAreReported_data();
    void writeErrorsAreReported();
    void fullDiskLeavesWholeLines();
    void outputOverAnInputIsRefused_data();
    void outputOverAnInputIsRefused();
    void secondWriterIsRefused();
    void unreadableInputsAreListed_data();
    void unreadableInputsAreListed();
    void namesThatAreNotUtf8RoundTrip();
    void outputNamesDoNotCollide();
    void mergeRefusesIncompatibleKeys_data();
    void mergeRefusesIncompatibleKeys();
    void mergeRejectsBadRecords_data();
    void mergeRejectsBadRecords();
    void mergeNeedsFinishedInputs();
    void numbersAreChecked_data();
    void numbersAreChecked();
    void csvKeepsOneLayout();
    void csvFileNamesRoundTrip();
    void corruptVideosDoNotHang();
    void watchdogGivesUpOnAStuckFile();
    void sigtermEndsAStuckRunAtOnce();
    void perFrameRecordsStream();
    void bombsAreRefusedBeforeDecoding();
    void jobsAreCapped();
    void convertedFloatsCountAsAWhole();
    void specialFilesAreErrors_data();
    void specialFilesAreErrors();
    void symlinksStayInTheRoot();
    void wholeCorpusIsAccountedFor();
    void floatOutlierStaysInItsChannel_data();
    void floatOutlierStaysInItsChannel();
    void fractionalRangeOnIntegersIsRecordedAsBinned();
    void floatsSpanningTheFloatRangeAreCounted();
    // Issue 20: data loss and corruption.
    void everyWriterRefusesItsInput_data();
    void everyWriterRefusesItsInput();
    void mergeChecksEverySum_data();
    void mergeChecksEverySum();
    void mergeRefusesCountingTwice();
    void mergeChecksExtremesAgainstCounts_data();
    void mergeChecksExtremesAgainstCounts();
    // Issue 20: wrong or misleading numbers, messages and exit codes.
    void channelsTheFileLacks_data();
    void channelsTheFileLacks();
    void skippedFilesAreListed();
    void unsupportedFormatsAreSaid_data();
    void unsupportedFormatsAreSaid();
    void memoryBudgetIsShared();
    void tiffPagesThatDiffer();
    void invalidGlobIsAUsageError();
    void controlCharactersAreEscaped();
    void videoDepthIsSaid_data();
    void videoDepthIsSaid();
    void scopeFollowsTheCommonPolicy_data();
    void scopeFollowsTheCommonPolicy();
    void scopeOutputEndsWithASummary();
    void decoderChatterBecomesWarnings();
    void smallOnes_data();
    void smallOnes();

private:
    struct Run {
        int exitCode = -1;
        QByteArray out;
        QByteArray err;
        bool finished = false;
    };
    Run cli(const QStringList& args, const QString& stdoutFile = {}, int timeoutMs = 60000,
            const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment());
    QString path(const QString& name) const { return m_dir.filePath(name); }
    QString image(const QString& name, int width = 24, int height = 16);
    static QList<QJsonObject> records(const QByteArray& jsonl, bool* summary = nullptr);
    static QByteArray readFile(const QString& path);
    // A finished batch output of one 8-bit gray image of fresh random values (identity bins).
    QList<QJsonObject> grayRecords(const QString& name);
    // `records` as a finished output (with its summary), written to `name`; the path.
    QString writeOutput(const QString& name, const QList<QJsonObject>& records, qint64 files = 1);

    QString m_cli;
    QTemporaryDir m_dir;
    std::mt19937_64 m_rng;
};

TestCliHostile::Run TestCliHostile::cli(const QStringList& args, const QString& stdoutFile, int timeoutMs,
                                        const QProcessEnvironment& env)
{
    QProcess p;
    p.setProcessEnvironment(env);
    if (!stdoutFile.isEmpty())
        p.setStandardOutputFile(stdoutFile);
    p.start(m_cli, args);
    Run run;
    run.finished = p.waitForFinished(timeoutMs);
    if (!run.finished) {
        p.kill();
        p.waitForFinished();
    }
    run.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    run.out = p.readAllStandardOutput();
    run.err = p.readAllStandardError();
    return run;
}

QList<QJsonObject> TestCliHostile::records(const QByteArray& jsonl, bool* summary)
{
    QList<QJsonObject> list;
    if (summary)
        *summary = false;
    for (const QByteArray& line : jsonl.split('\n')) {
        if (line.isEmpty())
            continue;
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        if (o["record"].toString() == "histogram")
            list << o;
        else if (summary)
            *summary = o["record"].toString() == "summary";
    }
    return list;
}

QByteArray TestCliHostile::readFile(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QString TestCliHostile::image(const QString& name, int width, int height)
{
    const QString file = path(name);
    QDir().mkpath(QFileInfo(file).path());
    hostile::writeBytes(QFile::encodeName(file), hostile::randomImage(".png", width, height, m_rng));
    return file;
}

void TestCliHostile::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_cli = qEnvironmentVariable("HISTOSCOPE_CLI", QCoreApplication::applicationDirPath() + "/../app/cli/histoscope-cli");
    QVERIFY2(QFileInfo(m_cli).isExecutable(), qPrintable(m_cli + " is not built"));
    const QByteArray fixed = qgetenv("HISTOSCOPE_SEED");
    const std::uint64_t seed = fixed.isEmpty() ? std::random_device{}() : fixed.toULongLong();
    qInfo("HISTOSCOPE_SEED=%llu", static_cast<unsigned long long>(seed));
    m_rng.seed(seed);
}

// Item 1: every write and flush is checked.
void TestCliHostile::writeErrorsAreReported_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<bool>("toStdout");
    const QString a = image("w/a.png");
    const QString out = path("w/out.jsonl");
    QVERIFY(cli({"batch", "--cpu", "-o", out, a}).exitCode == 0);
    QTest::newRow("batch -o /dev/full") << QStringList{"batch", "--cpu", "-o", "/dev/full", a} << false;
    QTest::newRow("batch > /dev/full") << QStringList{"batch", "--cpu", a} << true;
    QTest::newRow("batch --format csv > /dev/full") << QStringList{"batch", "--cpu", "--format", "csv", a} << true;
    QTest::newRow("merge -o /dev/full") << QStringList{"merge", "-o", "/dev/full", out} << false;
    QTest::newRow("merge > /dev/full") << QStringList{"merge", out} << true;
    QTest::newRow("histogram > /dev/full") << QStringList{"histogram", "--cpu", a} << true;
}

void TestCliHostile::writeErrorsAreReported()
{
    QFETCH(QStringList, args);
    QFETCH(bool, toStdout);
    if (!QFileInfo::exists("/dev/full"))
        QSKIP("no /dev/full here");
    const Run run = cli(args, toStdout ? QStringLiteral("/dev/full") : QString());
    QCOMPARE(run.exitCode, 3);
    QVERIFY2(run.err.contains("write failed") && run.err.contains("No space left on device"), run.err.constData());
}

// Item 1: a disk that fills mid-line leaves whole lines and says so.
void TestCliHostile::fullDiskLeavesWholeLines()
{
    QStringList inputs;
    for (int i = 0; i < 12; ++i)
        inputs << image(QStringLiteral("full/%1.png").arg(i));
    const QString out = path("full.jsonl");
    QProcess p;
    // A file-size limit plays the full disk: writes past it fail with EFBIG, part-way through a line.
    p.setChildProcessModifier([] {
        ::signal(SIGXFSZ, SIG_IGN);
        const rlimit limit{20000, 20000};
        ::setrlimit(RLIMIT_FSIZE, &limit);
    });
    p.start(m_cli, QStringList{"batch", "--cpu", "--bins", "300", "-o", out} + inputs);
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 3);
    const QByteArray err = p.readAllStandardError();
    QVERIFY2(err.contains("write failed") && err.contains("whole line"), err.constData());
    const QByteArray written = readFile(out);
    QVERIFY(!written.isEmpty());
    QVERIFY(written.endsWith('\n'));
    bool summary = false;
    const QList<QJsonObject> list = records(written, &summary);
    QCOMPARE(list.size(), written.count('\n'));  // every line a whole record
    QVERIFY(!summary);                           // and no summary: merge calls it unfinished
    QVERIFY(list.size() < 12 * 3);
}

// Item 2: an output that is an input, or inside an input folder, is refused with exit 2.
void TestCliHostile::outputOverAnInputIsRefused_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("kept");
    const QString dir = path("over");
    const QString a = image("over/a.png");
    image("over/sub/b.png");
    const QString jsonl = path("over.jsonl");
    QVERIFY(cli({"batch", "--cpu", "-o", jsonl, a}).exitCode == 0);
    QTest::newRow("-o names an input file") << QStringList{"batch", "--cpu", dir, "-o", dir + "/a.png"} << a;
    QTest::newRow("-o names an input file given by name") << QStringList{"batch", "--cpu", a, "-o", a} << a;
    QTest::newRow("-o inside the input folder") << QStringList{"batch", "--cpu", dir, "-o", dir + "/out.jsonl"} << QString();
    QTest::newRow("-o deeper inside a recursive input") << QStringList{"batch", "--cpu", "-r", dir, "-o", dir + "/sub/out.jsonl"} << QString();
    QTest::newRow("--equalize-dir inside a recursive input") << QStringList{"batch", "--cpu", "-r", dir, "--equalize-dir", dir + "/eq"} << QString();
    QTest::newRow("merge -o names its input") << QStringList{"merge", jsonl, "-o", jsonl} << jsonl;
}

void TestCliHostile::outputOverAnInputIsRefused()
{
    QFETCH(QStringList, args);
    QFETCH(QString, kept);
    const QByteArray before = kept.isEmpty() ? QByteArray() : readFile(kept);
    const Run run = cli(args);
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains("input"), run.err.constData());
    if (!kept.isEmpty())
        QCOMPARE(readFile(kept), before);  // untouched
    QVERIFY(!QFileInfo::exists(path("over/out.jsonl")));
}

// Item 3: a second run on the same output is refused while the first holds it.
void TestCliHostile::secondWriterIsRefused()
{
    const QString a = image("two/a.png"), b = image("two/b.png");
    const QString out = path("two.jsonl");
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("HISTOSCOPE_TEST_STALL_ON", "two/b.png");
    QProcess first;
    first.setProcessEnvironment(env);
    first.start(m_cli, {"batch", "--cpu", "-j", "1", "--file-timeout", "0", "-o", out, a, b});
    QVERIFY(first.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(records(readFile(out)).size() == 3, 20000);  // a.png written, stuck on b.png
    const Run second = cli({"batch", "--cpu", "--bins", "16", "-o", out, a});
    QCOMPARE(second.exitCode, 2);
    QVERIFY2(second.err.contains("another run is writing"), second.err.constData());
    // merge is refused the same way, by the error's kind (ErrorKind::Locked), not its words.
    const QString finished = path("two-finished.jsonl");
    QCOMPARE(cli({"batch", "--cpu", "-o", finished, a}).exitCode, 0);
    const Run merge = cli({"merge", "-o", out, finished});
    QCOMPARE(merge.exitCode, 2);
    QVERIFY2(merge.err.contains("another run is writing"), merge.err.constData());
    ::kill(pid_t(first.processId()), SIGTERM);
    QVERIFY(first.waitForFinished(10000));
    QCOMPARE(first.exitCode(), 143);
    const QList<QJsonObject> list = records(readFile(out));
    QCOMPARE(list.size(), 3);  // the first run's lines only, of one bin count
    for (const QJsonObject& r : list)
        QCOMPARE(r["bins"].toInt(), 256);
}

// Item 4: nothing is left out silently.
void TestCliHostile::unreadableInputsAreListed_data()
{
    QTest::addColumn<QString>("what");
    QTest::newRow("unreadable file") << "file";
    QTest::newRow("unreadable sub-folder") << "folder";
    QTest::newRow("named file that is missing") << "missing";
}

void TestCliHostile::unreadableInputsAreListed()
{
    QFETCH(QString, what);
    const QString dir = path("unread-" + what);
    image("unread-" + what + "/ok.png");
    QString bad;
    if (what == "file") {
        bad = image("unread-file/secret.png");
        QVERIFY(::chmod(QFile::encodeName(bad).constData(), 0) == 0);
    } else if (what == "folder") {
        image("unread-folder/locked/x.png");
        bad = dir + "/locked";
        QVERIFY(::chmod(QFile::encodeName(bad).constData(), 0) == 0);
    }
    const QStringList args = what == "missing" ? QStringList{"batch", "--cpu", dir + "/ok.png", dir + "/gone.png"}
                                               : QStringList{"batch", "--cpu", "-r", dir};
    QProcess p;
    if (geteuid() == 0) {
        // Root reads every file: run the CLI as nobody, who may read all but the locked ones.
        ::chmod(QFile::encodeName(m_dir.path()).constData(), 0755);
        ::chmod(QFile::encodeName(dir).constData(), 0755);
        const auto asNobody = [] {
            if (::setgid(65534) != 0 || ::setuid(65534) != 0)
                ::_exit(99);
        };
        QProcess probe;
        probe.setChildProcessModifier(asNobody);
        probe.start("/bin/sh", {"-c", "test -x \"$0\" && test -r \"$1\"", m_cli, dir + "/ok.png"});
        if (!probe.waitForFinished(10000) || probe.exitCode() != 0)
            QSKIP("as root, and user nobody cannot reach the CLI or the test folder");
        p.setChildProcessModifier(asNobody);
    }
    p.start(m_cli, args);
    QVERIFY(p.waitForFinished(30000));
    const Run run{p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError(), true};
    if (!bad.isEmpty())
        ::chmod(QFile::encodeName(bad).constData(), 0755);
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("counted 1 of"), run.err.constData());
    QVERIFY2(run.err.contains("1 failed"), run.err.constData());
    const QByteArray cause = what == "missing" ? "no such file" : "Permission denied";
    QVERIFY2(run.err.contains(cause), run.err.constData());
}

// Item 4: names that are not UTF-8 are found, opened, and written back as their bytes.
void TestCliHostile::namesThatAreNotUtf8RoundTrip()
{
    const QByteArray dir = QFile::encodeName(path("bytes"));
    QVERIFY(QDir().mkpath(path("bytes")));
    const QByteArray name = dir + "/caf\xe9-\xff.png";
    QVERIFY(hostile::writeBytes(name, hostile::randomImage(".png", 9, 7, m_rng)));
    // QProcess passes arguments as UTF-8; the name's bytes are made by the shell's printf instead.
    // The file is named once directly and found once in its folder.
    QProcess p;
    p.start("/bin/sh", {"-c", "exec \"$0\" batch --cpu \"$(printf '%s/caf\\351-\\377.png' \"$1\")\" \"$1\"", m_cli, pathFromNative(dir)});
    QVERIFY(p.waitForFinished(30000));
    const QByteArray err = p.readAllStandardError();
    QCOMPARE(p.exitCode(), 0);
    const QList<QJsonObject> list = records(p.readAllStandardOutput());
    QCOMPARE(list.size(), 3);  // named once and found once: the same file, counted once
    QCOMPARE(nativePath(list[0]["file"].toString()), name);
    QVERIFY2(err.contains("counted once"), err.constData());
}

// Item 5: plots and equalized images mirror the input tree; no two inputs share a name.
void TestCliHostile::outputNamesDoNotCollide()
{
    image("tree/a/b_c.png");
    image("tree/a_b/c.png");
    const QString plots = path("tree-plots"), eq = path("tree-eq");
    const Run run = cli({"batch", "--cpu", "-r", "--plot-dir", plots, "--equalize-dir", eq, path("tree")});
    QCOMPARE(run.exitCode, 0);
    QVERIFY(QFileInfo::exists(plots + "/a/b_c.png.svg"));
    QVERIFY(QFileInfo::exists(plots + "/a_b/c.png.svg"));
    QVERIFY(QFileInfo::exists(eq + "/a/b_c.png.png"));
    QVERIFY(QFileInfo::exists(eq + "/a_b/c.png.png"));
    // Two files named alike from different folders cannot share the flat names: refused.
    image("same1/x.png");
    image("same2/x.png");
    const Run clash = cli({"batch", "--cpu", "--plot-dir", plots, path("same1/x.png"), path("same2/x.png")});
    QCOMPARE(clash.exitCode, 2);
    QVERIFY2(clash.err.contains("would both write"), clash.err.constData());
}

// Item 7: records that do not share their keys are an error naming both inputs.
void TestCliHostile::mergeRefusesIncompatibleKeys_data()
{
    QTest::addColumn<QStringList>("first");
    QTest::addColumn<QStringList>("second");
    QTest::addColumn<QString>("format");
    QTest::newRow("256 and 128 bins") << QStringList{} << QStringList{"--bins", "128"} << "jsonl";
    QTest::newRow("256 and 128 bins, CSV") << QStringList{} << QStringList{"--bins", "128"} << "csv";
    QTest::newRow("other range") << QStringList{"--bins", "64"} << QStringList{"--bins", "64", "--range", "0:128"} << "jsonl";
    QTest::newRow("identity and uniform") << QStringList{"--bins", "256"} << QStringList{"--bins", "256", "--range", "0:256.5"} << "jsonl";
}

void TestCliHostile::mergeRefusesIncompatibleKeys()
{
    QFETCH(QStringList, first);
    QFETCH(QStringList, second);
    QFETCH(QString, format);
    const QString a = image("keys/a.png");
    const QString one = path("keys/one." + format), two = path("keys/two." + format);
    QCOMPARE(cli(QStringList{"batch", "--cpu", "--format", format, "-o", one, a} + first).exitCode, 0);
    QCOMPARE(cli(QStringList{"batch", "--cpu", "--format", format, "-o", two, a} + second).exitCode, 0);
    const Run run = cli({"merge", "--format", format, one, two});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("incompatible") && run.err.contains(QFile::encodeName(one)) && run.err.contains(QFile::encodeName(two)),
             run.err.constData());
    QVERIFY(run.out.isEmpty());  // nothing written
}

// Item 8: every record is checked; what does not fit is named by file and line.
void TestCliHostile::mergeRejectsBadRecords_data()
{
    QTest::addColumn<QByteArray>("from");
    QTest::addColumn<QByteArray>("to");
    QTest::addColumn<QString>("cause");
    QCOMPARE(cli({"batch", "--cpu", "--bins", "8", "-o", path("bad/good.jsonl"), image("bad/a.png")}).exitCode, 0);
    // "counts":[ is followed by the first count, which the row replaces.
    QTest::newRow("count 1.5") << QByteArray("\"counts\":[") << QByteArray("\"counts\":[1.5") << "counts[0] is 1.5";
    QTest::newRow("count \"12\"") << QByteArray("\"counts\":[") << QByteArray("\"counts\":[\"12\"") << "counts[0] is the string \"12\"";
    QTest::newRow("count 1e300") << QByteArray("\"counts\":[") << QByteArray("\"counts\":[1e300") << "e+300";
    QTest::newRow("count 2^63") << QByteArray("\"counts\":[") << QByteArray("\"counts\":[9223372036854775808") << "e+18";
    QTest::newRow("count 2^64-1") << QByteArray("\"counts\":[") << QByteArray("\"counts\":[18446744073709551615") << "e+19";
    QTest::newRow("count -5") << QByteArray("\"counts\":[") << QByteArray("\"counts\":[-5") << "counts[0] is -5";
    QTest::newRow("bins 0") << QByteArray("\"bins\":8") << QByteArray("\"bins\":0") << "bins 0 is outside";
    QTest::newRow("lo above hi") << QByteArray("\"lo\":0") << QByteArray("\"lo\":900") << "is not below hi";
    QTest::newRow("missing counts") << QByteArray("\"counts\":") << QByteArray("\"kounts\":") << "counts is missing";
}

void TestCliHostile::mergeRejectsBadRecords()
{
    QFETCH(QByteArray, from);
    QFETCH(QByteArray, to);
    QFETCH(QString, cause);
    const QString good = path("bad/good.jsonl"), bad = path("bad/bad.jsonl");
    QList<QByteArray> lines = readFile(good).split('\n');
    QByteArray& line = lines[1];  // the second record (line 2)
    if (from == "\"counts\":[") {
        const qsizetype at = line.indexOf(from) + from.size();
        line.remove(at, line.indexOf(',', at) - at);
    }
    line.replace(from, to);
    QVERIFY(hostile::writeBytes(QFile::encodeName(bad), lines.join('\n')));
    const Run run = cli({"merge", good, bad});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains(QFile::encodeName(bad) + ": line 2: "), run.err.constData());
    QVERIFY2(run.err.contains(cause.toUtf8()), run.err.constData());
    QVERIFY(run.out.isEmpty());
}

// Item 17: an output without its summary is an unfinished run.
void TestCliHostile::mergeNeedsFinishedInputs()
{
    const QString a = image("fin/a.png");
    const QString whole = path("fin/whole.jsonl"), cut = path("fin/cut.jsonl");
    QCOMPARE(cli({"batch", "--cpu", "-o", whole, a}).exitCode, 0);
    QList<QByteArray> lines = readFile(whole).trimmed().split('\n');
    QCOMPARE(lines.size(), 4);
    QVERIFY(lines.last().contains("\"record\":\"summary\""));
    lines.removeLast();  // a run killed before its end
    QVERIFY(hostile::writeBytes(QFile::encodeName(cut), lines.join('\n') + '\n'));
    const Run refused = cli({"merge", whole, cut});
    QCOMPARE(refused.exitCode, 1);
    QVERIFY2(refused.err.contains(QFile::encodeName(cut) + ": no summary record") && refused.err.contains("--allow-partial"),
             refused.err.constData());
    const Run allowed = cli({"merge", "--allow-partial", whole, cut});
    QCOMPARE(allowed.exitCode, 0);
    QVERIFY(allowed.err.contains("merged anyway"));
    const QList<QJsonObject> merged = records(allowed.out);
    QCOMPARE(merged.size(), 3);
    QCOMPARE(merged[0]["file"].toString(), QStringLiteral("merged:2"));
}

// Items 9 and 15: numbers that do not parse or overflow, and options the engine cannot
// honour, are usage errors up front, not a failure per file.
void TestCliHostile::numbersAreChecked_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("cause");
    QCOMPARE(cli({"batch", "--cpu", "-o", path("numbers/x.jsonl"), image("numbers/a.png")}).exitCode, 0);
    QTest::newRow("--raw-shape overflows") << QStringList{"batch", "--raw-shape", "99999999999999999999x1"} << "--raw-shape";
    QTest::newRow("--raw-shape height overflows") << QStringList{"batch", "--raw-shape", "4x99999999999999999999"} << "--raw-shape";
    QTest::newRow("--raw-shape zero height") << QStringList{"batch", "--raw-shape", "4x0"} << "zero dimension";
    QTest::newRow("--raw-shape 5 channels") << QStringList{"batch", "--raw-shape", "4x4x5"} << "channels must be 1 to 4";
    QTest::newRow("--raw-offset overflows") << QStringList{"batch", "--raw-shape", "4", "--raw-offset", "99999999999999999999"} << "--raw-offset";
    QTest::newRow("--bins overflows") << QStringList{"batch", "--bins", "99999999999"} << "--bins";
    QTest::newRow("--range 0:inf") << QStringList{"batch", "--range", "0:inf"} << "--range";
    QTest::newRow("--range 1e308:1e309") << QStringList{"batch", "--range", "1e308:1e309"} << "--range";
    QTest::newRow("--range 0:1e30") << QStringList{"batch", "--range", "0:1e30"} << "2^34";
    QTest::newRow("--range 1e308:2e308") << QStringList{"histogram", "--range", "1e308:2e308"} << "--range";
    QTest::newRow("--bins 0 over 0:1e8") << QStringList{"batch", "--bins", "0", "--range", "0:1e8"} << "would need 100000000 bins";
    QTest::newRow("--strategy cub without a GPU") << QStringList{"batch", "--cpu", "--strategy", "cub"} << "--strategy cub runs on a CUDA GPU";
    QTest::newRow("histogram --strategy shared --cpu") << QStringList{"histogram", "--cpu", "--strategy", "shared"} << "runs on a CUDA GPU";
    QTest::newRow("-j 0") << QStringList{"batch", "-j", "0"} << "-j";
    QTest::newRow("-j overflows") << QStringList{"batch", "-j", "99999999999"} << "-j";
    QTest::newRow("--shard overflows") << QStringList{"batch", "--shard", "0/99999999999"} << "--shard";
    QTest::newRow("--memory-budget garbage") << QStringList{"batch", "--memory-budget", "lots"} << "--memory-budget";
    QTest::newRow("--file-timeout negative") << QStringList{"batch", "--file-timeout", "-1"} << "--file-timeout";
    QTest::newRow("merge --format xml") << QStringList{"merge", "--format", "xml"} << "--format takes csv or jsonl";
}

void TestCliHostile::numbersAreChecked()
{
    QFETCH(QStringList, args);
    QFETCH(QString, cause);
    const Run run = cli(args + QStringList{path(args.first() == "merge" ? "numbers/x.jsonl" : "numbers/a.png")});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(cause.toUtf8()), run.err.constData());
    QVERIFY(run.out.isEmpty());
}

// Item 10: one CSV file has one column layout; file names with commas do not shift it.
void TestCliHostile::csvKeepsOneLayout()
{
    const QString comma = image("csv/a,b.png");
    const QString plain = image("csv/c.png");
    const QString deep = path("csv/deep.png");
    cv::Mat m(8, 8, CV_16UC1);
    cv::RNG(m_rng()).fill(m, cv::RNG::UNIFORM, 0, 65536);
    QVERIFY(cv::imwrite(QFile::encodeName(deep).toStdString(), m));
    const Run run = cli({"batch", "--cpu", "--bins", "0", "--format", "csv", comma, plain, deep});
    QCOMPARE(run.exitCode, 1);  // the 16-bit file does not fit the 256-column layout
    QVERIFY2(run.err.contains("65536 bins do not fit this CSV output's 256 count columns"), run.err.constData());
    QByteArray out = run.out;
    QBuffer buffer(&out);
    QVERIFY(buffer.open(QIODevice::ReadOnly));
    CsvReader reader(&buffer);
    QList<QByteArray> fields;
    Error problem;
    QList<qsizetype> widths;
    QList<QByteArray> files;
    while (reader.readRow(fields, problem)) {
        widths << fields.size();
        files << fields.value(2);
    }
    QVERIFY2(!problem.isError(), qPrintable(problem.message()));
    QCOMPARE(widths.size(), 1 + 3 + 3 + 1);  // header, two RGB files, summary
    for (qsizetype w : widths)
        QCOMPARE(w, widths.first());
    QCOMPARE(files[1], QFile::encodeName(comma));
    // merge reads it back whole.
    const QString saved = path("csv/out.csv");
    QVERIFY(hostile::writeBytes(QFile::encodeName(saved), run.out));
    const Run merged = cli({"merge", saved});
    QCOMPARE(merged.exitCode, 0);
    QCOMPARE(records(merged.out).size(), 3);
}

// Item 10: file names with newlines and quotes survive CSV into merge's totals.
void TestCliHostile::csvFileNamesRoundTrip()
{
    const QString odd = image("csvnames/two\nlines \"quoted\".png");
    const QString plain = image("csvnames/plain.png");
    const QString csv = path("csvnames.csv");
    QCOMPARE(cli({"batch", "--cpu", "--format", "csv", "-o", csv, odd, plain}).exitCode, 0);
    const Run merged = cli({"merge", csv});
    QCOMPARE(merged.exitCode, 0);
    const QList<QJsonObject> list = records(merged.out);
    QCOMPARE(list.size(), 3);
    for (const QJsonObject& r : list) {
        QCOMPARE(r["file"].toString(), QStringLiteral("merged:2"));
        QCOMPARE(r["statistics"].toObject()["count"].toInteger(), 24 * 16 * 2);  // both files counted
    }
}

// Item 12: corrupt videos fail quickly through an explicit backend, never through GStreamer.
void TestCliHostile::corruptVideosDoNotHang()
{
    QStringList inputs;
    for (int i = 0; i < 24; ++i) {
        inputs << path(QStringLiteral("videos/%1.mp4").arg(i));
        QDir().mkpath(path("videos"));
        QVERIFY(hostile::writeBytes(QFile::encodeName(inputs.last()), hostile::cutMp4(3000, m_rng)));
    }
    inputs << image("videos/ok.png");
    QElapsedTimer timer;
    timer.start();
    const Run run = cli(QStringList{"batch", "--cpu"} + inputs, {}, 60000);
    QVERIFY2(run.finished, "the batch hung on a corrupt video");
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("24 failed"), run.err.constData());
    QCOMPARE(records(run.out).size(), 3);
}

// Item 12: a decoder that never returns is given up on; the batch goes on.
void TestCliHostile::watchdogGivesUpOnAStuckFile()
{
    const QString stuck = image("watch/stuck.png"), ok = image("watch/ok.png");
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("HISTOSCOPE_TEST_STALL_ON", "watch/stuck.png");
    const Run run = cli({"batch", "--cpu", "-j", "1", "--file-timeout", "1", stuck, ok}, {}, 30000, env);
    QVERIFY2(run.finished, "the watchdog did not end the run");
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("no progress for 1 s"), run.err.constData());
    bool summary = false;
    const QList<QJsonObject> list = records(run.out, &summary);
    QCOMPARE(list.size(), 3);
    QCOMPARE(list[0]["file"].toString(), ok);
    QVERIFY(summary);
}

// Item 12: SIGTERM, or a second Ctrl-C, ends at once even with a worker stuck in a decoder.
void TestCliHostile::sigtermEndsAStuckRunAtOnce()
{
    const QString ok = image("term/ok.png"), stuck = image("term/stuck.png");
    const QString out = path("term.jsonl");
    for (const QList<int>& sent : {QList<int>{SIGTERM}, QList<int>{SIGINT, SIGINT}}) {
        QFile::remove(out);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("HISTOSCOPE_TEST_STALL_ON", "term/stuck.png");
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(m_cli, {"batch", "--cpu", "-j", "1", "--file-timeout", "0", "-o", out, ok, stuck});
        QVERIFY(p.waitForStarted());
        QTRY_COMPARE_WITH_TIMEOUT(records(readFile(out)).size(), 3, 20000);
        for (int signal : sent)
            ::kill(pid_t(p.processId()), signal);
        QVERIFY2(p.waitForFinished(10000), "a stuck run outlived its SIGTERM");
        QCOMPARE(p.exitCode(), 128 + sent.first());
        bool summary = true;
        QCOMPARE(records(readFile(out), &summary).size(), 3);
        QVERIFY(!summary);
        QVERIFY(readFile(out).endsWith('\n'));
    }
}

// Item 13: --per-frame records reach the output while the video is still being read.
void TestCliHostile::perFrameRecordsStream()
{
    const QString clip = path("stream/clip.avi");
    QDir().mkpath(path("stream"));
    cv::VideoWriter writer(QFile::encodeName(clip).toStdString(), cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 10.0, cv::Size(32, 24));
    if (!writer.isOpened())
        QSKIP("no MJPEG writer");
    for (int i = 0; i < 10; ++i)
        writer.write(cv::Mat(24, 32, CV_8UC3, cv::Scalar(20 * i, 50, 90)));
    writer.release();
    const QString out = path("stream.jsonl");
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("HISTOSCOPE_TEST_STALL_ON", "stream/clip.avi@6");  // stuck after six frames
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(m_cli, {"batch", "--cpu", "--per-frame", "--file-timeout", "0", "-o", out, clip});
    QVERIFY(p.waitForStarted());
    QTRY_COMPARE_WITH_TIMEOUT(records(readFile(out)).size(), 6 * 3, 20000);
    QCOMPARE(p.state(), QProcess::Running);  // the file is not finished, its frames are out
    ::kill(pid_t(p.processId()), SIGTERM);
    QVERIFY(p.waitForFinished(10000));
    for (const QJsonObject& r : records(readFile(out)))
        QVERIFY(r["frame"].toInt() < 6);
}

// Item 13: a file that would decode past the memory budget is refused from its header.
void TestCliHostile::bombsAreRefusedBeforeDecoding()
{
    QDir().mkpath(path("bombs"));
    QVERIFY(hostile::writeZeroPng(path("bombs/zeros.png"), 6000, 6000));  // 36 MB decoded
    QVERIFY(QFileInfo(path("bombs/zeros.png")).size() < 200000);
    QVERIFY(hostile::writeBytes(QFile::encodeName(path("bombs/declared.png")), hostile::pngDeclaring(100000, 100000)));
    QVERIFY(hostile::writeZeroTiff(path("bombs/pages.tif"), 10, 1000, 1000));  // 10 MB decoded, 1 MB a page
    QVERIFY(hostile::writeZeroTiff(path("bombs/big-page.tif"), 2, 5000, 5000));
    const Run run = cli({"batch", "--cpu", "-j", "1", "--memory-budget", "8M", path("bombs")});
    QCOMPARE(run.exitCode, 1);
    for (const char* name : {"zeros.png", "declared.png", "big-page.tif"}) {
        const QByteArray line = "error: " + QFile::encodeName(path("bombs/")) + name;
        QVERIFY2(run.err.contains(line) && run.err.contains("memory budget of 8.0 MB"), run.err.constData());
    }
    QVERIFY2(run.err.contains("counted 1 of 4"), run.err.constData());
    // The stack of ten 1 MB pages is counted a few pages at a time, within the budget.
    const QList<QJsonObject> list = records(run.out);
    QCOMPARE(list.size(), 1);
    QCOMPARE(list[0]["counts"].toArray()[0].toInteger(), 10 * 1000 * 1000);
}

// Item 13: -j is capped, and says so.
void TestCliHostile::jobsAreCapped()
{
    const Run run = cli({"batch", "--cpu", "-j", "10000", image("jobs/a.png")});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.err.contains("-j 10000 capped at"), run.err.constData());
}

// Item 13: floats converted a chunk at a time are counted over the range the whole array gets.
void TestCliHostile::convertedFloatsCountAsAWhole()
{
    QByteArray bytes;
    std::uniform_real_distribution<double> value(-3.0, 7.0);
    for (int i = 0; i < 300000; ++i) {
        double v = value(m_rng);
        unsigned char b[8];
        std::memcpy(b, &v, 8);
        std::reverse(b, b + 8);  // big-endian: converted, so streamed in chunks
        bytes.append(reinterpret_cast<const char*>(b), 8);
    }
    const QString file = path("floats/keys.f64");
    QDir().mkpath(path("floats"));
    QVERIFY(hostile::writeBytes(QFile::encodeName(file), bytes));
    const QStringList raw{"batch", "--cpu", "--raw-shape", "0", "--raw-type", "f64", "--raw-endian", "big", "--bins", "1000", file};
    const Run chunked = cli(raw + QStringList{"--memory-budget", "400k"});  // chunks of 25,000 samples
    const Run whole = cli(raw + QStringList{"--memory-budget", "8G"});     // one chunk
    QCOMPARE(chunked.exitCode, 0);
    QCOMPARE(whole.exitCode, 0);
    const QList<QJsonObject> a = records(chunked.out), b = records(whole.out);
    QCOMPARE(a.size(), 1);
    QCOMPARE(b.size(), 1);
    QVERIFY(a[0]["lo"].toDouble() < -2.9 && a[0]["hi"].toDouble() > 6.9);  // the whole array's range
    for (const char* key : {"lo", "hi", "counts", "statistics"})
        QCOMPARE(a[0][key], b[0][key]);
    QCOMPARE(a[0]["statistics"].toObject()["count"].toInteger(), 300000);
}

// Item 14: a named input that is not a regular file is an error with its cause.
void TestCliHostile::specialFilesAreErrors_data()
{
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("cause");
    QVERIFY(QDir().mkpath(path("special/x.jpg")));
    QVERIFY(::mkfifo(QFile::encodeName(path("special/pipe.png")).constData(), 0644) == 0);
    QVERIFY(::symlink("loop-b.png", QFile::encodeName(path("special/loop-a.png")).constData()) == 0);
    QVERIFY(::symlink("loop-a.png", QFile::encodeName(path("special/loop-b.png")).constData()) == 0);
    QTest::newRow("folder named x.jpg") << path("special/x.jpg") << "a folder with no file to count";
    QTest::newRow("FIFO") << path("special/pipe.png") << "not a regular file (a FIFO)";
    QTest::newRow("/dev/zero") << "/dev/zero" << "not a regular file (a character device)";
    QTest::newRow("symlink loop") << path("special/loop-a.png") << "a loop of symbolic links";
}

void TestCliHostile::specialFilesAreErrors()
{
    QFETCH(QString, input);
    QFETCH(QString, cause);
    const Run run = cli({"batch", "--cpu", input, image("special/ok.png")}, {}, 20000);
    QVERIFY2(run.finished, "a special file blocked the run");
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains(QFile::encodeName(input) + ": " + cause.toUtf8()), run.err.constData());
    QCOMPARE(records(run.out).size(), 3);
}

// Item 14: under -r, links never lead out of the root, and each file is counted once.
void TestCliHostile::symlinksStayInTheRoot()
{
    const QString root = path("links/root");
    image("links/root/a.png");
    image("links/outside.png");
    QVERIFY(::symlink("..", QFile::encodeName(root + "/up").constData()) == 0);
    QVERIFY(::symlink("a.png", QFile::encodeName(root + "/again.png").constData()) == 0);
    QVERIFY(::symlink(".", QFile::encodeName(root + "/self").constData()) == 0);
    QVERIFY(::symlink("/dev/zero", QFile::encodeName(root + "/zero.png").constData()) == 0);
    const Run run = cli({"batch", "--cpu", "-r", root}, {}, 30000);
    QVERIFY(run.finished);
    QCOMPARE(run.exitCode, 1);
    const QList<QJsonObject> list = records(run.out);
    QCOMPARE(list.size(), 3);  // a.png once: not again.png, not through self/, not outside.png
    QCOMPARE(list[0]["file"].toString(), root + "/a.png");
    QVERIFY2(run.err.contains("again.png is the same file as"), run.err.constData());
    QVERIFY2(run.err.contains(QFile::encodeName(root + "/up") + ": a symbolic link that leads out of"), run.err.constData());
    QVERIFY2(run.err.contains(QFile::encodeName(root + "/zero.png") + ": a symbolic link that leads out of"), run.err.constData());
    const Run followed = cli({"batch", "--cpu", "-r", "--follow-links", root}, {}, 30000);
    QVERIFY2(followed.err.contains(QFile::encodeName(root + "/zero.png") + ": not a regular file (a character device)"),
             followed.err.constData());
    QVERIFY(records(followed.out).size() >= 6);  // outside.png through up/
}

// The generated corpus as one batch: every input counted or failed with a cause, no crash or hang.
void TestCliHostile::wholeCorpusIsAccountedFor()
{
    const QString kept = qEnvironmentVariable("HISTOSCOPE_CORPUS_DIR");
    const QString dir = kept.isEmpty() ? path("corpus") : kept;
    const int inputs = hostile::writeCorpus(dir, m_rng);
    QVERIFY(inputs >= 24);
    const Run run = cli({"batch", "--cpu", "--memory-budget", "64M", "--file-timeout", "20", "-r", dir}, {}, 120000);
    QVERIFY2(run.finished, "the corpus hung the batch");
    QCOMPARE(run.exitCode, 1);
    bool summary = false;
    const QList<QJsonObject> list = records(run.out, &summary);
    QVERIFY(summary);
    QSet<QString> counted;
    for (const QJsonObject& r : list)
        counted << r["file"].toString();
    const QJsonObject last = QJsonDocument::fromJson(run.out.trimmed().split('\n').last()).object();
    QCOMPARE(last["files"].toInt(), int(counted.size()));
    // Each named entry of the corpus is in the output or on the failed list.
    const QByteArray err = run.err;
    for (const char* name : {"good.png", "caf\xe9.png", "trailer.jpg", "png-named.jpg", "pages.tif"})
        QVERIFY2(counted.contains(pathFromNative(QFile::encodeName(dir) + '/' + name)), name);
    for (const char* name : {"bomb-header.png", "text.jpg", "empty.png", "random.mp4", "lies.npy", "huge-shape.npy",
                             "complex.npy", "fifo.png", "loop1.png", "device.png"})
        QVERIFY2(err.contains(QFile::encodeName(dir) + '/' + name + ": "), name);
    QVERIFY2(!err.contains("trailer.jpg: JPEG data ends") && !err.contains("png-named.jpg: JPEG"), err.constData());
    QVERIFY2(err.contains("cut.jpg: JPEG data ends before its end-of-image marker") || err.contains("error: " + QFile::encodeName(dir) + "/cut.jpg"),
             err.constData());
}

namespace {

QByteArray floatNpy(const std::vector<float>& values, const QByteArray& shape, std::mt19937_64& rng)
{
    QByteArray bytes = hostile::npy("<f4", shape, 0, rng);
    bytes.append(reinterpret_cast<const char*>(values.data()), qsizetype(values.size() * sizeof(float)));
    return bytes;
}

}  // namespace

// Issue 20, item 5: an RGB float array with one sample of 1e30 in B. All channels shared one
// widened range, so R reported mean 1.95e27 with max 2.5, median -1.69 and std 0 against
// numpy's mean 0.219 and median 0.18 (the same with an EXR). A range taken from the data is now
// each channel's own: R and G match numpy to within their bins, B's estimates are flagged
// coarse in the record, and no mean or median leaves [min, max]. The same through an image
// decoder (PFM, EXR where OpenCV writes it), whose storage order is BGR.
void TestCliHostile::floatOutlierStaysInItsChannel_data()
{
    QTest::addColumn<QString>("suffix");
    QTest::newRow(".npy (64, 48, 3)") << "npy";
    QTest::newRow(".pfm") << "pfm";
    QTest::newRow(".exr") << "exr";
}

void TestCliHostile::floatOutlierStaysInItsChannel()
{
    QFETCH(QString, suffix);
    const int width = 48, height = 64;
    std::vector<float> rgb(std::size_t(width) * height * 3);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (float& v : rgb) {
        const double x = u(m_rng);
        v = float(-2.97 + 5.47 * x * x);   // skewed, like a photo's channel: numpy's median near 0.2
    }
    rgb[3 * 1000 + 2] = 1e30f;
    const QString file = path("outlier/rgb." + suffix);
    QDir().mkpath(path("outlier"));
    if (suffix == "npy") {
        QVERIFY(hostile::writeBytes(QFile::encodeName(file), floatNpy(rgb, "(64, 48, 3)", m_rng)));
    } else {
        cv::Mat bgr(height, width, CV_32FC3);
        for (int i = 0; i < width * height; ++i)
            bgr.at<cv::Vec3f>(i / width, i % width) = {rgb[3 * i + 2], rgb[3 * i + 1], rgb[3 * i]};
        bool written = false;
        try {
            written = cv::imwrite(QFile::encodeName(file).toStdString(), bgr);
        } catch (const cv::Exception&) {
        }
        if (!written)
            QSKIP("this OpenCV build cannot write the format");
    }
    const Run run = cli({"batch", "--cpu", file});
    if (suffix == "exr" && run.exitCode != 0 && run.err.contains("exr"))
        QSKIP("OpenEXR decoding is disabled in this OpenCV build");
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QList<QJsonObject> list = records(run.out);
    QCOMPARE(list.size(), 3);
    for (const QJsonObject& r : list) {
        const QString channel = r["channel"].toString();
        const int c = QStringList{"R", "G", "B"}.indexOf(channel);
        QVERIFY(c >= 0);
        const QJsonObject st = r["statistics"].toObject();
        const double min = st["min"].toDouble(), max = st["max"].toDouble();
        const double mean = st["mean"].toDouble(), median = st["median"].toDouble();
        QVERIFY2(mean >= min && mean <= max, qPrintable(QStringLiteral("%1: mean %2 outside [%3, %4]").arg(channel).arg(mean).arg(min).arg(max)));
        QVERIFY(median >= min && median <= max);
        QCOMPARE(st["count"].toInteger(), qint64(width * height));   // every finite sample binned
        QVERIFY(st.contains("coarse"));
        const auto [npMedian, npMean] = numpyoracle::medianMean(rgb, 3, c);
        const double w = (r["hi"].toDouble() - r["lo"].toDouble()) / r["bins"].toDouble();
        if (channel == "B") {
            QVERIFY(r["hi"].toDouble() > 1e30);
            QVERIFY(st["coarse"].toBool());   // its own range is 1e30 wide: said, not hidden
            continue;
        }
        QVERIFY2(r["hi"].toDouble() <= 2.5 + 1e-6, qPrintable(QString::number(r["hi"].toDouble())));
        QVERIFY(!st["coarse"].toBool());
        QVERIFY2(std::abs(mean - npMean) <= w / 2, qPrintable(QStringLiteral("%1: mean %2, numpy %3").arg(channel).arg(mean).arg(npMean)));
        QVERIFY2(npMedian - median >= 0 && npMedian - median <= w,
                 qPrintable(QStringLiteral("%1: median %2, numpy %3").arg(channel).arg(median).arg(npMedian)));
    }
    // CSV carries the flag in its column; `histogram` prints estimates as estimates.
    const Run csv = cli({"batch", "--cpu", "--format", "csv", file});
    QCOMPARE(csv.exitCode, 0);
    const QList<QByteArray> rows = csv.out.split('\n');
    const int coarse = int(rows[0].split(',').indexOf("coarse")), channelColumn = int(rows[0].split(',').indexOf("channel"));
    QVERIFY(coarse > 0 && channelColumn > 0);
    for (int i = 1; i <= 3; ++i) {
        const QList<QByteArray> f = rows[i].split(',');
        QCOMPARE(f[coarse], QByteArray(f[channelColumn] == "B" ? "true" : "false"));
    }
    const Run text = cli({"histogram", "--cpu", file});
    QCOMPARE(text.exitCode, 0);
    for (const QByteArray& line : text.out.split('\n')) {
        if (line.startsWith("R ") || line.startsWith("G "))
            QVERIFY2(line.contains("median \xe2\x89\x88") && line.contains("(bins of "), line.constData());
        if (line.startsWith("B "))
            QVERIFY2(line.contains("(coarse: bins of "), line.constData());
    }
}

// Issue 20, item 6: --range 100.25:200.75 --bins 33 on 16-bit data counted [101, 201) but
// recorded lo = 100.25, hi = 200.75, so edges rebuilt from the record were up to 33 % off per
// bin. The record states what was binned, and a warning says so.
void TestCliHostile::fractionalRangeOnIntegersIsRecordedAsBinned()
{
    std::vector<std::uint16_t> values(4000);
    for (auto& v : values)
        v = std::uint16_t(80 + m_rng() % 140);
    QByteArray bytes = hostile::npy("<u2", "(4000,)", 0, m_rng);
    bytes.append(reinterpret_cast<const char*>(values.data()), qsizetype(values.size() * 2));
    const QString file = path("fraction/u16.npy");
    QDir().mkpath(path("fraction"));
    QVERIFY(hostile::writeBytes(QFile::encodeName(file), bytes));
    const Run run = cli({"batch", "--cpu", "--range", "100.25:200.75", "--bins", "33", file});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QList<QJsonObject> list = records(run.out);
    QCOMPARE(list.size(), 1);
    const QJsonObject r = list[0];
    QCOMPARE(r["lo"].toDouble(), 101.0);
    QCOMPARE(r["hi"].toDouble(), 201.0);
    const QString warnings = QJsonDocument(r["warnings"].toArray()).toJson();
    QVERIFY2(warnings.contains("[100.25, 200.75)") && warnings.contains("[101, 201)"), qPrintable(warnings));
    QVERIFY(run.err.contains("[101, 201)"));
    // numpy.histogram(values, bins=33, range=(lo, hi)) with the record's lo and hi: its edges
    // lo + i (hi - lo) / bins are the engine's bins, count for count.
    QJsonArray expected;
    std::vector<qint64> counts(33, 0);
    const double lo = r["lo"].toDouble(), hi = r["hi"].toDouble(), w = (hi - lo) / 33;
    for (std::uint16_t v : values)
        if (v >= lo && v < hi)
            ++counts[std::min<std::size_t>(std::size_t((v - lo) / w), 32)];
    for (qint64 c : counts)
        expected.append(c);
    QCOMPARE(r["counts"].toArray(), expected);
}

// Issue 20, item 7: [3.4e38, -3.4e38, 0.5] failed at default settings with "range is too narrow
// or too wide for 32-bit floats". The automatic range is one the engine takes for every finite
// float input: the samples beyond what float32 can bin are counted in below and above, said in a
// warning, and min and max stay the data's.
void TestCliHostile::floatsSpanningTheFloatRangeAreCounted()
{
    const QString file = path("span/wide.npy");
    QDir().mkpath(path("span"));
    QVERIFY(hostile::writeBytes(QFile::encodeName(file), floatNpy({3.4e38f, -3.4e38f, 0.5f}, "(3,)", m_rng)));
    for (const QString command : {"batch", "histogram"}) {
        const Run run = cli({command, "--cpu", file});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY2(run.err.contains("wider than 32-bit floats can bin"), run.err.constData());
    }
    const QList<QJsonObject> list = records(cli({"batch", "--cpu", file}).out);
    QCOMPARE(list.size(), 1);
    const QJsonObject st = list[0]["statistics"].toObject();
    QCOMPARE(st["count"].toInteger(), 1);   // 0.5
    QCOMPARE(st["below"].toInteger() + st["above"].toInteger(), 2);
    QCOMPARE(st["min"].toDouble(), double(-3.4e38f));
    QCOMPARE(st["max"].toDouble(), double(3.4e38f));
    // numpy's median of [3.4e38, -3.4e38, 0.5] is 0.5: within one bin below it.
    const double w = (list[0]["hi"].toDouble() - list[0]["lo"].toDouble()) / list[0]["bins"].toDouble();
    QVERIFY(st["median"].toDouble() <= 0.5 && 0.5 - st["median"].toDouble() <= w);
}

QList<QJsonObject> TestCliHostile::grayRecords(const QString& name)
{
    const QString file = path(name);
    QDir().mkpath(QFileInfo(file).path());
    cv::Mat gray(5, 7, CV_8UC1);
    cv::RNG(m_rng()).fill(gray, cv::RNG::UNIFORM, 20, 230);
    if (!cv::imwrite(QFile::encodeName(file).toStdString(), gray))
        return {};
    return records(cli({"batch", "--cpu", "-q", file}).out);
}

QString TestCliHostile::writeOutput(const QString& name, const QList<QJsonObject>& list, qint64 files)
{
    QByteArray bytes;
    for (const QJsonObject& r : list)
        bytes += QJsonDocument(r).toJson(QJsonDocument::Compact) + '\n';
    const QJsonObject summary{{"schema", list.value(0)["schema"]}, {"record", "summary"}, {"records", qint64(list.size())},
                              {"files", files}, {"failed", 0}, {"frames", files}};
    bytes += QJsonDocument(summary).toJson(QJsonDocument::Compact) + '\n';
    const QString file = path(name);
    QDir().mkpath(QFileInfo(file).path());
    return hostile::writeBytes(QFile::encodeName(file), bytes) ? file : QString();
}

// Issue 20, item 1: every command that writes a file refuses to write over one of its inputs,
// the same way: exit 2, "is also an input", the input untouched.
void TestCliHostile::everyWriterRefusesItsInput_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("victim");
    const QString jpeg = path("victim/victim.jpg");
    QDir().mkpath(path("victim"));
    QVERIFY(hostile::writeBytes(QFile::encodeName(jpeg), hostile::randomImage(".jpg", 33, 21, m_rng)));
    const QString link = path("victim/link.jpg");
    QVERIFY(::link(QFile::encodeName(jpeg).constData(), QFile::encodeName(link).constData()) == 0);
    const QString jsonl = path("victim/out.jsonl");
    QCOMPARE(cli({"batch", "--cpu", "-q", "-o", jsonl, jpeg}).exitCode, 0);
    QTest::newRow("scope -o its input") << QStringList{"scope", "parade", jpeg, "-o", jpeg} << jpeg;
    QTest::newRow("scope -o a hard link to its input") << QStringList{"scope", "waveform", jpeg, "-o", link} << jpeg;
    QTest::newRow("scope --all-frames -o its input") << QStringList{"scope", "parade", "--all-frames", jpeg, "-o", jpeg} << jpeg;
    QTest::newRow("batch -o its input") << QStringList{"batch", "--cpu", jpeg, "-o", jpeg} << jpeg;
    QTest::newRow("merge -o its input") << QStringList{"merge", jsonl, "-o", jsonl} << jsonl;
}

void TestCliHostile::everyWriterRefusesItsInput()
{
    QFETCH(QStringList, args);
    QFETCH(QString, victim);
    const QByteArray before = readFile(victim);
    QVERIFY(!before.isEmpty());
    const Run run = cli(args);
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains("is also an input"), run.err.constData());
    QCOMPARE(run.err.count('\n'), 1 + run.err.count("note: "));  // one line, beside notes
    QCOMPARE(readFile(victim), before);
    QVERIFY(run.out.isEmpty());
}

// Issue 20, item 2: merge checks every sum against the schema's 2^63-1 and writes nothing when
// one would pass it (it wrote -2 and -9223372036854775808 with exit 0).
void TestCliHostile::mergeChecksEverySum_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<qint64>("value");
    const qint64 max = std::numeric_limits<qint64>::max();
    QTest::newRow("a bin of 2^63-1, twice") << "bin" << max;
    QTest::newRow("a bin of 2^62, twice") << "bin" << (qint64(1) << 62);
    QTest::newRow("two bins of 3 * 2^60: only the count passes") << "two bins" << (qint64(3) << 60);
    QTest::newRow("below 2^63-1, twice") << "below" << max;
    QTest::newRow("above 2^62, twice") << "above" << (qint64(1) << 62);
    QTest::newRow("nan 2^62, twice") << "nan" << (qint64(1) << 62);
    QTest::newRow("summary files 2^62, twice") << "files" << (qint64(1) << 62);
}

void TestCliHostile::mergeChecksEverySum()
{
    QFETCH(QString, key);
    QFETCH(qint64, value);
    QList<QJsonObject> list = grayRecords("sums/a.png");
    QCOMPARE(list.size(), 1);
    QJsonObject r = list[0];
    QJsonObject stats = r["statistics"].toObject();
    QJsonArray counts = r["counts"].toArray();
    if (key == "bin" || key == "two bins") {
        // Counts of values the data does not hold, so that min and max still agree with them.
        for (int i = 0; i < counts.size(); ++i)
            counts[i] = 0;
        counts[100] = value;
        if (key == "two bins")
            counts[101] = value;
        stats["count"] = key == "two bins" ? 2 * value : value;
        stats["min"] = 100;
        stats["max"] = key == "two bins" ? 101 : 100;
    } else if (key != "files") {
        stats[key] = value;
        if (key == "below")
            stats["min"] = -1;  // samples below lo = 0 (a range that starts above the data)
        if (key == "above")
            stats["max"] = 300;
    }
    r["counts"] = counts;
    r["statistics"] = stats;
    const qint64 files = key == "files" ? value : 1;
    const QString one = writeOutput("sums/one.jsonl", {r}, files);
    r["file"] = path("sums/b.png");
    const QString two = writeOutput("sums/two.jsonl", {r}, files);
    // Each input alone merges: only the sum overflows.
    QCOMPARE(cli({"merge", one}).exitCode, 0);
    const QString out = path("sums/merged.jsonl");
    QVERIFY(hostile::writeBytes(QFile::encodeName(out), "poison\n"));
    const Run run = cli({"merge", one, two});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("overflows 64 bits"), run.err.constData());
    QVERIFY(run.out.isEmpty());
    const Run toFile = cli({"merge", one, two, "-o", out});
    QCOMPARE(toFile.exitCode, 1);
    QCOMPARE(readFile(out), QByteArray("poison\n"));  // nothing written, not even emptied
}

// Issue 20, item 3: merge never counts the same data twice silently: the same input twice is a
// usage error, and one source file (and frame) in two inputs is a warning, refused under --strict.
void TestCliHostile::mergeRefusesCountingTwice()
{
    const QList<QJsonObject> a = grayRecords("twice/a.png"), b = grayRecords("twice/b.png");
    QCOMPARE(a.size(), 1);
    QCOMPARE(b.size(), 1);
    const QString first = writeOutput("twice/first.jsonl", {a[0]});
    const QString both = writeOutput("twice/both.jsonl", {a[0], b[0]}, 2);  // overlaps first on a.png
    const QString link = path("twice/link.jsonl");
    QVERIFY(::link(QFile::encodeName(first).constData(), QFile::encodeName(link).constData()) == 0);

    Run run = cli({"merge", first, first});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains("is given twice"), run.err.constData());
    QVERIFY(run.out.isEmpty());
    run = cli({"merge", first, link});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains("are the same file"), run.err.constData());

    run = cli({"merge", first, both});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.err.contains("warning: " + QFile::encodeName(first) + " and " + QFile::encodeName(both) + " both hold "
                              + QFile::encodeName(path("twice/a.png"))),
             run.err.constData());
    QCOMPARE(records(run.out).size(), 1);

    run = cli({"merge", "--strict", first, both});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("refused under --strict"), run.err.constData());
    QVERIFY(run.out.isEmpty());

    // Frames are sources of their own: two inputs with other frames of one video do not overlap.
    QJsonObject f0 = a[0], f1 = a[0];
    f0["frame"] = 0;
    f1["frame"] = 1;
    run = cli({"merge", "--strict", writeOutput("twice/f0.jsonl", {f0}), writeOutput("twice/f1.jsonl", {f1})});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(!run.err.contains("both hold"), run.err.constData());
}

// Issue 20, item 4: with one bin per value the counts say where min and max are; a record whose
// min or max contradicts them is refused like a wrong sum.
void TestCliHostile::mergeChecksExtremesAgainstCounts_data()
{
    QTest::addColumn<QJsonValue>("min");
    QTest::addColumn<QJsonValue>("max");
    QTest::addColumn<qint64>("below");
    QTest::addColumn<QString>("cause");
    QTest::newRow("min -1000, max 99999 over the value 30") << QJsonValue(-1000) << QJsonValue(99999) << qint64(0)
                                                            << "min -1000 contradicts the counts";
    QTest::newRow("max above the counts") << QJsonValue(30) << QJsonValue(31) << qint64(0) << "max 31 contradicts the counts";
    QTest::newRow("min below the smallest value, nothing below lo") << QJsonValue(29) << QJsonValue(30) << qint64(0)
                                                                    << "min 29 contradicts the counts";
    QTest::newRow("min inside the range, samples below it") << QJsonValue(30) << QJsonValue(30) << qint64(4)
                                                             << "min 30 contradicts the counts: 4 sample(s) lie below lo";
    QTest::newRow("extremes of no sample") << QJsonValue(30) << QJsonValue(30) << qint64(-1) << "min and max are given, but no sample is counted";
}

void TestCliHostile::mergeChecksExtremesAgainstCounts()
{
    QFETCH(QJsonValue, min);
    QFETCH(QJsonValue, max);
    QFETCH(qint64, below);
    QFETCH(QString, cause);
    QList<QJsonObject> list = grayRecords("extremes/a.png");
    QCOMPARE(list.size(), 1);
    QJsonObject r = list[0];
    QJsonArray counts = r["counts"].toArray();
    for (int i = 0; i < counts.size(); ++i)
        counts[i] = 0;
    const qint64 n = 1 + qint64(m_rng() % 1000);
    if (below >= 0)
        counts[30] = n;  // the data: n samples of the value 30
    QJsonObject stats = r["statistics"].toObject();
    stats["count"] = below >= 0 ? n : 0;
    stats["below"] = std::max<qint64>(below, 0);
    stats["min"] = min;
    stats["max"] = max;
    r["counts"] = counts;
    r["statistics"] = stats;
    const QString bad = writeOutput("extremes/bad.jsonl", {r});
    const Run run = cli({"merge", bad});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains(QFile::encodeName(bad) + ": line 1: " + cause.toUtf8()), run.err.constData());
    QVERIFY(run.out.isEmpty());
    // The same record with the extremes its counts say is merged.
    stats["min"] = below > 0 ? QJsonValue(-3) : QJsonValue(30);
    stats["max"] = 30;
    r["statistics"] = stats;
    if (below >= 0)
        QCOMPARE(cli({"merge", writeOutput("extremes/good.jsonl", {r})}).exitCode, 0);
}

// Issue 20, item 8: --channels names channels of the file, or the file fails naming the one it lacks.
void TestCliHostile::channelsTheFileLacks_data()
{
    QTest::addColumn<QString>("command");
    QTest::addColumn<bool>("gray");
    QTest::addColumn<QString>("channels");
    QTest::addColumn<QString>("missing");
    QTest::newRow("batch --channels R on gray") << "batch" << true << "R" << "R";
    QTest::newRow("histogram --channels R on gray") << "histogram" << true << "R" << "R";
    QTest::newRow("batch --channels A on RGB") << "batch" << false << "A" << "A";
    QTest::newRow("batch --channels gray on RGB") << "batch" << false << "gray" << "gray";
    QTest::newRow("batch --channels G,A on RGB") << "batch" << false << "G,A" << "A";
}

void TestCliHostile::channelsTheFileLacks()
{
    QFETCH(QString, command);
    QFETCH(bool, gray);
    QFETCH(QString, channels);
    QFETCH(QString, missing);
    const QString file = path(gray ? "channels/gray.png" : "channels/rgb.png");
    QDir().mkpath(path("channels"));
    cv::Mat m(6, 9, gray ? CV_8UC1 : CV_8UC3);
    cv::RNG(m_rng()).fill(m, cv::RNG::UNIFORM, 0, 256);
    QVERIFY(cv::imwrite(QFile::encodeName(file).toStdString(), m));
    const Run run = cli({command, "--cpu", "-q", "--channels", channels, file});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains(QFile::encodeName(file) + ": the file has no channel " + missing.toUtf8()), run.err.constData());
    QCOMPARE(records(run.out).size(), 0);  // nothing counted under a name the file does not have
    // A channel it has is counted under its own name.
    const Run ok = cli({"batch", "--cpu", "-q", "--channels", gray ? "gray" : "B", file});
    QCOMPARE(ok.exitCode, 0);
    QCOMPARE(records(ok.out).value(0)["channel"].toString(), gray ? QStringLiteral("gray") : QStringLiteral("B"));
}

// Issue 20, item 9: every entry of a folder is accounted for; named, a file of a format HistoScope
// does not read is "format not supported", not "corrupt".
void TestCliHostile::skippedFilesAreListed()
{
    const QString dir = path("skipped");
    image("skipped/good.png");
    image("skipped/sub/deeper.png");
    QStringList odd{"anim.gif", "clip.ts", "README", "photo.jpeg.bak"};
    for (const QString& name : odd)
        QVERIFY(hostile::writeBytes(QFile::encodeName(dir + '/' + name), hostile::randomBytes(500, m_rng)));
    Run run = cli({"batch", "--cpu", dir});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.err.contains("4 file(s) skipped: not a known image, video or .npy name"), run.err.constData());
    QVERIFY2(run.err.contains("1 sub-folder(s) not searched (use -r)"), run.err.constData());
    QVERIFY2(run.err.contains("counted 1 of 1 input(s)"), run.err.constData());
    run = cli({"batch", "--cpu", "-v", dir});
    for (const QString& name : odd)
        QVERIFY2(run.err.contains("skipped " + QFile::encodeName(dir + '/' + name) + ": not a known"), run.err.constData());
    QVERIFY2(run.err.contains("not searched: " + QFile::encodeName(dir + "/sub")), run.err.constData());
    run = cli({"batch", "--cpu", "-v", "--exclude", "good*", "-r", dir});
    QVERIFY2(run.err.contains("skipped " + QFile::encodeName(dir + "/good.png") + ": left out by --include/--exclude"), run.err.constData());
    run = cli({"batch", "--cpu", "-q", dir});
    QVERIFY2(!run.err.contains("skipped"), run.err.constData());  // -q: notes kept back
}

void TestCliHostile::unsupportedFormatsAreSaid_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("what");
    QTest::newRow("a valid GIF") << "x.gif" << hostile::gif() << "a GIF image";
    QTest::newRow("a valid WAV") << "x.wav" << hostile::wav() << "WAV audio";
    QTest::newRow("a GIF without its extension") << "download" << hostile::gif() << "a GIF image";
}

void TestCliHostile::unsupportedFormatsAreSaid()
{
    QFETCH(QString, name);
    QFETCH(QByteArray, bytes);
    QFETCH(QString, what);
    QDir().mkpath(path("formats"));
    const QString file = path("formats/" + name);
    QVERIFY(hostile::writeBytes(QFile::encodeName(file), bytes));
    for (const QString& command : {QStringLiteral("batch"), QStringLiteral("histogram")}) {
        const Run run = cli({command, "--cpu", "-q", file});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(QFile::encodeName(file) + ": format not supported: " + what.toUtf8()), run.err.constData());
        QVERIFY2(!run.err.contains("corrupt"), run.err.constData());
    }
}

// Issue 20, item 10: --memory-budget is the whole run's; -j 4 no longer splits it four ways.
void TestCliHostile::memoryBudgetIsShared()
{
    QDir().mkpath(path("budget"));
    QStringList inputs;
    for (int i = 0; i < 4; ++i) {
        inputs << path(QStringLiteral("budget/%1.png").arg(i));
        QVERIFY(hostile::writeZeroPng(inputs.last(), 6000, 6000));  // 36 MB decoded each
    }
    const QString big = path("budget/big.png");
    QVERIFY(hostile::writeZeroPng(big, 10000, 10000));  // 100 MB: more than the whole budget
    const Run run = cli(QStringList{"batch", "--cpu", "-q", "-j", "4", "--memory-budget", "80M"} + inputs);
    QCOMPARE(run.exitCode, 0);  // each fits the budget; two at a time, the others wait
    QCOMPARE(records(run.out).size(), 4);
    const Run over = cli({"batch", "--cpu", "-q", "-j", "4", "--memory-budget", "80M", big});
    QCOMPARE(over.exitCode, 1);
    QVERIFY2(over.err.contains("more than the memory budget of 80.0 MB"), over.err.constData());  // the budget given
}

// Issue 20, item 11: pages of a TIFF that cannot be summed are named; --per-frame counts each.
void TestCliHostile::tiffPagesThatDiffer()
{
    const QString tiff = path("pages/mixed.tif");
    QDir().mkpath(path("pages"));
    cv::Mat rgb(8, 10, CV_8UC3), deep(8, 10, CV_16UC1);
    cv::RNG rng(m_rng());
    rng.fill(rgb, cv::RNG::UNIFORM, 0, 256);
    rng.fill(deep, cv::RNG::UNIFORM, 0, 65536);
    QVERIFY(cv::imwritemulti(QFile::encodeName(tiff).toStdString(), std::vector<cv::Mat>{rgb, rgb, deep}));
    Run run = cli({"batch", "--cpu", "-q", tiff});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains(QFile::encodeName(tiff) + ": page 3 (frame 2) has 1 channel(s) of u16 where the first has 3 channel(s) of u8"),
             run.err.constData());
    run = cli({"histogram", "--cpu", "-q", tiff});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("page 3 (frame 2)"), run.err.constData());
    run = cli({"batch", "--cpu", "-q", "--per-frame", tiff});
    QCOMPARE(run.exitCode, 0);
    const QList<QJsonObject> list = records(run.out);
    QCOMPARE(list.size(), 3 + 3 + 1);
    QCOMPARE(list.last()["frame"].toInt(), 2);
    QCOMPARE(list.last()["channel"].toString(), QStringLiteral("gray"));
    QCOMPARE(list.last()["type"].toString(), QStringLiteral("u16"));
    QCOMPARE(list.last()["statistics"].toObject()["count"].toInt(), 80);
}

// Issue 20, item 12: a glob that is not one is a usage error, said once.
void TestCliHostile::invalidGlobIsAUsageError()
{
    image("glob/a.png");
    for (const char* option : {"--include", "--exclude"}) {
        const Run run = cli({"batch", "--cpu", option, "[", path("glob")});
        QCOMPARE(run.exitCode, 2);
        QCOMPARE(run.err.count('\n'), 1);
        QVERIFY2(run.err.contains(QByteArray(option) + " '[' is not a glob"), run.err.constData());
    }
}

// Issue 20, item 13: control characters of names are escaped on stderr (JSON keeps them exact).
void TestCliHostile::controlCharactersAreEscaped()
{
    QDir().mkpath(path("ctl"));
    const QString title = path("ctl/\x1b]0;pwned\x07.png");
    const QString lines = path("ctl/two\nlines.png");
    QVERIFY(hostile::writeBytes(QFile::encodeName(title), hostile::randomBytes(300, m_rng)));  // corrupt: fails
    QVERIFY(hostile::writeBytes(QFile::encodeName(lines), hostile::randomBytes(300, m_rng)));
    const QString ok = image("ctl/ok\tname.png");
    const Run run = cli({"batch", "--cpu", "-q", title, lines, ok});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(!run.err.contains('\x1b') && !run.err.contains('\x07') && !run.err.contains('\t'), run.err.constData());
    QVERIFY2(run.err.contains("ctl/\\x1b]0;pwned\\x07.png"), run.err.constData());
    const QList<QByteArray> errLines = run.err.split('\n');
    const qsizetype failedAt = errLines.indexOf("failed:");
    QVERIFY(failedAt >= 0);
    const QList<QByteArray> listed = errLines.mid(failedAt + 1);
    QCOMPARE(std::count_if(listed.cbegin(), listed.cend(), [](const QByteArray& l) { return l.startsWith("  "); }), 2);  // one line per failed file
    QVERIFY(errLines.contains("  " + QFile::encodeName(path("ctl/two")) + "\\nlines.png"));
    // The records keep the name exactly.
    QCOMPARE(records(run.out).value(0)["file"].toString(), ok);
}

// Issue 20, item 14: a video's pixels deeper than 8 bits, or with alpha, cannot come through
// OpenCV's reader; the record says so.
void TestCliHostile::videoDepthIsSaid_data()
{
    QTest::addColumn<QString>("colour");
    QTest::addColumn<QString>("lost");
    QTest::newRow("16-bit grey") << "mono16" << "16-bit samples, counted as 8-bit values";
    QTest::newRow("Y, Cb, Cr and alpha") << "444alpha" << "an alpha channel, which is not counted";
}

void TestCliHostile::videoDepthIsSaid()
{
    QFETCH(QString, colour);
    QFETCH(QString, lost);
    QDir().mkpath(path("depth"));
    const QString video = path("depth/" + colour + ".y4m");
    QVERIFY(hostile::writeBytes(QFile::encodeName(video), hostile::y4m(colour.toLatin1().constData(), 16, 8, 3, m_rng)));
    const Run run = cli({"batch", "--cpu", "-q", video});
    if (run.err.contains("not a video OpenCV can decode"))
        QSKIP("this OpenCV has no FFmpeg reader");
    QCOMPARE(run.exitCode, 0);
    const QList<QJsonObject> list = records(run.out);
    QVERIFY(!list.isEmpty());
    const QString warnings = QJsonDocument(list[0]["warnings"].toArray()).toJson();
    QVERIFY2(warnings.contains(lost), qPrintable(warnings));
    QVERIFY2(run.err.contains(lost.toUtf8()), run.err.constData());
    // A plain 8-bit video says nothing.
    const QString plain = path("depth/plain.y4m");
    QVERIFY(hostile::writeBytes(QFile::encodeName(plain), hostile::y4m("444", 16, 8, 2, m_rng)));
    const Run quiet = cli({"batch", "--cpu", "-q", plain});
    QCOMPARE(quiet.exitCode, 0);
    QVERIFY2(!quiet.err.contains("warning"), quiet.err.constData());
}

// Issue 20, item 15: scope follows the exit codes and messages of every other command.
void TestCliHostile::scopeFollowsTheCommonPolicy_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("stdoutFile");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    const QString still = image("scope/still.png", 40, 20);
    QTest::newRow("/dev/full") << QStringList{"parade", still} << "/dev/full" << 3 << "write failed";
    QTest::newRow("a GPU strategy without a GPU") << QStringList{"parade", "--cpu", "--strategy", "shared", still} << "" << 2
                                                  << "--strategy shared runs on a CUDA GPU";
    QTest::newRow("--frame 5 of a still image") << QStringList{"parade", "--frame", "5", still} << "" << 1
                                                << "there is no frame 5: it holds one frame";
    QTest::newRow("--all-frames with --frame") << QStringList{"parade", "--all-frames", "--frame", "3", still} << "" << 2
                                               << "--frame and --all-frames exclude each other";
    QTest::newRow("-o ''") << QStringList{"parade", still, "-o", ""} << "" << 2 << "-o takes a file name";
}

void TestCliHostile::scopeFollowsTheCommonPolicy()
{
    QFETCH(QStringList, args);
    QFETCH(QString, stdoutFile);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    if (stdoutFile == "/dev/full" && !QFileInfo::exists("/dev/full"))
        QSKIP("no /dev/full here");
    const Run run = cli(QStringList{"scope"} + args, stdoutFile);
    QCOMPARE(run.exitCode, exitCode);
    QVERIFY2(run.err.contains(message.toUtf8()), run.err.constData());
}

void TestCliHostile::scopeOutputEndsWithASummary()
{
    // A closed pipe is a write error (exit 3), as for batch, not SIGPIPE's 141.
    const QString wide = image("scope/wide.png", 3000, 4);  // a parade of millions of counts
    QProcess p;
    p.start("/bin/sh", {"-c", "(\"$0\" scope parade \"$1\"; echo \"exit=$?\" >&2) | head -c 1 > /dev/null", m_cli, wide});
    QVERIFY(p.waitForFinished(60000));
    const QByteArray err = p.readAllStandardError();
    QVERIFY2(err.contains("exit=3") && err.contains("write failed (Broken pipe)"), err.constData());

    // A finished output ends with a summary record; one cut by a decoder error says it failed.
    const QString clip = path("scope/clip.avi");
    cv::VideoWriter writer(QFile::encodeName(clip).toStdString(), cv::CAP_FFMPEG, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 25.0,
                           cv::Size(64, 48));
    if (!writer.isOpened())
        QSKIP("no MJPEG writer");
    for (int i = 0; i < 8; ++i) {
        cv::Mat frame(48, 64, CV_8UC3);
        cv::RNG(m_rng()).fill(frame, cv::RNG::UNIFORM, 0, 256);
        writer.write(frame);
    }
    writer.release();
    Run run = cli({"scope", "waveform", "--all-frames", clip});
    QCOMPARE(run.exitCode, 0);
    QJsonObject last = QJsonDocument::fromJson(run.out.trimmed().split('\n').last()).object();
    QCOMPARE(last["record"].toString(), QStringLiteral("summary"));
    QCOMPARE(last["records"].toInt(), 8);
    QCOMPARE(last["frames"].toInt(), 8);
    QCOMPARE(last["failed"].toInt(), 0);
    QByteArray bytes = readFile(clip);
    const QString cut = path("scope/cut.avi");
    QVERIFY(hostile::writeBytes(QFile::encodeName(cut), bytes.left(bytes.size() / 2)));
    run = cli({"scope", "waveform", "--all-frames", cut});
    QCOMPARE(run.exitCode, 1);
    last = QJsonDocument::fromJson(run.out.trimmed().split('\n').last()).object();
    QCOMPARE(last["record"].toString(), QStringLiteral("summary"));
    QCOMPARE(last["failed"].toInt(), 1);
    QVERIFY(last["frames"].toInt() < 8);
    QVERIFY2(run.err.contains("the output holds the"), run.err.constData());
    // --frame past the end of the cut file names the frame, not a place decoding stopped.
    run = cli({"scope", "waveform", "--frame", "7", cut});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(!run.err.contains("decoding stopped at frame 7"), run.err.constData());
    QVERIFY2(run.err.contains("frame 7"), run.err.constData());
}

// Issue 20, item 15: FFmpeg's own messages do not leak onto stderr; they are warnings of the file.
void TestCliHostile::decoderChatterBecomesWarnings()
{
    const QString clip = path("chatter/clip.avi");
    QDir().mkpath(path("chatter"));
    cv::VideoWriter writer(QFile::encodeName(clip).toStdString(), cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 10.0, cv::Size(32, 16));
    if (!writer.isOpened())
        QSKIP("no MJPEG writer");
    for (int i = 0; i < 4; ++i) {
        cv::Mat frame(16, 32, CV_8UC3);
        cv::RNG(m_rng()).fill(frame, cv::RNG::UNIFORM, 0, 256);
        writer.write(frame);
    }
    writer.release();
    // A Huffman table (DHT) whose length runs past its data: FFmpeg's MJPEG decoder complains.
    QByteArray bytes = readFile(clip);
    const qsizetype dht = bytes.indexOf("\xff\xc4", bytes.indexOf("movi"));
    QVERIFY(dht > 0);
    bytes[dht + 2] = char(0x7f);
    const QString bad = path("chatter/bad.avi");
    QVERIFY(hostile::writeBytes(QFile::encodeName(bad), bytes));
    const Run run = cli({"batch", "--cpu", "-q", bad});
    QVERIFY2(!run.err.contains("[mjpeg @"), run.err.constData());
    QVERIFY2(run.err.contains("warning: " + QFile::encodeName(bad) + ": the decoder (FFmpeg) reports: mjpeg: "), run.err.constData());
}

// Issue 20, item 16: the small ones.
void TestCliHostile::smallOnes_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    const QString a = image("small/a.png");
    QDir().mkpath(path("small"));
    QByteArray fiveChannels = hostile::npy("<u1", "(4, 4, 5)", 80, m_rng);
    QVERIFY(hostile::writeBytes(QFile::encodeName(path("small/five.npy")), fiveChannels));
    QVERIFY(hostile::writeBytes(QFile::encodeName(path("small/fields.npy")),
                                hostile::npy("[('x', '<f4'), ('y', '<f4')]", "(4,)", 32, m_rng, false)));
    image("small/one/x.png");
    image("small/two/x.png");
    QTest::newRow("batch -o ''") << QStringList{"batch", "--cpu", a, "-o", ""} << 2 << "--output takes a name";
    QTest::newRow("merge -o ''") << QStringList{"merge", path("small/none.jsonl"), "-o", ""} << 2 << "--output takes a name";
    QTest::newRow("inputs counted of those found") << QStringList{"batch", "--cpu", a, path("small/gone.png")} << 1
                                                   << "counted 1 of 2 input(s)";
    QTest::newRow("plot names of folders collide") << QStringList{"batch", "--cpu", "--plot-dir", path("small-plots"),
                                                                 path("small/one"), path("small/two")}
                                                   << 2 << "give one folder above both";
    QTest::newRow("plot names of files collide") << QStringList{"batch", "--cpu", "--plot-dir", path("small-plots"),
                                                               path("small/one/x.png"), path("small/two/x.png")}
                                                 << 2 << "give the folders that hold them";
    QTest::newRow(".npy of shape (4, 4, 5)") << QStringList{"batch", "--cpu", path("small/five.npy")} << 1 << "has 5 channels";
    QTest::newRow(".npy of a structured dtype") << QStringList{"batch", "--cpu", path("small/fields.npy")} << 1
                                                << "a structured dtype (fields [('x', '<f4'), ('y', '<f4')]) is not counted";
}

void TestCliHostile::smallOnes()
{
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    const Run run = cli(args);
    QCOMPARE(run.exitCode, exitCode);
    QVERIFY2(run.err.contains(message.toUtf8()), run.err.constData());
}

QTEST_GUILESS_MAIN(TestCliHostile)
#include "tst_cli_hostile.moc"
