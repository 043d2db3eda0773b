// The desktop app on the offscreen platform: open, region of interest, settings round trip,
// compare strategies, a live stream from a generated video, equalization, export, bad files.
#include "widgets/BarChart.h"
#include "app/gui/EqualizeDialog.h"
#include "app/core/HistogramSettings.h"
#include "widgets/HistogramView.h"
#include "widgets/ImageCanvas.h"
#include "app/gui/MainWindow.h"
#include "app/gui/SettingsPanel.h"
#include "widgets/TablePanel.h"

#include "histoscope/HistogramEngine.h"

#include <QApplication>
#include <QSpinBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMimeData>
#include <QUrl>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>

#include <random>

class TestMainWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void opensImageAndCounts();
    void regionOfInterestIsFollowed();
    void settingsPanelDrivesTheHistogram();
    void compareStrategiesChecksEveryStrategy();
    void liveStreamFromGeneratedVideo();
    void badFileShowsError();
    void equalizeShowsAndSaves();
    void exportsCsvJsonAndPlot();
    void hoverReadout();
    void dropOpensFile();

private:
    QString writeImage(int width, int height, int type, const QString& name);
    bool waitForSnapshot(QSignalSpy& spy, std::function<bool(const HistogramSnapshot&)> accept);

    QTemporaryDir m_dir;
    std::unique_ptr<MainWindow> m_window;
    std::mt19937_64 m_rng{std::random_device{}()};
};

void TestMainWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
}

void TestMainWindow::init()
{
    QSettings().clear();
    m_window = std::make_unique<MainWindow>();
    m_window->show();
}

void TestMainWindow::cleanup() { m_window.reset(); }

QString TestMainWindow::writeImage(int width, int height, int type, const QString& name)
{
    cv::Mat m(height, width, type);
    cv::randu(m, cv::Scalar::all(0), cv::Scalar::all(CV_MAT_DEPTH(type) == CV_16U ? 65536 : 256));
    const QString path = m_dir.filePath(name);
    cv::imwrite(path.toStdString(), m);
    return path;
}

bool TestMainWindow::waitForSnapshot(QSignalSpy& spy, std::function<bool(const HistogramSnapshot&)> accept)
{
    for (int i = 0; i < 200; ++i) {
        if (spy.wait(100) || spy.count()) {
            spy.clear();
            if (m_window->lastSnapshot() && accept(*m_window->lastSnapshot()))
                return true;
        }
        if (m_window->lastSnapshot() && accept(*m_window->lastSnapshot()))
            return true;
    }
    return false;
}

void TestMainWindow::opensImageAndCounts()
{
    const QString path = writeImage(97, 61, CV_8UC3, "rgb.png");
    QSignalSpy shown(m_window.get(), &MainWindow::snapshotShown);
    m_window->openPath(path);
    QVERIFY(waitForSnapshot(shown, [](const HistogramSnapshot&) { return true; }));
    const HistogramDisplay& display = m_window->histogramView()->display();
    QCOMPARE(display.series.size(), 4);  // R, G, B and luma
    QCOMPARE(display.series[0].name, QStringLiteral("R"));
    QCOMPARE(display.series[3].name, QStringLiteral("luma"));
    double sum = 0;
    for (double c : display.series[0].counts)
        sum += c;
    QCOMPARE(sum, 97.0 * 61.0);
    TablePanel* stats = m_window->statisticsPanel();
    QCOMPARE(stats->cell(stats->rowOf("count"), 0), QStringLiteral("5917"));
    QVERIFY(!m_window->backendText().isEmpty());
    if (hs::HistogramEngine::cudaDeviceCount() == 0)
        QVERIFY2(m_window->backendText().contains("CPU"), qPrintable(m_window->backendText()));
    QVERIFY(m_window->recentFiles().first().endsWith("rgb.png"));
}

void TestMainWindow::regionOfInterestIsFollowed()
{
    QSignalSpy shown(m_window.get(), &MainWindow::snapshotShown);
    m_window->openPath(writeImage(120, 80, CV_16UC1, "gray16.png"));
    QVERIFY(waitForSnapshot(shown, [](const HistogramSnapshot& s) { return s.result.samples == 120 * 80; }));
    m_window->imageView()->setRoi(QRect(13, 7, 31, 17));
    QVERIFY(waitForSnapshot(shown, [](const HistogramSnapshot& s) { return s.result.samples == 31 * 17; }));
    const auto snapshot = m_window->lastSnapshot();
    QVERIFY(snapshot->roi.has_value());
    QCOMPARE(snapshot->roi->x, 13);
    m_window->imageView()->setRoi(QRect());
    QVERIFY(waitForSnapshot(shown, [](const HistogramSnapshot& s) { return s.result.samples == 120 * 80; }));
}

