// Exports from the window: actions follow what is open, CSV/JSON/PNG written off the GUI thread
// and answered with exportFinished, the extension added when missing, failed writes reported,
// and a video's frame index recorded (frame 0 included).
#include "app/gui/MainWindow.h"
#include "widgets/HistogramView.h"

#include "TestSupport.h"

#include <QAction>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>

using namespace testsupport;

class TestExports : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void actionsFollowWhatIsOpen();
    void writesCsvJsonAndPlot();
    void extensionIsAddedWhenMissing_data();
    void extensionIsAddedWhenMissing();
    void failedWriteIsReported();
    void videoFrameZeroIsRecorded();

private:
    QString openRandomImage(int width, int height);
    Error runExport(const std::function<bool()>& start, QString* path = nullptr);

    QTemporaryDir m_dir;
    std::unique_ptr<MainWindow> m_window;
    std::mt19937_64 m_rng;
    cv::Mat m_image;   // the last image opened, as written
};

void TestExports::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    m_rng = seededRng();
    cv::theRNG().state = m_rng();
}

void TestExports::init()
{
    QSettings().clear();
    m_window = std::make_unique<MainWindow>();
    m_window->show();
}

void TestExports::cleanup() { m_window.reset(); }

QString TestExports::openRandomImage(int width, int height)
{
    m_image = cv::Mat(height, width, CV_8UC3);
    cv::randu(m_image, cv::Scalar::all(0), cv::Scalar::all(256));
    const QString path = m_dir.filePath(QStringLiteral("export%1x%2.png").arg(width).arg(height));
    if (!cv::imwrite(path.toStdString(), m_image))
        return {};
    QSignalSpy shown(m_window.get(), &MainWindow::snapshotShown);
    m_window->openPath(path);
    if (!shown.wait(20000) && shown.isEmpty())
        return {};
    return path;
}

Error TestExports::runExport(const std::function<bool()>& start, QString* path)
{
    QSignalSpy finished(m_window.get(), &MainWindow::exportFinished);
    if (!start())
        return Error::make(ErrorKind::InvalidInput, {}, QStringLiteral("not started"));
    if (!finished.wait(20000) && finished.isEmpty())
        return Error::make(ErrorKind::WriteFailed, {}, QStringLiteral("no answer"));
    if (path)
        *path = finished.at(0).at(0).toString();
    return finished.at(0).at(1).value<Error>();
}

void TestExports::actionsFollowWhatIsOpen()
{
    QCOMPARE(m_window->exportActions().size(), 3);
    for (QAction* a : m_window->exportActions())
        QVERIFY2(!a->isEnabled(), qPrintable(a->text()));
    const QString csv = m_dir.filePath("nothing.csv");
    QVERIFY(!m_window->exportCsv(csv));
    QVERIFY(!m_window->exportJson(m_dir.filePath("nothing.json")));
    QVERIFY(!m_window->exportPlot(m_dir.filePath("nothing.png")));
    QVERIFY(!QFile::exists(csv));
    QVERIFY(!openRandomImage(20, 10).isEmpty());
    for (QAction* a : m_window->exportActions())
        QVERIFY2(a->isEnabled(), qPrintable(a->text()));
}

