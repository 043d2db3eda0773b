// Issue 20, "Start-up": the programs link neither OpenCV's videoio (GStreamer, FFmpeg and their
// codecs) nor its imgcodecs (GDAL, GDCM, Poppler...); the codec modules that do are loaded when a
// file needs them (io/CodecModule.h). Checked on what ld.so initialises (LD_DEBUG=libs on
// stderr) in histoscope-cli runs on files the test makes: --help loads no codec, a PNG no video
// library, and a video still counts. A module that cannot be found or loaded is an error naming
// the file and the module, not a crash. Not timed: the count of libraries is what is stable.
#include <QDir>
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

class TestStartup : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void loadsOnlyWhatTheFileNeeds_data();
    void loadsOnlyWhatTheFileNeeds();
    void unloadableModuleIsAnError_data();
    void unloadableModuleIsAnError();

private:
    struct Run {
        int exitCode = -1;
        QByteArray out;
        QByteArray err;
    };
    Run cli(const QStringList& args, const QProcessEnvironment& env);
    QString path(const QString& name) const { return m_dir.filePath(name); }

    QTemporaryDir m_dir;
};

TestStartup::Run TestStartup::cli(const QStringList& args, const QProcessEnvironment& env)
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(HISTOSCOPE_CLI), args);
    if (!p.waitForFinished(120000))
        return {};
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(), p.readAllStandardError()};
}

void TestStartup::initTestCase()
{
    QVERIFY(m_dir.isValid());
    cv::Mat image(24, 32, CV_8UC3);
    for (int y = 0; y < image.rows; ++y)
        for (int x = 0; x < image.cols; ++x)
            image.at<cv::Vec3b>(y, x) = cv::Vec3b(uchar(x * 8), uchar(y * 10), uchar(x + y));
    QVERIFY(cv::imwrite(path("still.png").toStdString(), image));
    cv::VideoWriter writer(path("clip.avi").toStdString(), cv::CAP_OPENCV_MJPEG, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'),
                           25.0, image.size());
    QVERIFY(writer.isOpened());
    for (int i = 0; i < 5; ++i)
        writer.write(image);
    writer.release();
    QFile garbage(path("broken/libhistoscope_video.so"));
    QVERIFY(QDir().mkpath(path("broken")));
    QVERIFY(garbage.open(QIODevice::WriteOnly));
    QVERIFY(garbage.write("not a shared object\n") > 0);
    QVERIFY(garbage.flush());
}

void TestStartup::loadsOnlyWhatTheFileNeeds_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QStringList>("absent");   // no initialised library's name contains one of these
    QTest::addColumn<QStringList>("present");  // and one contains each of these
    const QStringList video{"libopencv_videoio", "libgst", "libavcodec", "libavformat", "libhistoscope_video"};
    const QStringList images{"libopencv_imgcodecs", "libgdal", "libhistoscope_image"};
    QTest::newRow("--help") << QStringList{"--help"} << video + images << QStringList{};
    QTest::newRow("--version") << QStringList{"--version"} << video + images << QStringList{};
    QTest::newRow("a PNG") << QStringList{"histogram", path("still.png")} << video
                           << QStringList{"libhistoscope_image", "libopencv_imgcodecs"};
    QTest::newRow("a PNG in batch") << QStringList{"batch", path("still.png"), "-o", path("still.jsonl")} << video
                                    << QStringList{"libhistoscope_image"};
    QTest::newRow("an AVI") << QStringList{"batch", path("clip.avi"), "--per-frame", "-o", path("clip.jsonl")} << QStringList{}
                            << QStringList{"libhistoscope_video", "libopencv_videoio"};
}

void TestStartup::loadsOnlyWhatTheFileNeeds()
{
    QFETCH(QStringList, args);
    QFETCH(QStringList, absent);
    QFETCH(QStringList, present);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("HISTOSCOPE_MODULE_DIR"));
    env.insert(QStringLiteral("LD_DEBUG"), QStringLiteral("libs"));
    const Run run = cli(args, env);
    QVERIFY2(run.exitCode == 0, run.err.right(2000).constData());
    QStringList loaded;
    static const QRegularExpression init(QStringLiteral("calling init: (\\S+)"));
    for (auto it = init.globalMatch(QString::fromLocal8Bit(run.err)); it.hasNext();)
        loaded << it.next().captured(1).section(QLatin1Char('/'), -1);
    QVERIFY2(loaded.size() > 3, "LD_DEBUG=libs said nothing: the check would be void");
    for (const QString& name : absent)
        QVERIFY2(loaded.filter(name).isEmpty(), qPrintable(name + QStringLiteral(" was loaded: ") + loaded.filter(name).join(' ')));
    for (const QString& name : present)
        QVERIFY2(!loaded.filter(name).isEmpty(), qPrintable(name + QStringLiteral(" was not loaded")));
    if (args.contains(path("clip.avi"))) {
        // The video was counted: one record per frame, each of the picture's 768 pixels.
        QFile out(path("clip.jsonl"));
        QVERIFY(out.open(QIODevice::ReadOnly));
        int frames = 0;
        for (const QByteArray& line : out.readAll().split('\n')) {
            const QJsonObject record = QJsonDocument::fromJson(line).object();
            if (record.value("record").toString() == QLatin1String("histogram") && record.value("channel").toString() == "R") {
                ++frames;
                qint64 total = 0;
                for (const auto& c : record.value("counts").toArray())
                    total += c.toInteger();
                QCOMPARE(total, qint64(24 * 32));
            }
        }
        QCOMPARE(frames, 5);
    }
}

void TestStartup::unloadableModuleIsAnError_data()
{
    QTest::addColumn<QString>("moduleDir");
    QTest::addColumn<QString>("cause");
    QTest::newRow("no module") << path("nowhere") << QStringLiteral("the codec module libhistoscope_video.so is not installed (looked for %1)")
                                                          .arg(path("nowhere/libhistoscope_video.so"));
    QTest::newRow("not a shared object") << path("broken") << QStringLiteral("the codec module %1 cannot be loaded: ")
                                                                  .arg(path("broken/libhistoscope_video.so"));
}

void TestStartup::unloadableModuleIsAnError()
{
    QFETCH(QString, moduleDir);
    QFETCH(QString, cause);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("HISTOSCOPE_MODULE_DIR"), moduleDir);
    const Run run = cli({"histogram", path("clip.avi")}, env);
    QCOMPARE(run.exitCode, 1);  // a file that cannot be read, not a crash
    const QString err = QString::fromLocal8Bit(run.err);
    QVERIFY2(err.contains(path("clip.avi") + QStringLiteral(": ") + cause), qPrintable(err));
}

QTEST_GUILESS_MAIN(TestStartup)
#include "tst_startup.moc"
