// The window on the offscreen platform: open and count, region of interest, the settings panel,
// playback of a generated video, the error banner (compact, never hiding the histogram, gone
// with its cause, floating over the image without moving it), strategy comparison (saying what
// it skipped) and equalization from the window, drag and drop, a GPU strategy saved on a
// machine with a device opened on one without, and the Timing panel's long values.
// Fixtures are fresh random images written by the test.
#include "app/gui/EqualizeDialog.h"
#include "app/gui/MainWindow.h"
#include "app/gui/ProbePanel.h"
#include "app/gui/ScopePanel.h"
#include "app/gui/Scopes.h"
#include "app/gui/SettingsPanel.h"
#include "app/gui/WindowGeometry.h"
#include "widgets/BarChart.h"
#include "widgets/HistogramPanel.h"
#include "widgets/HistogramView.h"
#include "widgets/ImageCanvas.h"
#include "widgets/TablePanel.h"

#include "TestSupport.h"

#include "histoscope/EngineDiagnostics.h"
#include "histoscope/HistogramEngine.h"

#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QScreen>
#include <QStatusBar>
#include <QMenu>
#include <QMenuBar>
#include <QTableWidget>
#include <QCheckBox>
#include <QHeaderView>
#include <QFile>
#include <QLabel>
#include <QMimeData>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>

using namespace testsupport;

Q_DECLARE_METATYPE(std::vector<std::uint64_t>)

class TestMainWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void opensImageAndCountsExactly_data();
    void opensImageAndCountsExactly();
    void regionOfInterestIsFollowed();
    void settingsPanelDrivesTheHistogram();
    void timingPanelShowsMeasuredPhasesOnly();
    void playsAGeneratedVideoToItsLastFrame();
    void gpuFaultDuringPlaybackIsSurvived_data();
    void gpuFaultDuringPlaybackIsSurvived();
    void badFileShowsACompactError();
    void truncatedFileKeepsAVisibleWarning();
    void errorBannerClearsWhenItsCauseIsGone();
    void compareStrategiesFromTheWindow();
    void equalizeFromTheWindow();
    void dropOpensFile();
    void frameTakenBeforeItsOpenedSignalIsStillCounted();
    void statisticsTableIsReadableWithoutTruncation_data();
    void statisticsTableIsReadableWithoutTruncation();
    void settingsDockIsCompact();
    void everyDockReopensFromTheViewMenu();
    void dockLayoutIsSavedAndRestored();
    void frameIsClampedToTheScreen_data();
    void frameIsClampedToTheScreen();
    void restoredGeometryStaysOnScreen_data();
    void restoredGeometryStaysOnScreen();
    void scopePanelsGetADockOfTheirOwn();
    void probeShowsTheValueUnderTheCursor_data();
    void probeShowsTheValueUnderTheCursor();
    void regionCanBeTypedInTheProbe();
    void everyFrameProducedIsShownOrCountedAsDropped_data();
    void everyFrameProducedIsShownOrCountedAsDropped();
    void liveSourceDropsAreCounted();
    void newSettingsForTheSameFrameDropNothing();
    void hiddenChannelsArePersistedAndNotRecounted();
    void savedGpuStrategyFallsBackWithoutADevice_data();
    void savedGpuStrategyFallsBackWithoutADevice();
    void compareSaysWhichStrategiesWereSkipped_data();
    void compareSaysWhichStrategiesWereSkipped();
    void timingPanelShowsLongValuesWhole();
    void bannersFloatOverTheImageWithoutMovingIt();

private:
    QString writeImage(int width, int height, int type, const QString& name);
    SnapshotPtr waitForSnapshot(const std::function<bool(const HistogramSnapshot&)>& accept);
    SettingsPanel* panel() { return m_window->settingsPanel(); }

    QTemporaryDir m_dir;
    std::unique_ptr<MainWindow> m_window;
    std::mt19937_64 m_rng;
};

void TestMainWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    m_rng = seededRng();
    cv::theRNG().state = m_rng();
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
    if (!cv::imwrite(path.toStdString(), m))
        return {};
    return path;
}

// Waits, through the window's own signal, for a shown snapshot that `accept`s.
SnapshotPtr TestMainWindow::waitForSnapshot(const std::function<bool(const HistogramSnapshot&)>& accept)
{
    auto ok = [&] { return m_window->lastSnapshot() && accept(*m_window->lastSnapshot()); };
    QSignalSpy shown(m_window.get(), &MainWindow::snapshotShown);
    for (int turns = 0; !ok() && turns < 300; ++turns)
        shown.wait(100);
    return ok() ? m_window->lastSnapshot() : SnapshotPtr();
}

void TestMainWindow::opensImageAndCountsExactly_data()
{
    QTest::addColumn<int>("cvType");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QStringList>("series");
    QTest::newRow("8-bit colour PNG") << CV_8UC3 << "rgb.png" << QStringList{"R", "G", "B", "luma"};
    QTest::newRow("8-bit gray PNG") << CV_8UC1 << "gray.png" << QStringList{"gray"};
    QTest::newRow("16-bit gray PNG") << CV_16UC1 << "gray16.png" << QStringList{"gray"};
}

void TestMainWindow::opensImageAndCountsExactly()
{
    QFETCH(int, cvType);
    QFETCH(QString, name);
    QFETCH(QStringList, series);
    const QString path = writeImage(97, 61, cvType, name);
    QVERIFY(!path.isEmpty());
    m_window->openPath(path);
    const SnapshotPtr s = waitForSnapshot([](const HistogramSnapshot&) { return true; });
    QVERIFY(s);
    const HistogramDisplay& display = m_window->histogramView()->display();
    QStringList names;
    for (const HistogramSeries& h : display.series)
        names << h.name;
    QCOMPARE(names, series);
    // The first series against an oracle over the decoded file (OpenCV's BGR: R is plane 2).
    const cv::Mat back = cv::imread(path.toStdString(), cv::IMREAD_UNCHANGED);
    const int plane = back.channels() == 3 ? 2 : 0;
    const int shift = back.depth() == CV_16U ? 8 : 0;   // 256 bins over 16 bits
    QVector<double> expected(256, 0.0);
    for (int y = 0; y < back.rows; ++y)
        for (int x = 0; x < back.cols; ++x) {
            const int v = back.depth() == CV_16U ? back.ptr<std::uint16_t>(y)[x * back.channels() + plane]
                                                 : back.ptr<std::uint8_t>(y)[x * back.channels() + plane];
            expected[v >> shift] += 1;
        }
    QCOMPARE(display.series[0].counts, expected);
    TablePanel* stats = m_window->statisticsPanel();
    QCOMPARE(stats->cell(stats->rowOf("count"), 0), QStringLiteral("5917"));
    QVERIFY(!m_window->backendText().isEmpty());
    if (hs::HistogramEngine::cudaDeviceCount() == 0)
        QVERIFY2(m_window->backendText().contains("CPU"), qPrintable(m_window->backendText()));
    QVERIFY(m_window->recentFiles().first().endsWith(name));
}