void TestExports::writesCsvJsonAndPlot()
{
    const QString source = openRandomImage(50, 40);
    QVERIFY(!source.isEmpty());
    // The oracle: red counts of the image as written (OpenCV's BGR: plane 2).
    std::vector<qint64> red(256, 0);
    for (int y = 0; y < m_image.rows; ++y)
        for (int x = 0; x < m_image.cols; ++x)
            ++red[m_image.at<cv::Vec3b>(y, x)[2]];

    const QString csv = m_dir.filePath("h.csv"), json = m_dir.filePath("h.json"), png = m_dir.filePath("h.png");
    QVERIFY(!runExport([&] { return m_window->exportCsv(csv); }).isError());
    QVERIFY(!runExport([&] { return m_window->exportJson(json); }).isError());
    QVERIFY(!runExport([&] { return m_window->exportPlot(png, QSize(900, 420)); }).isError());

    QFile c(csv);
    QVERIFY(c.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(c.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 5);  // header, R, G, B, luma
    QVERIFY(lines[1].contains(",R,u8,256,"));
    QVERIFY(lines[1].endsWith("," + QString::number(red[255])));

    QFile j(json);
    QVERIFY(j.open(QIODevice::ReadOnly));
    const QJsonArray records = QJsonDocument::fromJson(j.readAll()).array();
    QCOMPARE(records.size(), 4);
    const QJsonObject r = records[0].toObject();
    QCOMPARE(r["channel"].toString(), QStringLiteral("R"));
    QCOMPARE(r["file"].toString(), source);
    QVERIFY(!r.contains("frame"));   // a still image has no frame index
    const QJsonArray counts = r["counts"].toArray();
    QCOMPARE(counts.size(), 256);
    for (int v = 0; v < 256; ++v)
        QCOMPARE(counts[v].toInteger(), red[std::size_t(v)]);

    const QImage plot(png);
    QVERIFY(!plot.isNull());
    // The chosen size, axes included: the plot equals the view painted at that size.
    QCOMPARE(plot.size(), QSize(900, 420));
    QCOMPARE(plot.convertToFormat(QImage::Format_ARGB32), m_window->histogramView()->render(QSize(900, 420)).convertToFormat(QImage::Format_ARGB32));
}

void TestExports::extensionIsAddedWhenMissing_data()
{
    QTest::addColumn<QString>("format");
    QTest::newRow("plot gets .png") << "png";
    QTest::newRow("CSV gets .csv") << "csv";
    QTest::newRow("JSON gets .json") << "json";
}

void TestExports::extensionIsAddedWhenMissing()
{
    QFETCH(QString, format);
    QVERIFY(!openRandomImage(16, 12).isEmpty());
    const QString bare = m_dir.filePath("bare_" + format);
    QString written;
    const Error error = runExport(
        [&] {
            return format == "png" ? m_window->exportPlot(bare) : format == "csv" ? m_window->exportCsv(bare) : m_window->exportJson(bare);
        },
        &written);
    QVERIFY2(!error.isError(), qPrintable(error.message()));
    QCOMPARE(written, bare + "." + format);
    QVERIFY(QFile::exists(written));
    QVERIFY(!QFile::exists(bare));
    if (format == "png")
        QVERIFY(!QImage(written).isNull());
}

void TestExports::failedWriteIsReported()
{
    QVERIFY(!openRandomImage(16, 12).isEmpty());
    const QString path = m_dir.filePath("no/such/folder/h.json");
    QSignalSpy errors(m_window.get(), &MainWindow::errorShown);
    const Error error = runExport([&] { return m_window->exportJson(path); });
    QCOMPARE(error.kind, ErrorKind::WriteFailed);
    QCOMPARE(error.source, path);
    QCOMPARE(errors.count(), 1);
    QVERIFY2(m_window->errorText().startsWith(path), qPrintable(m_window->errorText()));
    // The next successful export clears it.
    QVERIFY(!runExport([&] { return m_window->exportJson(m_dir.filePath("ok.json")); }).isError());
    QVERIFY(m_window->errorText().isEmpty());
}

void TestExports::videoFrameZeroIsRecorded()
{
    const QString path = m_dir.filePath("three.avi");
    {
        cv::VideoWriter writer(path.toStdString(), cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 10.0, cv::Size(32, 24));
        if (!writer.isOpened())
            QSKIP("no MJPEG/AVI writer in this OpenCV build");
        for (int i = 0; i < 3; ++i)
            writer.write(cv::Mat(24, 32, CV_8UC3, cv::Scalar(50 * i, 100, 200)));
    }
    QSignalSpy shown(m_window.get(), &MainWindow::snapshotShown);
    m_window->openPath(path);
    QTRY_VERIFY_WITH_TIMEOUT(!shown.isEmpty(), 20000);
    QCOMPARE(m_window->lastSnapshot()->frameIndex, qint64(0));
    const QString json = m_dir.filePath("frame0.json");
    QVERIFY(!runExport([&] { return m_window->exportJson(json); }).isError());
    QFile j(json);
    QVERIFY(j.open(QIODevice::ReadOnly));
    const QJsonArray records = QJsonDocument::fromJson(j.readAll()).array();
    QVERIFY(!records.isEmpty());
    for (const QJsonValue r : records)
        QCOMPARE(r.toObject()["frame"].toInteger(-1), qint64(0));
}

QTEST_MAIN(TestExports)
#include "tst_exports.moc"
