// The timeline of a video: timecode, the seek bar and the trend plot seek through the media
// controller (one seek at a time), statistics over time from playback and from a background
// pass agree, a live source gets a rolling plot and no seek bar, and a file whose header
// overstates its length gets a timeline that follows its real end once playback, a step, a
// seek or the pass reaches it. Videos are generated here (their headers edited by AviEdit).
#include "app/core/Timecode.h"
#include "app/gui/MainWindow.h"
#include "app/gui/TimelinePanel.h"
#include "widgets/ImageCanvas.h"
#include "widgets/TimeSeriesView.h"

#include "AviEdit.h"
#include "TestSupport.h"

#include <QDockWidget>
#include <QFile>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>

#include <opencv2/videoio.hpp>
#include <opencv2/videoio/registry.hpp>

using namespace testsupport;

class TestTimeline : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void timecodeAtTheSourceRate_data();
    void timecodeAtTheSourceRate();
    void plotClickAsksForTheFrameUnderTheCursor_data();
    void plotClickAsksForTheFrameUnderTheCursor();
    void seekBarSeeksAndShowsTheTimecode();
    void plotClickSeeks();
    void oneSeekAtATime();
    void playbackAndBackgroundPassAgree();
    void liveSourceHasARollingPlotAndNoSeekBar();
    void timelineFollowsTheRealEnd_data();
    void timelineFollowsTheRealEnd();

private:
    QString writeVideo(int frames, double fps);
    QString writeLyingVideo(int frames, std::uint32_t header);
    SnapshotPtr waitForFrame(qint64 index);

    QTemporaryDir m_dir;
    std::unique_ptr<MainWindow> m_window;
    std::mt19937_64 m_rng;
};

void TestTimeline::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    m_rng = seededRng();
}

void TestTimeline::init()
{
    QSettings().clear();
    m_window = std::make_unique<MainWindow>();
    m_window->show();
}

void TestTimeline::cleanup() { m_window.reset(); }

// Frame i is a uniform gray of level 8 * i: frame 0 is black (all clipped low).
QString TestTimeline::writeVideo(int frames, double fps)
{
    const QString path = m_dir.filePath(QStringLiteral("ramp%1.avi").arg(frames));
    cv::VideoWriter writer(path.toStdString(), cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), fps, cv::Size(48, 32));
    if (!writer.isOpened())
        return {};
    for (int i = 0; i < frames; ++i)
        writer.write(cv::Mat(32, 48, CV_8UC3, cv::Scalar::all(8 * i)));
    return path;
}

// `frames` frames under a header that declares `header` (tree.avi's says 444 and 68 decode).
QString TestTimeline::writeLyingVideo(int frames, std::uint32_t header)
{
    const QString path = writeVideo(frames, 200.0);
    return !path.isEmpty() && aviedit::setHeaderFrameCount(path, header) ? path : QString();
}

SnapshotPtr TestTimeline::waitForFrame(qint64 index)
{
    auto ok = [&] { return m_window->lastSnapshot() && m_window->lastSnapshot()->frameIndex == index; };
    QSignalSpy shown(m_window.get(), &MainWindow::snapshotShown);
    for (int turns = 0; !ok() && turns < 300; ++turns)
        shown.wait(100);
    return ok() ? m_window->lastSnapshot() : SnapshotPtr();
}

void TestTimeline::timecodeAtTheSourceRate_data()
{
    QTest::addColumn<qint64>("frame");
    QTest::addColumn<double>("fps");
    QTest::addColumn<QString>("text");
    QTest::newRow("first frame") << qint64(0) << 25.0 << "00:00:00:00";
    QTest::newRow("last frame of a second") << qint64(24) << 25.0 << "00:00:00:24";
    QTest::newRow("one second") << qint64(25) << 25.0 << "00:00:01:00";
    QTest::newRow("one hour") << qint64(90000) << 25.0 << "01:00:00:00";
    QTest::newRow("29.97 counts 30 a second") << qint64(30) << 29.97 << "00:00:01:00";
    QTest::newRow("1 h 2 min 3 s 4 f at 60") << qint64((3600 + 123) * 60 + 4) << 60.0 << "01:02:03:04";
    QTest::newRow("rate unknown: one a second") << qint64(125) << 0.0 << "00:02:05:00";
    QTest::newRow("no frame") << qint64(-1) << 25.0 << "--:--:--:--";
}