void TestMainWindow::regionOfInterestIsFollowed()
{
    m_window->openPath(writeImage(120, 80, CV_16UC1, "roi16.png"));
    QVERIFY(waitForSnapshot([](const HistogramSnapshot& s) { return s.result.samples == 120 * 80; }));
    m_window->imageView()->setRoi(QRect(13, 7, 31, 17));
    const SnapshotPtr s = waitForSnapshot([](const HistogramSnapshot& s) { return s.result.samples == 31 * 17; });
    QVERIFY(s);
    QVERIFY(s->roi.has_value());
    QCOMPARE(s->roi->x, 13);
    QCOMPARE(s->roi->y, 7);
    m_window->imageView()->setRoi(QRect());
    QVERIFY(waitForSnapshot([](const HistogramSnapshot& s) { return s.result.samples == 120 * 80; }));
}

void TestMainWindow::settingsPanelDrivesTheHistogram()
{
    m_window->openPath(writeImage(64, 48, CV_8UC1, "gray8.png"));
    QVERIFY(waitForSnapshot([](const HistogramSnapshot&) { return true; }));
    auto* bins = panel()->findChild<QSpinBox*>("bins");
    QVERIFY(bins);
    bins->setValue(16);
    QVERIFY(waitForSnapshot([](const HistogramSnapshot& s) { return s.result.channels[0].counts.size() == 16; }));
    QCOMPARE(m_window->histogramView()->display().series[0].counts.size(), 16);
    // Persisted: a new window starts with 16 bins.
    MainWindow second;
    QCOMPARE(second.settingsPanel()->settings().counting.bins, 16);
}

void TestMainWindow::timingPanelShowsMeasuredPhasesOnly()
{
    m_window->openPath(writeImage(40, 30, CV_8UC3, "timing.png"));
    QVERIFY(waitForSnapshot([](const HistogramSnapshot&) { return true; }));
    TablePanel* timing = m_window->timingPanel();
    QCOMPARE(timing->rowOf("merge"), -1);   // PhaseTimings.mergeMs is never measured for histograms
    QVERIFY(timing->rowOf("tally") >= 0);
    QCOMPARE(timing->cell(timing->rowOf("backend"), 0), m_window->lastSnapshot()->backend);
}

void TestMainWindow::playsAGeneratedVideoToItsLastFrame()
{
    const QString path = m_dir.filePath("live.avi");
    {
        cv::VideoWriter writer(path.toStdString(), cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 30.0, cv::Size(80, 60));
        if (!writer.isOpened())
            QSKIP("no MJPEG/AVI writer in this OpenCV build");
        std::uniform_int_distribution<int> level(0, 255);
        for (int i = 0; i < 20; ++i)
            writer.write(cv::Mat(60, 80, CV_8UC3, cv::Scalar(level(m_rng), level(m_rng), level(m_rng))));
    }
    QSignalSpy ended(m_window->media(), &MediaController::endOfStream);
    m_window->openPath(path);
    m_window->media()->play();
    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, 20000);
    QCOMPARE(m_window->media()->deliveredFrames(), qint64(20));
    // The last frame decoded is the last one counted and shown.
    const SnapshotPtr last = waitForSnapshot([](const HistogramSnapshot& s) { return s.frameIndex == 19; });
    QVERIFY(last);
    QCOMPARE(last->frame.width(), qint64(80));
    QCOMPARE(last->result.samples, std::uint64_t(80 * 60 * 3));
    // Rewind while stopped: frame 0 is shown again and nothing plays.
    m_window->media()->seek(0);
    QVERIFY(waitForSnapshot([](const HistogramSnapshot& s) { return s.frameIndex == 0; }));
    QVERIFY(!m_window->media()->isPlaying());
}

void TestMainWindow::gpuFaultDuringPlaybackIsSurvived_data()
{
    QTest::addColumn<std::vector<std::uint64_t>>("faultCalls");
    QTest::addColumn<QString>("continues");
    QTest::newRow("a count faults mid-playback") << std::vector<std::uint64_t>{7} << QStringLiteral("counting continues");
    QTest::newRow("the rebuilt engine faults too") << std::vector<std::uint64_t>{7, 8}
                                                   << QStringLiteral("since the rebuilt engine faulted too");
}

// The engine answers as a faulted GPU does (the test hook) while a video plays: the worker
// rebuilds it, the status line and the notice strip say so, playback goes on to the last frame,
// and every frame shown after the fault is counted exactly.
void TestMainWindow::gpuFaultDuringPlaybackIsSurvived()
{
    QFETCH(std::vector<std::uint64_t>, faultCalls);
    QFETCH(QString, continues);
    const QString path = m_dir.filePath("fault.avi");
    {
        cv::VideoWriter writer(path.toStdString(), cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 30.0, cv::Size(64, 48));
        if (!writer.isOpened())
            QSKIP("no MJPEG/AVI writer in this OpenCV build");
        for (int i = 0; i < 24; ++i) {
            cv::Mat noise(48, 64, CV_8UC3);
            cv::randu(noise, cv::Scalar::all(0), cv::Scalar::all(256));
            writer.write(noise);
        }
    }
    QSignalSpy noticed(m_window.get(), &MainWindow::deviceNoticeShown);
    QSignalSpy ended(m_window->media(), &MediaController::endOfStream);
    m_window->openPath(path);
    QVERIFY(waitForSnapshot([](const HistogramSnapshot& s) { return s.frameIndex == 0; }));
    hs::injectDeviceLost(faultCalls);   // counted from here: each frame is two counts (channels, luma)
    m_window->media()->play();
    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, 20000);
    QTRY_VERIFY_WITH_TIMEOUT(noticed.count() >= 1, 10000);
    hs::injectDeviceLost({});
    const QString notice = noticed.first().at(0).toString();
    QVERIFY2(notice.contains("faulted") && notice.contains(continues), qPrintable(notice));
    QVERIFY(m_window->deviceNotices().contains(notice));
    QCOMPARE(m_window->statusBar()->currentMessage(), notice);
    // The app kept drawing: the last frame is shown, counted exactly against the decoded pixels.
    const SnapshotPtr last = waitForSnapshot([](const HistogramSnapshot& s) { return s.frameIndex == 23; });
    QVERIFY(last);
    QVERIFY2(!last->error.isError(), qPrintable(last->error.message()));
    const Frame& f = last->frame;
    QVector<double> red(256, 0.0);
    const int r = f.storageIndexOfDisplayChannel(0);
    for (qint64 y = 0; y < f.height(); ++y)
        for (qint64 x = 0; x < f.width(); ++x)
            red[sampleAt(f, x, y, r)] += 1;
    const HistogramDisplay& display = m_window->histogramView()->display();
    QCOMPARE(display.series[0].name, QStringLiteral("R"));
    QCOMPARE(display.series[0].counts, red);
}

