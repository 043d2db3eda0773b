// The one atomic writer (io/AtomicFile.h) and the memory budget's units (io/MemoryBudget.h):
// whole files or nothing, no temporary left behind, the file and the cause named on failure;
// byte counts parsed and printed as the command line documents them.
#include "io/AtomicFile.h"
#include "io/MemoryBudget.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <random>
#include <thread>

class TestAtomicFile : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void writesTheWholeFile_data();
    void writesTheWholeFile();
    void failureNamesTheFileAndLeavesNothing_data();
    void failureNamesTheFileAndLeavesNothing();
    void twoWritersLeaveOneWholeFile();
    void makeFoldersMakesEveryLevel();
    void parseBytes_data();
    void parseBytes();
    void formatBytes_data();
    void formatBytes();
    void defaultBudgetIsHalfTheMachine();

private:
    QByteArray randomBytes(qsizetype size);
    QStringList leftovers() const;   // temporaries in the folder
    QTemporaryDir m_dir;
    std::mt19937_64 m_rng{std::random_device{}()};
};

void TestAtomicFile::initTestCase() { QVERIFY(m_dir.isValid()); }

QByteArray TestAtomicFile::randomBytes(qsizetype size)
{
    QByteArray bytes(size, Qt::Uninitialized);
    for (char& c : bytes)
        c = char(m_rng());
    return bytes;
}

QStringList TestAtomicFile::leftovers() const
{
    return QDir(m_dir.path()).entryList({QStringLiteral("*.tmp-*")}, QDir::Files | QDir::Hidden);
}

void TestAtomicFile::writesTheWholeFile_data()
{
    QTest::addColumn<qsizetype>("size");
    QTest::addColumn<bool>("replace");   // an older file of another size is there first
    QTest::newRow("empty") << qsizetype(0) << false;
    QTest::newRow("one byte") << qsizetype(1) << false;
    QTest::newRow("3 MB over a larger file") << qsizetype(3'000'017) << true;
}

void TestAtomicFile::writesTheWholeFile()
{
    QFETCH(qsizetype, size);
    QFETCH(bool, replace);
    const QString path = m_dir.filePath(QStringLiteral("whole-%1.bin").arg(size));
    if (replace)
        QVERIFY(!writeFileAtomically(path, randomBytes(size * 2 + 5)).isError());
    const QByteArray bytes = randomBytes(size);
    const Error error = writeFileAtomically(path, bytes);
    QVERIFY2(!error.isError(), qPrintable(error.message()));
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), bytes);
    QCOMPARE(QFileInfo(path).permissions() & (QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup | QFile::ReadOther),
             QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup | QFile::ReadOther);
    QVERIFY(leftovers().isEmpty());
}

void TestAtomicFile::failureNamesTheFileAndLeavesNothing_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("cause");
    QTest::newRow("no such folder") << QStringLiteral("missing/folder/out.json") << QStringLiteral("cannot be written");
    QTest::newRow("a folder in the way") << QStringLiteral("taken") << QStringLiteral("could not be written whole");
}

void TestAtomicFile::failureNamesTheFileAndLeavesNothing()
{
    QFETCH(QString, name);
    QFETCH(QString, cause);
    QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("taken/inside")));
    const QString path = m_dir.filePath(name);
    const Error error = writeFileAtomically(path, randomBytes(100));
    QCOMPARE(error.kind, ErrorKind::WriteFailed);
    QCOMPARE(error.source, path);
    QVERIFY2(error.cause.contains(cause), qPrintable(error.cause));
    QVERIFY(leftovers().isEmpty());
    QVERIFY(QFileInfo(m_dir.filePath(QStringLiteral("taken/inside"))).isDir());   // what was there is untouched
}