void TestTimeline::timecodeAtTheSourceRate()
{
    QFETCH(qint64, frame);
    QFETCH(double, fps);
    QFETCH(QString, text);
    QCOMPARE(timecode(frame, fps), text);
}

void TestTimeline::plotClickAsksForTheFrameUnderTheCursor_data()
{
    QTest::addColumn<qint64>("first");
    QTest::addColumn<qint64>("count");
    QTest::addColumn<qint64>("frame");
    QTest::newRow("file, first frame") << qint64(0) << qint64(100) << qint64(0);
    QTest::newRow("file, middle") << qint64(0) << qint64(100) << qint64(42);
    QTest::newRow("file, last frame") << qint64(0) << qint64(100) << qint64(99);
    QTest::newRow("live window") << qint64(1000) << qint64(600) << qint64(1234);
}

void TestTimeline::plotClickAsksForTheFrameUnderTheCursor()
{
    QFETCH(qint64, first);
    QFETCH(qint64, count);
    QFETCH(qint64, frame);
    TimeSeriesView view;
    view.resize(700, 120);
    view.setFrameRange(first, count);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QSignalSpy clicked(&view, &TimeSeriesView::frameClicked);
    QTest::mouseClick(&view, Qt::LeftButton, {}, QPointF(view.xOf(frame), view.plotRect().center().y()).toPoint());
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(clicked.at(0).at(0).toLongLong(), frame);
    QCOMPARE(view.frameAt(view.plotRect().left() - 5), qint64(-1));
}

void TestTimeline::seekBarSeeksAndShowsTheTimecode()
{
    const QString path = writeVideo(30, 10.0);
    if (path.isEmpty())
        QSKIP("no MJPEG/AVI writer in this OpenCV build");
    m_window->openPath(path);
    QVERIFY(waitForFrame(0));
    auto* dock = m_window->findChild<QDockWidget*>("timelineDock");
    QVERIFY(dock);
    QTRY_VERIFY(dock->isVisible());
    TimelinePanel* timeline = m_window->timelinePanel();
    QCOMPARE(timeline->slider()->maximum(), 29);
    QVERIFY(timeline->slider()->isEnabled());
    timeline->slider()->setValue(17);
    QVERIFY(waitForFrame(17));
    QCOMPARE(timeline->timecodeText(), QStringLiteral("00:00:01:07 / 00:00:02:09  17/29"));
    QCOMPARE(timeline->slider()->value(), 17);
}

void TestTimeline::plotClickSeeks()
{
    const QString path = writeVideo(30, 10.0);
    if (path.isEmpty())
        QSKIP("no MJPEG/AVI writer in this OpenCV build");
    m_window->openPath(path);
    QVERIFY(waitForFrame(0));
    TimeSeriesView* plot = m_window->timelinePanel()->plot();
    QTRY_VERIFY(plot->isVisible());
    QTest::mouseClick(plot, Qt::LeftButton, {}, QPointF(plot->xOf(23), plot->plotRect().center().y()).toPoint());
    QVERIFY(waitForFrame(23));
    QCOMPARE(plot->currentFrame(), qint64(23));
}

void TestTimeline::oneSeekAtATime()
{
    const QString path = writeVideo(30, 10.0);
    if (path.isEmpty())
        QSKIP("no MJPEG/AVI writer in this OpenCV build");
    m_window->openPath(path);
    QVERIFY(waitForFrame(0));
    QSignalSpy done(m_window->media(), &MediaController::commandDone);
    {
        // The decoder is held: the first seek waits there; the next nineteen requests only
        // replace each other, and the newest is sent once the first is done.
        ThreadGate gate(m_window->media()->workerThread());
        for (int f = 1; f <= 20; ++f)
            m_window->seekTo(f);
    }
    QVERIFY(waitForFrame(20));
    QTRY_COMPARE(done.count(), 2);
    for (const auto& args : done)
        QCOMPARE(args.at(1).value<MediaCommandKind>(), MediaCommandKind::Seek);
}