void TestMainWindow::badFileShowsACompactError()
{
    m_window->openPath(writeImage(50, 40, CV_8UC1, "good.png"));
    QVERIFY(waitForSnapshot([](const HistogramSnapshot&) { return true; }));
    const QString path = m_dir.filePath("broken.png");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("\x89PNG\r\n\x1a\nthis is not really a png");
    f.close();
    QSignalSpy errors(m_window.get(), &MainWindow::errorShown);
    m_window->openPath(path);
    QTRY_COMPARE_WITH_TIMEOUT(errors.count(), 1, 10000);
    QVERIFY2(m_window->errorText().startsWith(path), qPrintable(m_window->errorText()));
    QVERIFY(m_window->errorText().contains("corrupt"));
    // Compact: one line, and the histogram keeps its room.
    QLabel* banner = m_window->errorBanner();
    QTRY_VERIFY(banner->isVisible());
    QVERIFY2(banner->height() < 3 * banner->fontMetrics().height(), qPrintable(QString::number(banner->height())));
    QVERIFY(m_window->histogramView()->isVisible());
    QVERIFY(m_window->histogramView()->height() > 5 * banner->height());
    // The window still works afterwards, and the banner goes with its cause.
    m_window->openPath(writeImage(10, 10, CV_8UC1, "fine.png"));
    QVERIFY(waitForSnapshot([](const HistogramSnapshot& s) { return s.result.samples == 100; }));
    QVERIFY(m_window->errorText().isEmpty());
    QVERIFY(banner->isHidden());
}

void TestMainWindow::truncatedFileKeepsAVisibleWarning()
{
    // A JPEG cut in the middle: OpenCV fills the rest with grey, and the window must say so for
    // as long as the file is open, not for a few seconds.
    cv::Mat pixels(120, 160, CV_8UC3);
    cv::randu(pixels, cv::Scalar::all(0), cv::Scalar::all(256));
    std::vector<uchar> bytes;
    QVERIFY(cv::imencode(".jpg", pixels, bytes));
    const QString path = m_dir.filePath("cut.jpg");
    {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        QVERIFY(file.write(reinterpret_cast<const char*>(bytes.data()), qint64(bytes.size() * 2 / 3)) > 0);
    }
    m_window->openPath(path);
    QVERIFY(waitForSnapshot([](const HistogramSnapshot&) { return true; }));
    QTRY_VERIFY(m_window->noticeBanner()->isVisible());
    QVERIFY2(m_window->noticeBanner()->text().contains("cut.jpg"), qPrintable(m_window->noticeBanner()->text()));
    // Still there after the settings change and the histogram is counted again.
    HistogramSettings settings = panel()->settings();
    settings.counting.bins = 64;
    m_window->setSettings(settings);
    QVERIFY(waitForSnapshot([](const HistogramSnapshot& s) { return s.result.channels.front().counts.size() == 64; }));
    QVERIFY(m_window->noticeBanner()->isVisible());
    QVERIFY(m_window->noticeBanner()->text().contains("cut.jpg"));
    // A good file clears it.
    m_window->openPath(writeImage(30, 20, CV_8UC3, "whole.png"));
    QTRY_VERIFY(!m_window->noticeBanner()->isVisible());
}

void TestMainWindow::errorBannerClearsWhenItsCauseIsGone()
{
    m_window->openPath(writeImage(30, 20, CV_8UC3, "cause.png"));
    QVERIFY(waitForSnapshot([](const HistogramSnapshot&) { return true; }));
    QSignalSpy errors(m_window.get(), &MainWindow::errorShown);
    HistogramSettings settings = panel()->settings();
    settings.counting.useGpu = false;                  // the CPU backend, GPU or not
    settings.counting.strategy = hs::Strategy::Shared;  // needs a GPU
    m_window->setSettings(settings);
    QTRY_COMPARE_WITH_TIMEOUT(errors.count(), 1, 10000);
    QVERIFY2(m_window->errorText().contains("shared"), qPrintable(m_window->errorText()));
    QVERIFY(m_window->histogramView()->isVisible());
    // The last good histogram stays on screen (a snapshot of the file counted before the error).
    QVERIFY(m_window->lastSnapshot() && !m_window->lastSnapshot()->error.isError());
    QVERIFY(!m_window->histogramView()->display().isEmpty());
    // Back to cpu: the banner goes without reopening the file.
    settings.counting.strategy = hs::Strategy::Cpu;
    m_window->setSettings(settings);
    const SnapshotPtr s = waitForSnapshot([&](const HistogramSnapshot& s) {
        return s.settings.counting.strategy == hs::Strategy::Cpu && !s.settings.counting.useGpu;
    });
    QVERIFY(s);
    QCOMPARE(s->result.strategyRan, hs::Strategy::Cpu);
    QVERIFY(m_window->errorText().isEmpty());
    QVERIFY(m_window->errorBanner()->isHidden());
}

void TestMainWindow::compareStrategiesFromTheWindow()
{
    QSignalSpy errors(m_window.get(), &MainWindow::errorShown);
    m_window->compareStrategies();   // nothing open yet: says so
    QCOMPARE(errors.count(), 1);
    m_window->openPath(writeImage(200, 150, CV_8UC3, "compare.png"));
    QVERIFY(waitForSnapshot([](const HistogramSnapshot&) { return true; }));
    QVERIFY(m_window->errorText().isEmpty());
    QSignalSpy compared(m_window.get(), &MainWindow::comparisonShown);
    m_window->compareStrategies();
    QTRY_COMPARE_WITH_TIMEOUT(compared.count(), 1, 60000);
    const QVector<Bar>& bars = m_window->comparisonChart()->bars();
    const int expected = hs::HistogramEngine::cudaDeviceCount() > 0 ? int(hs::allStrategies().size()) : 2;
    QCOMPARE(bars.size(), expected);
    for (const Bar& b : bars) {
        QVERIFY2(b.note.startsWith("exact"), qPrintable(b.label + ": " + b.note));
        QVERIFY(b.value > 0);
    }
}

void TestMainWindow::equalizeFromTheWindow()
{
    m_window->openPath(writeImage(60, 40, CV_8UC1, "equalize.png"));
    QVERIFY(waitForSnapshot([](const HistogramSnapshot&) { return true; }));
    m_window->equalize();
    auto* dialog = m_window->findChild<EqualizeDialog*>();
    QVERIFY(dialog);
    QSignalSpy presented(dialog, &EqualizeDialog::equalized);
    QTRY_COMPARE_WITH_TIMEOUT(presented.count(), 1, 30000);
    QVERIFY(dialog->outcome());
    QVERIFY2(!dialog->outcome()->error.isError(), qPrintable(dialog->outcome()->error.message()));
    QCOMPARE(dialog->outcome()->input.data(), m_window->lastSnapshot()->frame.data());   // the frame shown, not a copy
    QCOMPARE(dialog->outcome()->luts.size(), std::size_t(1));
}

void TestMainWindow::dropOpensFile()
{
    const QString path = writeImage(21, 13, CV_8UC1, "dropped.png");
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(path)});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(m_window.get(), &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(m_window.get(), &drop);
    QVERIFY(waitForSnapshot([](const HistogramSnapshot& s) { return s.result.samples == 21 * 13; }));
}

