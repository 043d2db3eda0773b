// The command line's errors carry their kind from where they are made, so exit codes and
// callers decide by ErrorKind, never by the words of a message (issue 17).
#include "app/cli/BatchInputs.h"
#include "app/cli/FileCounter.h"
#include "app/cli/OutputSink.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

Q_DECLARE_METATYPE(ErrorKind)

class TestCliErrors : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void inputKinds_data();
    void inputKinds();
    void outputConflictIsUsage();
    void outputSinkKinds_data();
    void outputSinkKinds();
    void fileJobKinds_data();
    void fileJobKinds();

private:
    QString path(const QString& name) const { return m_dir.filePath(name); }

    QTemporaryDir m_dir;
};

void TestCliErrors::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QVERIFY(QDir().mkpath(path("in/sub")));
    QFile png(path("in/a.png"));
    QVERIFY(png.open(QIODevice::WriteOnly));
    png.close();
    QVERIFY(QDir().mkpath(path("nothing")));
    QVERIFY(::mkfifo(QFile::encodeName(path("pipe.png")).constData(), 0644) == 0);
    QVERIFY(QFile::link(path("in/none.png"), path("in/broken.png")));
    QVERIFY(QFile::link(path("pipe.png"), path("in/out.png")));
    QVERIFY(QFile::link(path("loop-b.png"), path("loop-a.png")));
    QVERIFY(QFile::link(path("loop-a.png"), path("loop-b.png")));
}

// Each path expandInputs cannot take is an Error that names it, with the kind of the fault.
void TestCliErrors::inputKinds_data()
{
    QTest::addColumn<QString>("named");
    QTest::addColumn<QString>("failed");
    QTest::addColumn<ErrorKind>("kind");
    QTest::addColumn<QString>("cause");
    QTest::newRow("missing") << "gone.png" << "gone.png" << ErrorKind::Missing << "no such file or folder";
    QTest::newRow("a FIFO") << "pipe.png" << "pipe.png" << ErrorKind::NotAFile << "not a regular file (a FIFO)";
    QTest::newRow("a loop of links") << "loop-a.png" << "loop-a.png" << ErrorKind::Unreadable << "a loop of symbolic links";
    QTest::newRow("a folder with nothing to count") << "nothing" << "nothing" << ErrorKind::Empty
                                                    << "a folder with no file to count (-r descends into its sub-folders)";
    QTest::newRow("a broken link in a folder") << "in" << "in/broken.png" << ErrorKind::Missing
                                               << "a broken symbolic link (no such file or folder)";
    QTest::newRow("a link out of the folder") << "in" << "in/out.png" << ErrorKind::InvalidInput
                                              << "a symbolic link that leads out of";
}

void TestCliErrors::inputKinds()
{
    QFETCH(QString, named);
    QFETCH(QString, failed);
    QFETCH(ErrorKind, kind);
    QFETCH(QString, cause);
    const ExpandedInputs inputs = expandInputs({path(named)}, BatchInputOptions{});
    const auto it = std::find_if(inputs.failed.cbegin(), inputs.failed.cend(),
                                 [&](const Error& e) { return e.source == path(failed); });
    QVERIFY2(it != inputs.failed.cend(), qPrintable(failed));
    QCOMPARE(int(it->kind), int(kind));
    QVERIFY2(it->cause.startsWith(cause), qPrintable(it->cause));
    QCOMPARE(it->message(), path(failed) + QStringLiteral(": ") + it->cause);  // as stderr says it
}

void TestCliErrors::outputConflictIsUsage()
{
    const ExpandedInputs inputs = expandInputs({path("in")}, BatchInputOptions{});
    const Error inside = outputConflict(path("in/out.jsonl"), false, inputs, {path("in")}, false);
    QCOMPARE(int(inside.kind), int(ErrorKind::Usage));
    QCOMPARE(inside.message(), QStringLiteral("%1 is inside the input folder %2, so a later run would read it as an input")
                                   .arg(path("in/out.jsonl"), inputs.walkedFolders.first()));
    QVERIFY(!outputConflict(path("elsewhere.jsonl"), false, inputs, {path("in")}, false).isError());
}

void TestCliErrors::outputSinkKinds_data()
{
    QTest::addColumn<QString>("setup");
    QTest::addColumn<ErrorKind>("kind");
    QTest::addColumn<QString>("cause");
    QTest::newRow("held by another run") << "locked" << ErrorKind::Locked << "another run is writing this file";
    QTest::newRow("a folder") << "folder" << ErrorKind::WriteFailed << "cannot be written";
    QTest::newRow("in a missing folder") << "missing" << ErrorKind::WriteFailed << "cannot be written";
}

void TestCliErrors::outputSinkKinds()
{
    QFETCH(QString, setup);
    QFETCH(ErrorKind, kind);
    QFETCH(QString, cause);
    QString target = path(setup + ".jsonl");
    int holder = -1;
    if (setup == "locked") {
        // flock locks belong to an open file description: this one stands for the other run.
        holder = ::open(QFile::encodeName(target).constData(), O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
        QVERIFY(holder >= 0);
        QVERIFY(::flock(holder, LOCK_EX | LOCK_NB) == 0);
    } else if (setup == "folder") {
        QVERIFY(QDir().mkpath(target));
    } else {
        target = path("no/such/folder/out.jsonl");
    }
    OutputSink sink;
    Error error;
    QVERIFY(!sink.open(target, error));
    if (holder >= 0)
        ::close(holder);
    QCOMPARE(int(error.kind), int(kind));
    QCOMPARE(error.source, target);
    QVERIFY2(error.cause.contains(cause), qPrintable(error.cause));
}

// A batch file's error reaches the main thread as the Error its worker made.
void TestCliErrors::fileJobKinds_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<bool>("strict");
    QTest::addColumn<ErrorKind>("kind");
    QTest::addColumn<QString>("cause");
    QTest::newRow("counted") << "ok.raw" << false << ErrorKind::None << "";
    QTest::newRow("missing") << "gone.raw" << false << ErrorKind::Missing << "";
    QTest::newRow("a warning under --strict") << "ok.raw" << true << ErrorKind::InvalidInput
                                              << "failed under --strict: ";
}

void TestCliErrors::fileJobKinds()
{
    QFETCH(QString, file);
    QFETCH(bool, strict);
    QFETCH(ErrorKind, kind);
    QFETCH(QString, cause);
    QFile raw(path("ok.raw"));
    QVERIFY(raw.open(QIODevice::WriteOnly));
    raw.write(QByteArray(4 * 2 * 2, '\1'));  // 4x2 signed 16-bit samples
    raw.close();
    BatchOptions options;
    options.histogram.counting.useGpu = false;
    options.histogram.strict = strict;
    rawformat::RawSpec spec;
    spec.width = 4;
    spec.height = 2;
    spec.type = rawformat::RawType::I16;
    options.histogram.raw = spec;
    FileJob job(InputFile{path(file), file, true, QString()});
    countFile(job, options, {});
    const Error error = job.error();
    QCOMPARE(int(error.kind), int(kind));
    if (kind == ErrorKind::None)
        return;
    QCOMPARE(error.source, path(file));
    QVERIFY2(error.cause.startsWith(cause), qPrintable(error.cause));
    if (strict)
        QVERIFY2(error.cause.endsWith("; no record written"), qPrintable(error.cause));
}

QTEST_GUILESS_MAIN(TestCliErrors)
#include "tst_cli_errors.moc"