void TestTimeline::playbackAndBackgroundPassAgree()
{
    const int frames = 30;
    const QString path = writeVideo(frames, 200.0);
    if (path.isEmpty())
        QSKIP("no MJPEG/AVI writer in this OpenCV build");
    m_window->openPath(path);
    QVERIFY(waitForFrame(0));
    TimelinePanel* timeline = m_window->timelinePanel();
    m_window->seekTo(17);
    QVERIFY(waitForFrame(17));
    const auto played = timeline->trendAt(17);
    QVERIFY(played.has_value());
    QCOMPARE(played->mean, m_window->lastSnapshot()->lumaStatistics->mean);
    QSignalSpy scanned(m_window.get(), &MainWindow::scanFinished);
    m_window->toggleScan();
    QTRY_COMPARE_WITH_TIMEOUT(scanned.count(), 1, 60000);
    QVERIFY2(!scanned.at(0).at(0).value<Error>().isError(), qPrintable(scanned.at(0).at(0).value<Error>().message()));
    QCOMPARE(timeline->knownTrends(), qint64(frames));
    // The pass counts frame 17 exactly as playback did.
    QCOMPARE(timeline->trendAt(17)->mean, played->mean);
    QCOMPARE(timeline->trendAt(17)->clippedShare, played->clippedShare);
    // The ramp: frame i is a gray of 8 i (MJPEG keeps a flat field within a level or two),
    // frame 0 black and wholly clipped low, the others not clipped.
    for (int i = 0; i < frames; ++i) {
        const auto t = timeline->trendAt(i);
        QVERIFY(t.has_value());
        QVERIFY2(std::abs(t->mean - 8 * i) <= 2, qPrintable(QStringLiteral("frame %1: %2").arg(i).arg(t->mean)));
        QCOMPARE(t->clippedShare, i == 0 ? 1.0 : 0.0);
    }
    // A new region makes the statistics over time start again.
    m_window->imageView()->setRoi(QRect(0, 0, 10, 10));
    QCOMPARE(timeline->knownTrends() <= 1, true);
}

void TestTimeline::liveSourceHasARollingPlotAndNoSeekBar()
{
    QSignalSpy failed(m_window->media(), &MediaController::failed);
    QSignalSpy opened(m_window->media(), &MediaController::opened);
    m_window->openLive(QStringLiteral("videotestsrc num-buffers=3000 pattern=smpte ! video/x-raw,width=64,height=48,framerate=200/1"));
    QTRY_VERIFY_WITH_TIMEOUT(!opened.isEmpty() || !failed.isEmpty(), 20000);
    if (opened.isEmpty())
        QSKIP(qPrintable("no GStreamer test source here: " + failed.at(0).at(0).value<Error>().message()));
    TimelinePanel* timeline = m_window->timelinePanel();
    QTRY_VERIFY(m_window->findChild<QDockWidget*>("timelineDock")->isVisible());
    QVERIFY(!timeline->slider()->isEnabled());
    QVERIFY(!timeline->scanButton()->isVisible());
    QTRY_VERIFY_WITH_TIMEOUT(timeline->knownTrends() >= 5, 20000);
    QVERIFY(timeline->knownTrends() <= TimelinePanel::kLiveWindow);
    QVERIFY(timeline->timecodeText().startsWith("live"));
    m_window->media()->pause();
}

void TestTimeline::timelineFollowsTheRealEnd_data()
{
    QTest::addColumn<QString>("how");
    QTest::newRow("playback reaches the end") << "play";
    QTest::newRow("a step reaches the end") << "step";
    QTest::newRow("a seek past the end") << "seek";
    QTest::newRow("Scan File reaches the end") << "scan";
}