void TestMainWindow::frameTakenBeforeItsOpenedSignalIsStillCounted()
{
    const QString video = m_dir.filePath("first.avi");
    {
        cv::VideoWriter writer(video.toStdString(), cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 30.0, cv::Size(32, 24));
        if (!writer.isOpened())
            QSKIP("no MJPEG/AVI writer in this OpenCV build");
        for (int i = 0; i < 3; ++i)
            writer.write(cv::Mat(24, 32, CV_8UC3, cv::Scalar(60 * i, 90, 30)));
    }
    const QString image = writeImage(17, 11, CV_8UC1, "second.png");
    m_window->openPath(video);
    QVERIFY(waitForSnapshot([](const HistogramSnapshot& s) { return s.result.samples == 32 * 24 * 3; }));
    // Step the video (a frame and its wake-up queued here), then open the image; this thread
    // turns no event loop until the decoder has done both, so the wake-up of the step takes
    // the image's first frame before the image's `opened` is handled.
    m_window->media()->step();
    m_window->openPath(image);
    {
        ThreadGate done(m_window->media()->workerThread());
    }
    const SnapshotPtr s = waitForSnapshot([](const HistogramSnapshot& s) { return s.result.samples == 17 * 11; });
    QVERIFY(s);
    QVERIFY(m_window->errorText().isEmpty());
}

void TestMainWindow::statisticsTableIsReadableWithoutTruncation_data()
{
    QTest::addColumn<QSize>("windowSize");
    QTest::addColumn<int>("cvType");
    QTest::newRow("1280x720, 8-bit colour") << QSize(1280, 720) << CV_8UC3;
    QTest::newRow("1280x720, 16-bit colour") << QSize(1280, 720) << CV_16UC3;
    QTest::newRow("default size, 16-bit colour") << QSize() << CV_16UC3;
    QTest::newRow("1024x640, 16-bit colour") << QSize(1024, 640) << CV_16UC3;
}

void TestMainWindow::statisticsTableIsReadableWithoutTruncation()
{
    QFETCH(QSize, windowSize);
    QFETCH(int, cvType);
    if (windowSize.isValid())
        m_window->resize(windowSize);
    // Large counts and long fractions: a 16-bit image of 640x512 has counts of 6 digits.
    m_window->openPath(writeImage(640, 512, cvType, "wide.png"));
    QVERIFY(waitForSnapshot([](const HistogramSnapshot&) { return true; }));
    TablePanel* stats = m_window->statisticsPanel();
    QTRY_VERIFY(stats->isVisible());
    QCOMPARE(stats->cell(stats->rowOf("count"), 0), QStringLiteral("327680"));
    QTRY_VERIFY(stats->showsEveryCellWhole());   // columns follow their contents once laid out
    QCOMPARE(stats->table()->textElideMode(), Qt::ElideNone);
}

void TestMainWindow::settingsDockIsCompact()
{
    m_window->resize(1280, 720);
    auto* dock = m_window->findChild<QDockWidget*>("settingsDock");
    QVERIFY(dock);
    QTRY_VERIFY(dock->isVisible());
    QVERIFY2(dock->width() <= 1280 / 4, qPrintable(QString::number(dock->width())));
    QVERIFY(m_window->imageView()->width() > dock->width());
}

void TestMainWindow::everyDockReopensFromTheViewMenu()
{
    QMenu* view = nullptr;
    for (QAction* a : m_window->menuBar()->actions())
        if (a->menu() && a->text().remove('&') == QStringLiteral("View"))
            view = a->menu();
    QVERIFY(view);
    const QStringList expected{"settingsDock", "probeDock", "histogramDock", "statisticsDock", "timingDock", "strategiesDock"};
    for (const QString& name : expected) {
        auto* dock = m_window->findChild<QDockWidget*>(name);
        QVERIFY2(dock, qPrintable(name));
        QVERIFY2(view->actions().contains(dock->toggleViewAction()), qPrintable(name));
        dock->close();
        QVERIFY(!dock->isVisible());
        dock->toggleViewAction()->trigger();
        QTRY_VERIFY2(dock->isVisible(), qPrintable(name));
    }
    for (QDockWidget* dock : m_window->findChildren<QDockWidget*>())
        QVERIFY2(view->actions().contains(dock->toggleViewAction()), qPrintable(dock->objectName()));
}

void TestMainWindow::dockLayoutIsSavedAndRestored()
{
    auto* settings = m_window->findChild<QDockWidget*>("settingsDock");
    auto* timing = m_window->findChild<QDockWidget*>("timingDock");
    QVERIFY(settings && timing);
    m_window->addDockWidget(Qt::RightDockWidgetArea, settings);
    timing->close();
    m_window->close();   // saves the layout
    MainWindow second;
    second.show();
    auto* settings2 = second.findChild<QDockWidget*>("settingsDock");
    auto* timing2 = second.findChild<QDockWidget*>("timingDock");
    QCOMPARE(second.dockWidgetArea(settings2), Qt::RightDockWidgetArea);
    QTRY_VERIFY(settings2->isVisible());
    QVERIFY(!timing2->isVisible());
}

void TestMainWindow::frameIsClampedToTheScreen_data()
{
    QTest::addColumn<QRect>("frame");
    QTest::addColumn<QRect>("available");
    QTest::addColumn<QRect>("expected");
    const QRect hd(0, 0, 1280, 720);
    // A second monitor right of a 1920-wide one, under a 24-pixel top panel.
    const QRect second(1920, 24, 1280, 696);
    QTest::newRow("inside: unchanged") << QRect(100, 50, 900, 600) << hd << QRect(100, 50, 900, 600);
    QTest::newRow("status bar below the bottom edge") << QRect(100, 300, 900, 600) << hd << QRect(100, 120, 900, 600);
    QTest::newRow("far off right and below") << QRect(5000, 4000, 900, 600) << hd << QRect(380, 120, 900, 600);
    QTest::newRow("above and left") << QRect(-400, -300, 900, 600) << hd << QRect(0, 0, 900, 600);
    QTest::newRow("larger than the screen") << QRect(-10, -10, 1920, 1080) << hd << QRect(0, 0, 1280, 720);
    QTest::newRow("under the top panel") << QRect(2000, 0, 900, 600) << second << QRect(2000, 24, 900, 600);
    QTest::newRow("saved on a monitor now gone") << QRect(200, 100, 900, 600) << second << QRect(1920, 100, 900, 600);
}

void TestMainWindow::frameIsClampedToTheScreen()
{
    QFETCH(QRect, frame);
    QFETCH(QRect, available);
    QFETCH(QRect, expected);
    QCOMPARE(WindowGeometry::clampToArea(frame, available), expected);
}

void TestMainWindow::restoredGeometryStaysOnScreen_data()
{
    // Offsets from the available area's top left, in units of its size.
    QTest::addColumn<QPointF>("offset");
    QTest::addColumn<QSizeF>("size");
    QTest::newRow("status bar below the bottom") << QPointF(0.1, 0.6) << QSizeF(0.8, 0.8);
    QTest::newRow("far off right and below") << QPointF(8, 6) << QSizeF(0.8, 0.8);
    QTest::newRow("far off left and above") << QPointF(-8, -6) << QSizeF(0.8, 0.8);
    QTest::newRow("half off the right edge") << QPointF(0.6, 0.05) << QSizeF(0.8, 0.8);
    QTest::newRow("larger than the screen") << QPointF(-0.1, -0.1) << QSizeF(1.5, 1.5);
}