void TestMainWindow::settingsPanelDrivesTheHistogram()
{
    QSignalSpy shown(m_window.get(), &MainWindow::snapshotShown);
    m_window->openPath(writeImage(64, 48, CV_8UC1, "gray8.png"));
    QVERIFY(waitForSnapshot(shown, [](const HistogramSnapshot&) { return true; }));
    auto* bins = m_window->settingsPanel()->findChild<QSpinBox*>("bins");
    QVERIFY(bins);
    bins->setValue(16);
    QVERIFY(waitForSnapshot(shown, [](const HistogramSnapshot& s) { return s.result.channels[0].counts.size() == 16; }));
    QCOMPARE(m_window->histogramView()->display().series[0].counts.size(), 16);
    // Persisted: a new window starts with 16 bins.
    MainWindow second;
    QCOMPARE(second.settingsPanel()->settings().counting.bins, 16);
}

void TestMainWindow::compareStrategiesChecksEveryStrategy()
{
    QSignalSpy shown(m_window.get(), &MainWindow::snapshotShown);
    m_window->openPath(writeImage(200, 150, CV_8UC3, "compare.png"));
    QVERIFY(waitForSnapshot(shown, [](const HistogramSnapshot&) { return true; }));
    QSignalSpy compared(m_window.get(), &MainWindow::comparisonShown);
    m_window->compareStrategies();
    QVERIFY(compared.wait(30000));
    const QVector<Bar>& bars = m_window->comparisonChart()->bars();
    const int expected = hs::HistogramEngine::cudaDeviceCount() > 0 ? int(hs::allStrategies().size()) : 2;
    QCOMPARE(bars.size(), expected);
    for (const Bar& b : bars) {
        QVERIFY2(b.note.startsWith("exact"), qPrintable(b.label + ": " + b.note));
        QVERIFY(b.value > 0);
    }
}

void TestMainWindow::liveStreamFromGeneratedVideo()
{
    const QString path = m_dir.filePath("live.avi");
    {
        cv::VideoWriter writer(path.toStdString(), cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 30.0, cv::Size(80, 60));
        if (!writer.isOpened())
            QSKIP("no MJPEG/AVI writer in this OpenCV build");
        for (int i = 0; i < 20; ++i)
            writer.write(cv::Mat(60, 80, CV_8UC3, cv::Scalar(10 * i, 128, 255 - 10 * i)));
    }
    QSignalSpy shown(m_window.get(), &MainWindow::snapshotShown);
    QSignalSpy ended(m_window->media(), &MediaController::endOfStream);
    m_window->openPath(path);
    QVERIFY(waitForSnapshot(shown, [](const HistogramSnapshot&) { return true; }));
    m_window->media()->play();
    QTRY_VERIFY_WITH_TIMEOUT(ended.count() > 0, 20000);
    // Every frame was decoded; the ones the GUI never showed are counted as dropped.
    QCOMPARE(m_window->media()->deliveredFrames(), 20);
    QVERIFY(m_window->media()->droppedFrames() >= 0);
    QTRY_VERIFY(m_window->lastSnapshot()->frame.width() == 80);
    // Pause and step: a paused video steps one frame at a time.
    m_window->media()->seek(3);
    QVERIFY(waitForSnapshot(shown, [](const HistogramSnapshot&) { return true; }));
    QVERIFY(!m_window->media()->isPlaying());
}

void TestMainWindow::badFileShowsError()
{
    const QString path = m_dir.filePath("broken.png");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("\x89PNG\r\n\x1a\nthis is not really a png");
    f.close();
    QSignalSpy errors(m_window.get(), &MainWindow::errorShown);
    m_window->openPath(path);
    QVERIFY(errors.wait(10000));
    QVERIFY2(m_window->errorText().startsWith(path), qPrintable(m_window->errorText()));
    QVERIFY(m_window->errorText().contains("corrupt"));
    // The window still works afterwards.
    QSignalSpy shown(m_window.get(), &MainWindow::snapshotShown);
    m_window->openPath(writeImage(10, 10, CV_8UC1, "fine.png"));
    QVERIFY(waitForSnapshot(shown, [](const HistogramSnapshot& s) { return s.result.samples == 100; }));
    QVERIFY(m_window->errorText().isEmpty());
}

