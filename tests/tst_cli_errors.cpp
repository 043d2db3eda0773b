// The command line's errors carry their kind from where they are made, so exit codes and
// callers decide by ErrorKind, never by the words of a message (issue 17).
#include "app/cli/OutputSink.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

Q_DECLARE_METATYPE(ErrorKind)

class TestCliErrors : public QObject {
    Q_OBJECT

private slots:
    void outputSinkKinds_data();
    void outputSinkKinds();

private:
    QString path(const QString& name) const { return m_dir.filePath(name); }

    QTemporaryDir m_dir;
};

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

QTEST_GUILESS_MAIN(TestCliErrors)
#include "tst_cli_errors.moc"