void TestMainWindow::restoredGeometryStaysOnScreen()
{
    QFETCH(QPointF, offset);
    QFETCH(QSizeF, size);
    m_window.reset();
    const QRect available = QGuiApplication::primaryScreen()->availableGeometry();
    const QRect saved(available.left() + int(offset.x() * available.width()), available.top() + int(offset.y() * available.height()),
                      int(size.width() * available.width()), int(size.height() * available.height()));
    {
        // The bytes restoreGeometry() reads, as a window at `saved` would have written them.
        QWidget placed;
        placed.setGeometry(saved);
        QSettings().setValue("window/geometry", placed.saveGeometry());
    }
    m_window = std::make_unique<MainWindow>();
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    QVERIFY2(available.contains(m_window->frameGeometry()),
             qPrintable(QStringLiteral("%1,%2 %3x%4").arg(m_window->frameGeometry().x()).arg(m_window->frameGeometry().y())
                            .arg(m_window->frameGeometry().width()).arg(m_window->frameGeometry().height())));
    QStatusBar* status = m_window->statusBar();
    const QRect statusOnScreen(status->mapToGlobal(QPoint(0, 0)), status->size());
    QVERIFY(available.contains(statusOnScreen));
}

void TestMainWindow::scopePanelsGetADockOfTheirOwn()
{
    QDockWidget* dock = m_window->scopesDock();
    QVERIFY(dock);
    QCOMPARE(dock->objectName(), QStringLiteral("scopesDock"));
    // The window's own scopes are there from the start, a tab beside the statistics, so they
    // are not counted until the user brings them forward.
    QVERIFY(m_window->scopes());
    QCOMPARE(m_window->scopes()->panels().size(), 4);
    QVERIFY(dock->toggleViewAction()->isEnabled());
    QVERIFY(m_window->tabifiedDockWidgets(dock).contains(m_window->findChild<QDockWidget*>(QStringLiteral("statisticsDock"))));
    QVERIFY(!m_window->tabifiedDockWidgets(dock).contains(m_window->findChild<QDockWidget*>(QStringLiteral("histogramDock"))));
    QCOMPARE(m_window->scopes()->neededKinds(), ScopeKinds(0));
    auto* panel = new QLabel(QStringLiteral("waveform"));
    m_window->addScopePanel(QStringLiteral("Waveform"), panel);
    QVERIFY(dock->isAncestorOf(panel));   // a tab of its own, next to the built-in scopes
    QVERIFY(dock->toggleViewAction()->isEnabled());
    // A scope follows the frames the window counts.
    QSignalSpy submitted(m_window.get(), &MainWindow::frameSubmitted);
    m_window->openPath(writeImage(33, 21, CV_8UC3, "scope.png"));
    QTRY_VERIFY_WITH_TIMEOUT(!submitted.isEmpty(), 10000);
    QVERIFY(waitForSnapshot([](const HistogramSnapshot&) { return true; }));
    m_window->imageView()->setRoi(QRect(2, 3, 10, 5));
    QTRY_VERIFY(submitted.size() >= 2);
    const auto roi = submitted.last().at(1).value<std::optional<hs::Rect>>();
    QVERIFY(roi.has_value());
    QCOMPARE(roi->width, 10);
    // Brought forward, a scope shows together with the histogram, and only its kind is counted.
    dock->raise();
    QTRY_VERIFY(m_window->scopes()->panels().first()->isVisible());
    QVERIFY(m_window->histogramPanel()->isVisible());
    QCOMPARE(m_window->scopes()->neededKinds(), m_window->scopes()->panels().first()->neededKinds());
}

void TestMainWindow::probeShowsTheValueUnderTheCursor_data()
{
    QTest::addColumn<int>("cvType");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QStringList>("channels");
    QTest::newRow("8-bit colour PNG") << CV_8UC3 << "probe8.png" << QStringList{"R", "G", "B"};
    QTest::newRow("16-bit gray PNG") << CV_16UC1 << "probe16.png" << QStringList{"gray"};
    QTest::newRow("16-bit RGBA PNG") << CV_16UC4 << "probe16a.png" << QStringList{"R", "G", "B", "A"};
    QTest::newRow("float TIFF") << CV_32FC1 << "probef.tif" << QStringList{"gray"};
}

void TestMainWindow::probeShowsTheValueUnderTheCursor()
{
    QFETCH(int, cvType);
    QFETCH(QString, name);
    QFETCH(QStringList, channels);
    const int w = 37, h = 23;
    cv::Mat m(h, w, cvType);
    const int depth = CV_MAT_DEPTH(cvType);
    if (depth == CV_32F)
        cv::randu(m, cv::Scalar::all(-0.5), cv::Scalar::all(1.5));
    else
        cv::randu(m, cv::Scalar::all(0), cv::Scalar::all(depth == CV_16U ? 65536 : 256));
    const QString path = m_dir.filePath(name);
    QVERIFY(cv::imwrite(path.toStdString(), m));
    const cv::Mat back = cv::imread(path.toStdString(), cv::IMREAD_UNCHANGED);
    m_window->openPath(path);
    QVERIFY(waitForSnapshot([](const HistogramSnapshot&) { return true; }));
    ImageCanvas* canvas = m_window->imageView();
    ProbePanel* probe = m_window->probePanel();
    QTRY_VERIFY(canvas->isVisible());
    for (const QPoint pixel : {QPoint(w - 3, 5), QPoint(0, h - 1), QPoint(17, 11)}) {
        // The canvas may still be fitting itself to the window's final layout: aim again each turn.
        const QString where = QStringLiteral("x %1  y %2").arg(pixel.x()).arg(pixel.y());
        auto aim = [&] {
            QTest::mouseMove(canvas, QPoint(1, 1));
            QTest::mouseMove(canvas, canvas->imageToWidget(QPointF(pixel) + QPointF(0.5, 0.5)).toPoint());
            return probe->positionText() == where;
        };
        QTRY_VERIFY2(aim(), qPrintable(probe->positionText() + " != " + where));
        QCOMPARE(probe->rowCount(), int(channels.size()));
        for (int c = 0; c < channels.size(); ++c) {
            // Display order from OpenCV's BGR(A): R is plane 2, alpha stays 3.
            const int plane = back.channels() >= 3 && c < 3 ? 2 - c : c;
            double expected = 0, scale = 1;
            switch (depth) {
            case CV_8U: expected = back.ptr<std::uint8_t>(pixel.y())[pixel.x() * back.channels() + plane]; scale = 255; break;
            case CV_16U: expected = back.ptr<std::uint16_t>(pixel.y())[pixel.x() * back.channels() + plane]; scale = 65535; break;
            default: expected = back.ptr<float>(pixel.y())[pixel.x() * back.channels() + plane]; break;
            }
            QCOMPARE(probe->valueText(c, 0), channels[c]);
            if (depth == CV_32F)
                QVERIFY2(std::abs(probe->valueText(c, 1).toDouble() - expected) <= 1e-6 * std::max(1.0, std::abs(expected)),
                         qPrintable(probe->valueText(c, 1)));
            else
                QCOMPARE(probe->valueText(c, 1), QString::number(qint64(expected)));
            QVERIFY(std::abs(probe->valueText(c, 2).toDouble() - expected / scale) <= 1e-6);
        }
    }
    QEvent leave(QEvent::Leave);
    QApplication::sendEvent(canvas, &leave);
    QCOMPARE(probe->rowCount(), 0);
}