void TestMainWindow::equalizeShowsAndSaves()
{
    cv::Mat dark(90, 120, CV_8UC1);
    cv::randu(dark, 40, 80);  // a low-contrast image
    const QString path = m_dir.filePath("dark.png");
    cv::imwrite(path.toStdString(), dark);
    QSignalSpy shown(m_window.get(), &MainWindow::snapshotShown);
    m_window->openPath(path);
    QVERIFY(waitForSnapshot(shown, [](const HistogramSnapshot&) { return true; }));
    EqualizeDialog dialog(m_window->lastSnapshot()->frame, true);
    QSignalSpy done(&dialog, &EqualizeDialog::equalized);
    QVERIFY(done.wait(20000));
    const EqualizeOutcome* outcome = dialog.outcome();
    QVERIFY(outcome && outcome->error.isEmpty());
    QCOMPARE(outcome->luts.size(), std::size_t(1));
    QCOMPARE(outcome->luts[0][40], 0u);     // the darkest value present maps to 0
    QCOMPARE(outcome->luts[0][79], 255u);   // the brightest to 255
    const QString saved = m_dir.filePath("equalized.png");
    QVERIFY(dialog.save(saved));
    const cv::Mat back = cv::imread(saved.toStdString(), cv::IMREAD_UNCHANGED);
    QCOMPARE(back.rows, 90);
    double lo = 0, hi = 0;
    cv::minMaxLoc(back, &lo, &hi);
    QCOMPARE(lo, 0.0);
    QCOMPARE(hi, 255.0);

    // CLAHE, through OpenCV: same size and depth, contrast spread, no global LUT.
    QSignalSpy again(&dialog, &EqualizeDialog::equalized);
    dialog.setMethod(EqualizeMethod::Clahe);
    QVERIFY(again.wait(20000));
    QVERIFY(dialog.outcome()->error.isEmpty());
    QVERIFY(dialog.outcome()->luts.empty());
    const Frame& clahe = dialog.outcome()->equalized;
    QCOMPARE(clahe.width(), 120);
    const cv::Mat out(90, 120, CV_8UC1, const_cast<unsigned char*>(clahe.data()), clahe.strideBytes());
    cv::minMaxLoc(out, &lo, &hi);
    QVERIFY(hi - lo > 40);  // the 40..79 input is stretched
}

void TestMainWindow::exportsCsvJsonAndPlot()
{
    QSignalSpy shown(m_window.get(), &MainWindow::snapshotShown);
    m_window->openPath(writeImage(50, 40, CV_8UC3, "export.png"));
    QVERIFY(waitForSnapshot(shown, [](const HistogramSnapshot&) { return true; }));
    const QString csv = m_dir.filePath("h.csv"), json = m_dir.filePath("h.json"), png = m_dir.filePath("h.png");
    QVERIFY(m_window->exportCsv(csv));
    QVERIFY(m_window->exportJson(json));
    QVERIFY(m_window->exportPlot(png));
    QFile c(csv);
    QVERIFY(c.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(c.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 5);  // header, R, G, B, luma
    QVERIFY(lines[1].contains(",R,256,"));
    QFile j(json);
    QVERIFY(j.open(QIODevice::ReadOnly));
    const QJsonArray records = QJsonDocument::fromJson(j.readAll()).array();
    QCOMPARE(records.size(), 4);
    qint64 total = 0;
    for (const QJsonValue v : records[0].toObject()["counts"].toArray())
        total += v.toInteger();
    QCOMPARE(total, 2000);
    QVERIFY(!QImage(png).isNull());
}

void TestMainWindow::hoverReadout()
{
    HistogramView view;
    HistogramDisplay display;
    display.lo = 0;
    display.hi = 4;
    display.series.append({"gray", Qt::white, {1, 2, 3, 4}});
    view.setDisplay(display);
    view.resize(458, 200);
    // The plot spans x in [48, 448): bin 2 covers [248, 348).
    QCOMPARE(view.readoutAt(300), QStringLiteral("[2, 3)  gray 3"));
    QVERIFY(view.readoutAt(5).isEmpty());
}

void TestMainWindow::dropOpensFile()
{
    const QString path = writeImage(21, 13, CV_8UC1, "dropped.png");
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(path)});
    QSignalSpy shown(m_window.get(), &MainWindow::snapshotShown);
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(m_window.get(), &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(m_window.get(), &drop);
    QVERIFY(waitForSnapshot(shown, [](const HistogramSnapshot& s) { return s.result.samples == 21 * 13; }));
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