// Two writers of one name: the reader finds one of the two files, whole, never a mix.
void TestAtomicFile::twoWritersLeaveOneWholeFile()
{
    const QString path = m_dir.filePath(QStringLiteral("raced.bin"));
    const QByteArray a = randomBytes(2'000'000), b = randomBytes(1'500'000);
    Error ea, eb;
    std::thread first([&] { for (int i = 0; i < 5; ++i) ea = writeFileAtomically(path, a); });
    std::thread second([&] { for (int i = 0; i < 5; ++i) eb = writeFileAtomically(path, b); });
    first.join();
    second.join();
    QVERIFY(!ea.isError() && !eb.isError());
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray got = f.readAll();
    QVERIFY(got == a || got == b);
    QVERIFY(leftovers().isEmpty());
}

void TestAtomicFile::makeFoldersMakesEveryLevel()
{
    const QString deep = m_dir.filePath(QStringLiteral("a/b/c/d"));
    QVERIFY(!makeFolders(deep).isError());
    QVERIFY(QFileInfo(deep).isDir());
    QVERIFY(!makeFolders(deep).isError());   // already there: fine
    const QString file = m_dir.filePath(QStringLiteral("plain"));
    QVERIFY(!writeFileAtomically(file, "x").isError());
    const Error error = makeFolders(file + QStringLiteral("/sub"));
    QCOMPARE(error.kind, ErrorKind::WriteFailed);
    QVERIFY(error.message().contains(file));
}

void TestAtomicFile::parseBytes_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("bytes");   // -1: refused
    QTest::newRow("plain number") << "1000000" << qint64(1000000);
    QTest::newRow("kilo") << "64k" << qint64(64000);
    QTest::newRow("mega with B") << "512MB" << qint64(512000000);
    QTest::newRow("giga, a fraction") << "1.5G" << qint64(1500000000);
    QTest::newRow("tera, lower case b, spaces") << " 2 tb " << qint64(2000000000000);
    QTest::newRow("zero") << "0" << qint64(-1);
    QTest::newRow("negative") << "-5M" << qint64(-1);
    QTest::newRow("words") << "lots" << qint64(-1);
    QTest::newRow("exponent") << "1e9" << qint64(-1);
    QTest::newRow("unknown unit") << "3X" << qint64(-1);
    QTest::newRow("past 64 bits") << "20000000T" << qint64(-1);
    QTest::newRow("empty") << "" << qint64(-1);
}

void TestAtomicFile::parseBytes()
{
    QFETCH(QString, text);
    QFETCH(qint64, bytes);
    const std::optional<std::uint64_t> got = ::parseBytes(text);
    if (bytes < 0) {
        QVERIFY2(!got, qPrintable(QString::number(got.value_or(0))));
    } else {
        QVERIFY(got);
        QCOMPARE(qint64(*got), bytes);
    }
}

void TestAtomicFile::formatBytes_data()
{
    QTest::addColumn<qint64>("bytes");
    QTest::addColumn<QString>("text");
    QTest::newRow("zero") << qint64(0) << "0 bytes";
    QTest::newRow("below a kilo") << qint64(999) << "999 bytes";
    QTest::newRow("one kilo") << qint64(1000) << "1.0 kB";
    QTest::newRow("mega") << qint64(149'000'000) << "149.0 MB";
    QTest::newRow("giga, rounded") << qint64(1'550'000'000) << "1.6 GB";
}

void TestAtomicFile::formatBytes()
{
    QFETCH(qint64, bytes);
    QFETCH(QString, text);
    QCOMPARE(::formatBytes(std::uint64_t(bytes)), text);
}

void TestAtomicFile::defaultBudgetIsHalfTheMachine()
{
    // The oracle: the kernel's own count of the machine's memory.
    QFile meminfo(QStringLiteral("/proc/meminfo"));
    QVERIFY(meminfo.open(QIODevice::ReadOnly));
    qint64 kib = 0;
    for (const QByteArray& line : meminfo.readAll().split('\n'))
        if (line.startsWith("MemTotal:"))
            kib = line.mid(9).trimmed().split(' ').first().toLongLong();
    QVERIFY(kib > 0);
    QCOMPARE(machineMemoryBytes(), std::uint64_t(kib) * 1024);
    QCOMPARE(defaultMemoryBudget(), machineMemoryBytes() / 2);
}

QTEST_GUILESS_MAIN(TestAtomicFile)
#include "tst_atomicfile.moc"