void TestMainWindow::regionCanBeTypedInTheProbe()
{
    m_window->openPath(writeImage(120, 80, CV_8UC3, "typed.png"));
    QVERIFY(waitForSnapshot([](const HistogramSnapshot& s) { return s.result.samples == 120 * 80 * 3; }));
    ProbePanel* probe = m_window->probePanel();
    const int values[] = {10, 5, 30, 20};
    for (int i = 0; i < 4; ++i)
        probe->roiBox(i)->setValue(values[i]);
    QCOMPARE(m_window->imageView()->roi(), QRect(10, 5, 30, 20));
    const SnapshotPtr s = waitForSnapshot([](const HistogramSnapshot& s) { return s.result.samples == 30 * 20 * 3; });
    QVERIFY(s);
    QCOMPARE(s->roi->x, 10);
    QCOMPARE(s->roi->y, 5);
    // Drawn on the image: the boxes follow.
    m_window->imageView()->setRoi(QRect(1, 2, 3, 4));
    QCOMPARE(probe->roi(), QRect(1, 2, 3, 4));
    QCOMPARE(probe->roiBox(2)->value(), 3);
    // A region past the frame's edge is clipped to it.
    probe->roiBox(2)->setValue(119);
    QCOMPARE(m_window->imageView()->roi(), QRect(1, 2, 119, 4));
    QVERIFY(waitForSnapshot([](const HistogramSnapshot& s) { return s.result.samples == 119 * 4 * 3; }));
}

void TestMainWindow::everyFrameProducedIsShownOrCountedAsDropped_data()
{
    QTest::addColumn<QString>("stall");
    QTest::newRow("histogram worker stalled") << "histogram";
    QTest::newRow("window stalled") << "window";
}

void TestMainWindow::everyFrameProducedIsShownOrCountedAsDropped()
{
    QFETCH(QString, stall);
    const int frames = 40;
    const QString path = m_dir.filePath("fast.avi");
    {
        // 200 fps: faster than a stalled engine, slow enough for the window to take each frame.
        cv::VideoWriter writer(path.toStdString(), cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 200.0, cv::Size(48, 32));
        if (!writer.isOpened())
            QSKIP("no MJPEG/AVI writer in this OpenCV build");
        for (int i = 0; i < frames; ++i)
            writer.write(cv::Mat(32, 48, CV_8UC3, cv::Scalar(i * 6, 255 - i * 6, 128)));
    }
    m_window->openPath(path);
    QVERIFY(waitForSnapshot([](const HistogramSnapshot& s) { return s.frameIndex == 0; }));
    QCOMPARE(m_window->liveCounters().shown, qint64(1));
    QSignalSpy ended(m_window->media(), &MediaController::endOfStream);
    if (stall == "histogram") {
        // The engine is held: every frame the window takes waits in the histogram slot, and
        // each newer one replaces it there.
        ThreadGate gate(m_window->histograms()->workerThread());
        m_window->media()->play();
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, 30000);
        QTRY_VERIFY(m_window->liveCounters().droppedHistogram > 0);
    } else {
        // This (GUI) thread turns no event loop while the decoder runs: the frames replace each
        // other in the media slot before the window takes them.
        m_window->media()->play();
        QElapsedTimer waited;
        waited.start();
        while (m_window->media()->deliveredFrames() < frames && waited.elapsed() < 30000)
            QThread::yieldCurrentThread();
        QCOMPARE(m_window->media()->deliveredFrames(), qint64(frames));
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, 30000);
    }
    // Settled: the last frame is shown, and every frame is shown or dropped, none twice.
    QVERIFY(waitForSnapshot([&](const HistogramSnapshot& s) { return s.frameIndex == frames - 1; }));
    QTRY_COMPARE(m_window->liveCounters().inFlight(), qint64(0));
    const LiveCounters c = m_window->liveCounters();
    QCOMPARE(c.produced, qint64(frames));
    QVERIFY2(c.dropped() > 0, qPrintable(QString::number(c.dropped())));
    QCOMPARE(c.shown + c.dropped(), c.produced);
    if (stall == "window")
        QVERIFY(c.droppedMedia > 0);
    QCOMPARE(c.sourceFps, 200.0);
    // The Timing panel and the status line say the same.
    TablePanel* timing = m_window->timingPanel();
    QTRY_COMPARE(timing->cell(timing->rowOf("dropped in all"), 0), QString::number(c.dropped()));
    QCOMPARE(timing->cell(timing->rowOf("frames decoded"), 0), QString::number(frames));
    QCOMPARE(timing->cell(timing->rowOf("frames shown"), 0), QString::number(c.shown));
    QVERIFY(timing->rowOf("counted and shown (measured)") >= 0);
    QVERIFY(timing->rowOf("decoded (measured)") >= 0);
    QVERIFY(timing->cell(timing->rowOf("source rate"), 0).startsWith("200.00 fps"));
    QVERIFY(m_window->statusBar()->findChildren<QLabel*>().size() > 0);
    bool said = false;
    for (QLabel* label : m_window->statusBar()->findChildren<QLabel*>())
        said |= label->text().contains(QStringLiteral("dropped %1").arg(c.dropped()));
    QVERIFY(said);
}

void TestMainWindow::liveSourceDropsAreCounted()
{
    // A GStreamer test source far faster than this machine shows: 1000 frames a second.
    QSignalSpy failed(m_window->media(), &MediaController::failed);
    QSignalSpy opened(m_window->media(), &MediaController::opened);
    m_window->openLive(QStringLiteral("videotestsrc num-buffers=5000 pattern=ball ! video/x-raw,width=160,height=120,framerate=1000/1"));
    QTRY_VERIFY_WITH_TIMEOUT(!opened.isEmpty() || !failed.isEmpty(), 20000);
    if (opened.isEmpty())
        QSKIP(qPrintable("no GStreamer test source here: " + failed.at(0).at(0).value<Error>().message()));
    QVERIFY(waitForSnapshot([](const HistogramSnapshot&) { return true; }));
    {
        // Hold the engine while the source runs on: frames pile up in the histogram slot.
        ThreadGate gate(m_window->histograms()->workerThread());
        QTRY_VERIFY_WITH_TIMEOUT(m_window->histograms()->replacedFrames() > 0, 20000);
        QVERIFY(m_window->media()->isPlaying());
    }
    // Paused, everything settles: the frame in the slot is taken and shown.
    m_window->media()->pause();
    QTRY_VERIFY_WITH_TIMEOUT(!m_window->media()->isPlaying(), 10000);
    QTRY_COMPARE_WITH_TIMEOUT(m_window->liveCounters().inFlight(), qint64(0), 10000);
    const LiveCounters c = m_window->liveCounters();
    QVERIFY(c.live);
    QVERIFY2(c.dropped() > 0, qPrintable(QString::number(c.dropped())));
    QVERIFY(c.droppedHistogram > 0);
    QCOMPARE(c.shown + c.dropped(), c.produced);
    QVERIFY(c.produced <= 5000);
    QVERIFY(c.notReadEstimate >= 0);
    QCOMPARE(c.sourceFps, 1000.0);
}

