// The README's command-line examples, run as they are written (issue 20): every ```sh block of
// its "Command line", "Batch processing" and "Splitting a folder" sections runs in a folder of
// files made here, with histoscope-cli first on PATH, and must succeed; the ```python blocks
// (pandas, polars) run after them where Python has those modules, and are skipped otherwise;
// the pandas block's data frames must hold no summary row and keep the counts int64.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>

#include "gpu/testing/TestCases.h"

#include <random>

class TestCliReadme : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void examplesRun_data();
    void examplesRun();

private:
    bool writeImage(const QString& name, int width, int height, int type);
    QProcessEnvironment environment() const;

    QTemporaryDir m_dir;
    std::mt19937_64 m_rng;
    bool m_haveVideo = false;
};

bool TestCliReadme::writeImage(const QString& name, int width, int height, int type)
{
    const QString file = m_dir.filePath(name);
    QDir().mkpath(QFileInfo(file).path());
    cv::Mat m(height, width, type);
    if (CV_MAT_DEPTH(type) == CV_32F)
        cv::RNG(m_rng()).fill(m, cv::RNG::UNIFORM, 0.0, 1.0);
    else
        cv::RNG(m_rng()).fill(m, cv::RNG::UNIFORM, 0, CV_MAT_DEPTH(type) == CV_16U ? 65536 : 256);
    return cv::imwrite(QFile::encodeName(file).toStdString(), m);
}

QProcessEnvironment TestCliReadme::environment() const
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("PATH", m_dir.filePath("bin") + ':' + env.value("PATH"));
    env.insert("SLURM_ARRAY_TASK_ID", "0");
    return env;
}

void TestCliReadme::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_rng.seed(hs::testing::runSeed());
    // The files the examples name, made fresh: photos, 8-bit and float TIFF scans, a video,
    // 1-D u32 keys and a folder of frames to shard.
    QVERIFY(QDir().mkpath(m_dir.filePath("bin")));
    QVERIFY(QFile::link(QStringLiteral(HISTOSCOPE_CLI), m_dir.filePath("bin/histoscope-cli")));
    QVERIFY(writeImage("photo.jpg", 64, 40, CV_8UC3));
    QVERIFY(writeImage("photos/a.png", 33, 21, CV_8UC3));
    QVERIFY(writeImage("photos/b.jpg", 17, 30, CV_8UC3));
    QVERIFY(writeImage("photos/trip/c.png", 20, 20, CV_8UC3));
    QVERIFY(writeImage("scans/a.tif", 24, 16, CV_32FC1));
    QVERIFY(writeImage("scans/b.tif", 24, 16, CV_16UC1));
    for (int i = 0; i < 5; ++i)
        QVERIFY(writeImage(QStringLiteral("frames/%1.png").arg(i), 16, 16, CV_8UC1));
    QByteArray keys;
    std::uniform_int_distribution<quint32> key(0, 40000);
    for (int i = 0; i < 100000; ++i) {
        const quint32 k = key(m_rng);
        keys.append(reinterpret_cast<const char*>(&k), 4);
    }
    QFile tokens(m_dir.filePath("tokens.bin"));
    QVERIFY(tokens.open(QIODevice::WriteOnly));
    tokens.write(keys);
    tokens.close();
    cv::VideoWriter writer(QFile::encodeName(m_dir.filePath("clip.avi")).toStdString(), cv::VideoWriter::fourcc('M', 'J', 'P', 'G'),
                           10.0, cv::Size(32, 24));
    m_haveVideo = writer.isOpened();
    for (int i = 0; m_haveVideo && i < 6; ++i) {
        cv::Mat frame(24, 32, CV_8UC3);
        cv::RNG(m_rng()).fill(frame, cv::RNG::UNIFORM, 0, 256);
        writer.write(frame);
    }
}