// The header says 444 frames, the file has fewer. Once the end is known, the bar, its counter
// and the seeks run to the real last frame, and the window says where the end is; Play at the
// end starts again and Step there says it is the end.
void TestTimeline::timelineFollowsTheRealEnd()
{
    QFETCH(QString, how);
    if (!cv::videoio_registry::hasBackend(cv::CAP_FFMPEG))
        QSKIP("an AVI header's count is FFmpeg's reading; this OpenCV has no FFmpeg");
    const int frames = 14 + int(m_rng() % 12);
    const qint64 last = frames - 1;
    const QString path = writeLyingVideo(frames, 444);
    if (path.isEmpty())
        QSKIP("no MJPEG/AVI writer in this OpenCV build");
    m_window->openPath(path);
    QVERIFY(waitForFrame(0));
    TimelinePanel* timeline = m_window->timelinePanel();
    QCOMPARE(timeline->slider()->maximum(), 443);   // the header's estimate, until the end is known
    QVERIFY(!m_window->frameCountKnown());
    QSignalSpy ended(m_window->media(), &MediaController::endOfStream);
    QSignalSpy length(m_window->media(), &MediaController::lengthFound);
    QStatusBar* status = m_window->statusBar();
    if (how == "play") {
        m_window->media()->play();
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, 20000);
    } else if (how == "step") {
        m_window->seekTo(last);
        QVERIFY(waitForFrame(last));
        m_window->media()->step();
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, 20000);
    } else if (how == "seek") {
        m_window->seekTo(400);
        QTRY_COMPARE_WITH_TIMEOUT(length.count(), 1, 20000);
        QTRY_VERIFY(status->currentMessage().contains(QStringLiteral("Frame 400 is past the end")));
    } else {
        QSignalSpy scanned(m_window.get(), &MainWindow::scanFinished);
        m_window->toggleScan();
        QTRY_COMPARE_WITH_TIMEOUT(scanned.count(), 1, 60000);
        QVERIFY(!scanned.at(0).at(0).value<Error>().isError());
        QCOMPARE(timeline->scanStatusText(), QStringLiteral("%1 frames scanned").arg(frames));
    }
    // The timeline, its counter and the seek range follow the real end.
    QTRY_VERIFY(m_window->frameCountKnown());
    QCOMPARE(m_window->frameCount(), qint64(frames));
    QCOMPARE(timeline->frameCount(), qint64(frames));
    QCOMPARE(timeline->slider()->maximum(), int(last));
    QCOMPARE(timeline->plot()->frameCount(), qint64(frames));
    QVERIFY2(timeline->timecodeText().contains(QStringLiteral("/%1").arg(last)), qPrintable(timeline->timecodeText()));
    QVERIFY(!timeline->timecodeText().contains(QStringLiteral("443")));
    if (how == "play" || how == "step") {
        // Reaching the end says so: the counter and the status line, with the header's count.
        QVERIFY(waitForFrame(last));
        QTRY_VERIFY2(timeline->timecodeText().endsWith(QStringLiteral("%1/%1  end").arg(last)), qPrintable(timeline->timecodeText()));
        QVERIFY2(status->currentMessage().contains(QStringLiteral("End of")), qPrintable(status->currentMessage()));
        QVERIFY2(status->currentMessage().contains(QStringLiteral("its header declares 444")), qPrintable(status->currentMessage()));
    }
    // A seek past the real end shows the last frame and says so, never "frame N is outside".
    m_window->seekTo(300);
    QVERIFY(waitForFrame(last));
    QTRY_VERIFY2(status->currentMessage().contains(QStringLiteral("Frame 300 is past the end")), qPrintable(status->currentMessage()));
    QVERIFY(m_window->errorText().isEmpty());
    QCOMPARE(timeline->slider()->value(), int(last));
    // At the end: Step says it is the end; Play starts again from the first frame.
    const int endedBefore = ended.count();
    m_window->media()->step();
    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), endedBefore + 1, 20000);
    QTRY_VERIFY2(status->currentMessage().contains(QStringLiteral("End of")), qPrintable(status->currentMessage()));
    QSignalSpy playing(m_window->media(), &MediaController::playingChanged);
    const qint64 delivered = m_window->media()->deliveredFrames();
    m_window->media()->play();
    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), endedBefore + 2, 20000);
    QCOMPARE(playing.count(), 2);
    QCOMPARE(m_window->media()->deliveredFrames(), delivered + frames);   // the whole file again
    QVERIFY(waitForFrame(last));
    QCOMPARE(length.count(), 1);   // told once
    QVERIFY(m_window->errorText().isEmpty());
}

QTEST_MAIN(TestTimeline)
#include "tst_timeline.moc"