void TestMainWindow::newSettingsForTheSameFrameDropNothing()
{
    m_window->openPath(writeImage(64, 48, CV_8UC3, "same.png"));
    QVERIFY(waitForSnapshot([](const HistogramSnapshot&) { return true; }));
    {
        ThreadGate gate(m_window->histograms()->workerThread());
        for (int bins : {16, 32, 64}) {
            HistogramSettings s = panel()->settings();
            s.counting.bins = bins;
            m_window->setSettings(s);   // the same frame again, each replacing the last
        }
    }
    QVERIFY(waitForSnapshot([](const HistogramSnapshot& s) { return s.result.channels[0].counts.size() == 64; }));
    const LiveCounters c = m_window->liveCounters();
    QCOMPARE(c.dropped(), qint64(0));
    QCOMPARE(c.shown, qint64(1));
    QCOMPARE(c.produced, qint64(1));
}

void TestMainWindow::hiddenChannelsArePersistedAndNotRecounted()
{
    m_window->openPath(writeImage(40, 30, CV_8UC3, "legend.png"));
    const SnapshotPtr s = waitForSnapshot([](const HistogramSnapshot&) { return true; });
    QVERIFY(s);
    HistogramView* view = m_window->histogramView();
    QTRY_VERIFY(view->isVisible());
    const auto entries = view->legendEntries(view->size());
    QCOMPARE(entries.size(), 4);   // R, G, B, luma
    QCOMPARE(entries[3].first, QStringLiteral("luma"));
    QTest::mouseClick(view, Qt::LeftButton, {}, entries[3].second.center().toPoint());
    QVERIFY(!view->isSeriesVisible("luma"));
    QCOMPARE(m_window->settingsPanel()->settings().display.hiddenSeries, QStringList{"luma"});
    // Display only: nothing was counted again, and the statistics still list luma.
    QCOMPARE(m_window->lastSnapshot()->generation, s->generation);
    QVERIFY(m_window->statisticsPanel()->table()->columnCount() == 4);
    MainWindow second;
    QVERIFY(!second.histogramView()->isSeriesVisible("luma"));
    QVERIFY(second.histogramView()->isSeriesVisible("R"));
}

void TestMainWindow::savedGpuStrategyFallsBackWithoutADevice_data()
{
    QTest::addColumn<bool>("detected");
    QTest::newRow("a window told there is no GPU") << false;
    QTest::newRow("this machine, when it has no GPU") << true;
}

// `shared` picked on a machine with a GPU, then the app started on one without: the strategy
// falls back to auto with a notice, nothing GPU-only is offered, and the image is counted.
void TestMainWindow::savedGpuStrategyFallsBackWithoutADevice()
{
    QFETCH(bool, detected);
    if (detected && hs::HistogramEngine::cudaDeviceCount() > 0)
        QSKIP("this machine has a CUDA device");
    m_window.reset();
    {
        HistogramSettings saved;
        saved.counting.strategy = hs::Strategy::Shared;
        saved.counting.useGpu = true;
        QSettings store;
        saved.save(store);
    }
    const QString why = detected ? GpuAvailability::detect().reason : QStringLiteral("no CUDA device was found");
    m_window = detected ? std::make_unique<MainWindow>() : std::make_unique<MainWindow>(GpuAvailability{false, why});
    m_window->show();
    QCOMPARE(panel()->settings().counting.strategy, hs::Strategy::Auto);
    QVERIFY(panel()->settings().counting.useGpu);   // kept for the next machine with a GPU
    QTRY_VERIFY(m_window->noticeBanner()->isVisible());
    const QString notice = m_window->noticeBanner()->text();
    QVERIFY2(notice.contains("\"shared\"") && notice.contains("\"auto\"") && notice.contains(why), qPrintable(notice));
    // Nothing GPU-only is offered, and each says why.
    auto* strategy = panel()->findChild<QComboBox*>("strategy");
    auto* model = qobject_cast<QStandardItemModel*>(strategy->model());
    QVERIFY(strategy && model);
    for (int i = 0; i < strategy->count(); ++i) {
        const auto s = hs::Strategy(strategy->itemData(i).toInt());
        QCOMPARE(model->item(i)->isEnabled(), !hs::isGpuStrategy(s));
        if (hs::isGpuStrategy(s))
            QVERIFY(strategy->itemData(i, Qt::ToolTipRole).toString().contains(why));
    }
    QCOMPARE(strategy->currentText(), QStringLiteral("auto"));
    auto* useGpu = panel()->findChild<QCheckBox*>("useGpu");
    QVERIFY(useGpu && !useGpu->isChecked() && !useGpu->isEnabled());
    // The image is counted: no red banner, a histogram, statistics.
    m_window->openPath(writeImage(47, 31, CV_8UC3, "saved-gpu.png"));
    const SnapshotPtr shown = waitForSnapshot([](const HistogramSnapshot&) { return true; });
    QVERIFY(shown);
    QVERIFY2(!shown->error.isError(), qPrintable(shown->error.message()));
    QCOMPARE(shown->settings.counting.strategy, hs::Strategy::Auto);
    QVERIFY(m_window->errorText().isEmpty());
    QVERIFY(m_window->errorBanner()->isHidden());
    QVERIFY(!m_window->histogramView()->display().isEmpty());
    TablePanel* stats = m_window->statisticsPanel();
    QCOMPARE(stats->cell(stats->rowOf("count"), 0), QString::number(47 * 31));
    // Picking a strategy here ends the notice.
    strategy->setCurrentIndex(strategy->findData(int(hs::Strategy::Cpu)));
    QVERIFY(waitForSnapshot([](const HistogramSnapshot& s) { return s.settings.counting.strategy == hs::Strategy::Cpu; }));
    QTRY_VERIFY(m_window->noticeBanner()->isHidden());
}

void TestMainWindow::compareSaysWhichStrategiesWereSkipped_data()
{
    QTest::addColumn<bool>("useGpu");
    QTest::addColumn<QString>("why");
    // Without a device, that is the reason (no device, or a build without CUDA), whatever the box says.
    const QString none = GpuAvailability::detect().reason;
    QTest::newRow("no CUDA device") << true << none;
    QTest::newRow("Use the GPU off") << false << (none.isEmpty() ? QStringLiteral("\"Use the GPU\" is off") : none);
}