void TestCliReadme::examplesRun_data()
{
    QTest::addColumn<QString>("language");
    QTest::addColumn<QString>("code");
    QFile readme(QStringLiteral(HISTOSCOPE_SOURCE_DIR "/README.md"));
    QVERIFY(readme.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(readme.readAll());
    const qsizetype from = text.indexOf("\n## Command line\n"), to = text.indexOf("\n## GPU self-check");
    QVERIFY(from > 0 && to > from);
    const QStringList lines = text.mid(from, to - from).split('\n');
    QString language, code, section;
    int shell = 0, python = 0;
    QList<QPair<QString, QString>> pythonBlocks;
    for (const QString& line : lines) {
        if (line.startsWith("## ") || line.startsWith("### "))
            section = line.section(' ', 1);
        if (language.isEmpty() && line.startsWith("```") && line.size() > 3) {
            language = line.mid(3).trimmed();
            code.clear();
            continue;
        }
        if (!language.isEmpty() && line.startsWith("```")) {
            const QString name = QStringLiteral("%1, %2 block %3").arg(section, language).arg(language == "sh" ? ++shell : ++python);
            if (language == "sh")
                QTest::newRow(qPrintable(name)) << language << code;
            else
                pythonBlocks << qMakePair(name, code);  // after the shell blocks, whose outputs they read
            language.clear();
            continue;
        }
        if (!language.isEmpty())
            code += line + '\n';
    }
    QVERIFY(shell >= 3);
    QVERIFY(python >= 1);
    for (const auto& [name, block] : pythonBlocks)
        QTest::newRow(qPrintable(name)) << "python" << block;
}

void TestCliReadme::examplesRun()
{
    QFETCH(QString, language);
    QFETCH(QString, code);
    if (code.contains("clip.avi") && !m_haveVideo)
        QSKIP("no MJPEG video writer here");
    QProcess p;
    p.setProcessEnvironment(environment());
    p.setWorkingDirectory(m_dir.path());
    if (language == "python") {
        // The system's Python, which has NumPy and pandas here, before whatever PATH finds first.
        const QString python = QFileInfo::exists("/usr/bin/python3") ? QStringLiteral("/usr/bin/python3") : QStringLiteral("python3");
        const QString module = code.contains("polars") ? QStringLiteral("polars") : QStringLiteral("pandas");
        QProcess probe;
        probe.start(python, {"-c", "import " + module});
        if (!probe.waitForFinished(60000) || probe.exitStatus() != QProcess::NormalExit || probe.exitCode() != 0)
            QSKIP(qPrintable(module + " is not installed here"));
        QString checked = code;
        if (module == "pandas")
            checked += QStringLiteral(
                "counts = [c for c in wide.columns if c[0] == 'c' and c[1:].isdigit()]\n"
                "assert len(counts) == 1024 and len(wide) == 2, (len(counts), len(wide))\n"
                "for name, frame in (('wide', wide), ('bins', bins), ('records', records)):\n"
                "    assert len(frame) > 0 and (frame['record'] == 'histogram').all(), (name, frame['record'].unique())\n"
                "bad = {c: str(wide[c].dtype) for c in counts + ['count', 'bins', 'below', 'above', 'nan'] if str(wide[c].dtype) != 'int64'}\n"
                "assert not bad, bad\n"
                "assert str(bins['count'].dtype) == 'int64' and str(bins['bin'].dtype) == 'int64', bins.dtypes\n"
                "assert str(records['bins'].dtype) == 'int64', records.dtypes\n");
        p.start(python, {"-c", checked});
    } else {
        // Each line must succeed, as a user typing them would see.
        p.start("/bin/sh", {"-e", "-c", code});
    }
    QVERIFY(p.waitForFinished(300000));
    const QByteArray err = p.readAllStandardError();
    QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0, qPrintable(code + "\n" + QString::fromUtf8(err)));
}

QTEST_GUILESS_MAIN(TestCliReadme)
#include "tst_cli_readme.moc"