// Compare Strategies on a CPU engine times auto and cpu only; the chart says which strategies
// it left out and why, in words drawn under the bars.
void TestMainWindow::compareSaysWhichStrategiesWereSkipped()
{
    QFETCH(bool, useGpu);
    QFETCH(QString, why);
    if (useGpu && hs::HistogramEngine::cudaDeviceCount() > 0)
        QSKIP("this machine has a CUDA device: every strategy is compared");
    HistogramSettings settings = panel()->settings();
    settings.counting.useGpu = useGpu;
    m_window->setSettings(settings);
    m_window->openPath(writeImage(120, 90, CV_8UC3, "skipped.png"));
    QVERIFY(waitForSnapshot([](const HistogramSnapshot&) { return true; }));
    QSignalSpy compared(m_window.get(), &MainWindow::comparisonShown);
    m_window->compareStrategies();
    QTRY_COMPARE_WITH_TIMEOUT(compared.count(), 1, 60000);
    BarChart* chart = m_window->comparisonChart();
    QCOMPARE(chart->bars().size(), 2);
    const QString note = chart->footnote();
    for (hs::Strategy s : hs::gpuStrategies())
        QVERIFY2(note.contains(strategyDisplayName(s)), qPrintable(note));
    QVERIFY2(note.contains("CUDA GPU") && note.contains(why), qPrintable(note));
    QCOMPARE(chart->toolTip(), note);
    // Drawn, in the chart's text colour, inside the chart and below the bars.
    QTRY_VERIFY(chart->isVisible());
    const QRect area = chart->footnoteRect();
    QVERIFY(!area.isEmpty() && chart->rect().contains(area));
    const QImage picture = chart->grab().toImage();
    const QColor base = chart->palette().base().color();
    int inked = 0;
    for (int y = area.top(); y <= area.bottom(); ++y)
        for (int x = area.left(); x <= area.right(); ++x)
            inked += QColor(picture.pixel(x, y)) != base ? 1 : 0;
    QVERIFY2(inked > area.width(), qPrintable(QString::number(inked)));
}

// The Timing panel's one long value (why counting runs on the CPU) wraps in a narrow dock:
// all of it is on screen, and in its tooltip.
void TestMainWindow::timingPanelShowsLongValuesWhole()
{
    m_window->resize(1024, 640);
    HistogramSettings settings = panel()->settings();
    settings.counting.useGpu = false;   // "CPU (GPU disabled by the user: counting on the CPU)", GPU or not
    m_window->setSettings(settings);
    m_window->openPath(writeImage(40, 30, CV_8UC3, "timing-long.png"));
    QVERIFY(waitForSnapshot([](const HistogramSnapshot&) { return true; }));
    auto* dock = m_window->findChild<QDockWidget*>("timingDock");
    QVERIFY(dock);
    dock->show();
    dock->raise();
    m_window->resizeDocks({dock}, {300}, Qt::Horizontal);
    TablePanel* timing = m_window->timingPanel();
    QTRY_VERIFY(timing->isVisible());
    QTableWidget* table = timing->table();
    const int row = timing->rowOf("backend");
    QVERIFY(row >= 0);
    QTableWidgetItem* item = table->item(row, 0);
    QVERIFY(item);
    const QString text = item->text();
    QVERIFY2(text.contains("GPU disabled by the user"), qPrintable(text));
    QCOMPARE(item->toolTip(), text);
    const QFontMetrics fm(table->font());
    QVERIFY2(fm.horizontalAdvance(text) > table->viewport()->width(), "the value is not longer than the panel: nothing to show");
    auto whole = [&] {
        const QRect cell = table->visualItemRect(item);
        const QRect needed = fm.boundingRect(QRect(0, 0, cell.width() - 8, 10000), Qt::TextWordWrap, text);
        return cell.left() >= 0 && cell.right() < table->viewport()->width() && needed.height() <= cell.height();
    };
    QTRY_VERIFY2(whole(), qPrintable(QStringLiteral("cell %1 px wide, %2 px high in a %3 px viewport")
                                         .arg(table->visualItemRect(item).width())
                                         .arg(table->visualItemRect(item).height())
                                         .arg(table->viewport()->width())));
}

// The error and notice banners float over the top of the image: the canvas keeps its place and
// size, and the image its scale, when one appears; the banner is drawn on top.
void TestMainWindow::bannersFloatOverTheImageWithoutMovingIt()
{
    m_window->openPath(writeImage(300, 200, CV_8UC3, "under.png"));
    QVERIFY(waitForSnapshot([](const HistogramSnapshot&) { return true; }));
    ImageCanvas* canvas = m_window->imageView();
    QTRY_VERIFY(canvas->isVisible());
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    const QRect place = canvas->geometry();
    const QPointF origin = canvas->imageToWidget(QPointF(0, 0));
    const QPointF corner = canvas->imageToWidget(QPointF(300, 200));
    // An error (a GPU strategy on the CPU backend), then a notice.
    HistogramSettings settings = panel()->settings();
    settings.counting.useGpu = false;
    settings.counting.strategy = hs::Strategy::Shared;
    m_window->setSettings(settings);
    QTRY_VERIFY_WITH_TIMEOUT(m_window->errorBanner()->isVisible(), 10000);
    m_window->showDeviceNotice(QStringLiteral("a notice of the test"));
    QTRY_VERIFY(m_window->noticeBanner()->isVisible());
    QApplication::processEvents();
    QCOMPARE(canvas->geometry(), place);
    QCOMPARE(canvas->imageToWidget(QPointF(0, 0)), origin);
    QCOMPARE(canvas->imageToWidget(QPointF(300, 200)), corner);
    // Over the image, and painted above it.
    for (QLabel* banner : {m_window->errorBanner(), m_window->noticeBanner()}) {
        const QRect onCanvas(canvas->mapFromGlobal(banner->mapToGlobal(QPoint(0, 0))), banner->size());
        QVERIFY2(canvas->rect().contains(onCanvas), qPrintable(banner->objectName()));
    }
    const QImage window = m_window->grab().toImage();
    QLabel* error = m_window->errorBanner();
    const QPoint inPadding = error->mapTo(m_window.get(), QPoint(2, error->height() / 2));   // left of the text
    const QColor seen(window.pixel(inPadding));
    QVERIFY2(std::abs(seen.red() - 0x7a) < 30 && seen.green() < 70 && seen.blue() < 70, qPrintable(seen.name()));
    // Gone with its cause: the image still has not moved.
    settings.counting.strategy = hs::Strategy::Cpu;
    m_window->setSettings(settings);
    QTRY_VERIFY_WITH_TIMEOUT(m_window->errorBanner()->isHidden(), 10000);
    QCOMPARE(canvas->geometry(), place);
    QCOMPARE(canvas->imageToWidget(QPointF(0, 0)), origin);
}

int main(int argc, char** argv)
{
    // The offscreen platform's screen is 800x600, smaller than the window's minimum size, so no
    // restored geometry could fit it; the suite runs on the 1280x720 screen of the UI review.
    QTemporaryDir configDir;
    if (qEnvironmentVariable("QT_QPA_PLATFORM") == QLatin1String("offscreen") && configDir.isValid()) {
        QFile config(configDir.filePath("screen.json"));
        if (config.open(QIODevice::WriteOnly)
            && config.write(R"({"screens": [{"name": "review", "x": 0, "y": 0, "width": 1280, "height": 720,
                                  "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]})") > 0) {
            config.close();
            qputenv("QT_QPA_PLATFORM", "offscreen:configfile=" + config.fileName().toLocal8Bit());
        }
    }
    QApplication app(argc, argv);
    app.setAttribute(Qt::AA_Use96Dpi, true);
    TestMainWindow test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}

#include "tst_mainwindow.moc"
