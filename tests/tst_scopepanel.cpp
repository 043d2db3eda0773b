// The scopes in the window (offscreen): a generated image with a known column is opened, and
// the scopes' counts are checked against oracles computed here from the pixels: the parade's
// counts[x][v] for every column, the vectorscope's total, the known column's luma and chroma,
// the region of interest, the controls, and a stale generation dropped by the controller.
#include "app/core/ScopeController.h"
#include "app/gui/MainWindow.h"
#include "app/gui/ScopePanel.h"
#include "app/gui/Scopes.h"
#include "widgets/Histogram2DView.h"
#include "widgets/HistogramView.h"
#include "widgets/ImageCanvas.h"
#include "widgets/VectorscopeView.h"
#include "widgets/WaveformView.h"

#include "TestSupport.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include <functional>
#include <numeric>

using namespace testsupport;

namespace {

constexpr int kWidth = 61;
constexpr int kHeight = 37;
constexpr int kGreyColumn = 7;   // every pixel (77, 77, 77): luma 77, Cb = Cr = 128

double sum(const QVector<double>& v) { return std::accumulate(v.cbegin(), v.cend(), 0.0); }

}  // namespace

class TestScopePanel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void paradeEqualsTheOracle();
    void vectorscopeAndWaveformCountEveryPixel();
    void scopesFollowTheRegion();
    void controlsChangeWhatIsShown();
    void onlyVisibleScopesAreCounted();
    void hoverReadoutTakesTheStatusPlace_data();
    void hoverReadoutTakesTheStatusPlace();
    void rateText_data();
    void rateText();
    void staleGenerationIsDropped();

private:
    ScopeSnapshotPtr waitForScopes(const std::function<bool(const ScopeSnapshot&)>& accept);
    Scopes* scopes() { return m_window->scopes(); }

    QTemporaryDir m_dir;
    QString m_path;
    cv::Mat m_bgr;
    std::unique_ptr<MainWindow> m_window;
    std::mt19937_64 m_rng;
};

void TestScopePanel::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    m_rng = seededRng();
    cv::theRNG().state = m_rng();
    m_bgr = cv::Mat(kHeight, kWidth, CV_8UC3);
    cv::randu(m_bgr, cv::Scalar::all(0), cv::Scalar::all(256));
    m_bgr.col(kGreyColumn).setTo(cv::Scalar(77, 77, 77));
    m_path = m_dir.filePath(QStringLiteral("scopes.png"));
    QVERIFY(cv::imwrite(m_path.toStdString(), m_bgr));
}

void TestScopePanel::init()
{
    QSettings().clear();
    m_window = std::make_unique<MainWindow>();
    m_window->show();
}

void TestScopePanel::cleanup() { m_window.reset(); }

ScopeSnapshotPtr TestScopePanel::waitForScopes(const std::function<bool(const ScopeSnapshot&)>& accept)
{
    auto ok = [&] { return scopes()->lastSnapshot() && accept(*scopes()->lastSnapshot()); };
    if (!ok())
        [&] { QTRY_VERIFY_WITH_TIMEOUT(ok(), 20000); }();
    return ok() ? scopes()->lastSnapshot() : nullptr;
}

void TestScopePanel::paradeEqualsTheOracle()
{
    scopes()->setCountAll(true);
    m_window->openPath(m_path);
    const ScopeSnapshotPtr s = waitForScopes([](const ScopeSnapshot& s) { return !s.parade.isEmpty(); });
    QVERIFY(s);
    QVERIFY(!s->error.isError());
    QCOMPARE(s->parade.size(), 3);
    const char* names[3] = {"R", "G", "B"};
    for (int c = 0; c < 3; ++c) {
        const ScopePlane& plane = s->parade[c];
        QCOMPARE(plane.name, QString::fromLatin1(names[c]));
        QCOMPARE(plane.xBins, kWidth);
        QCOMPARE(plane.yBins, 256);
        // The oracle: counts[x][v] = pixels of column x whose channel c is v (OpenCV holds BGR).
        std::vector<double> oracle(std::size_t(kWidth) * 256, 0.0);
        for (int y = 0; y < kHeight; ++y)
            for (int x = 0; x < kWidth; ++x)
                oracle[std::size_t(x) * 256 + m_bgr.at<cv::Vec3b>(y, x)[2 - c]] += 1;
        for (int x = 0; x < kWidth; ++x)
            for (int v = 0; v < 256; ++v)
                QCOMPARE(plane.at(x, v), oracle[std::size_t(x) * 256 + std::size_t(v)]);
        QCOMPARE(plane.at(kGreyColumn, 77), double(kHeight));
    }
    // The panel shows exactly those counts, coloured per channel.
    ScopePanel* parade = scopes()->panel(ScopeKind::Parade);
    QTRY_COMPARE(parade->display().grids.size(), 3);
    QCOMPARE(parade->display().kind, ScopeDisplay::Kind::Parade);
    QCOMPARE(parade->display().codeMax, 255.0);
    QCOMPARE(parade->display().grids[0].counts, s->parade[0].counts);
    QVERIFY(parade->display().grids[0].color.red() > parade->display().grids[0].color.green());
    QCOMPARE(parade->waveformView()->panelCount(), 3);
    QVERIFY(parade->statusLabel()->text().contains(QStringLiteral("%1×%2").arg(kWidth).arg(kHeight)));
    QVERIFY(parade->statusLabel()->text().contains(QStringLiteral("CPU")) || parade->statusLabel()->text().contains(QStringLiteral("GPU")));
}

void TestScopePanel::vectorscopeAndWaveformCountEveryPixel()
{
    scopes()->setCountAll(true);
    m_window->openPath(m_path);
    const ScopeSnapshotPtr s = waitForScopes([](const ScopeSnapshot& s) { return s.vectorscope.has_value(); });
    QVERIFY(s);
    const ScopePlane& v = *s->vectorscope;
    QCOMPARE(v.xName, QStringLiteral("Cb"));
    QCOMPARE(v.yName, QStringLiteral("Cr"));
    QCOMPARE(sum(v.counts), double(kWidth * kHeight));
    QCOMPARE(v.total, quint64(kWidth * kHeight));
    QVERIFY(v.at(128, 128) >= kHeight);   // the grey column sits at the centre
    QCOMPARE(s->waveform.size(), 1);
    const ScopePlane& luma = s->waveform.front();
    QCOMPARE(sum(luma.counts), double(kWidth * kHeight));
    QCOMPARE(luma.at(kGreyColumn, 77), double(kHeight));
    // BT.709 luma of one random pixel, by the integer formula of docs/SCOPES.md.
    const cv::Vec3b p = m_bgr.at<cv::Vec3b>(0, 0);
    const int y709 = (13933 * p[2] + 46871 * p[1] + 4732 * p[0] + 32768) >> 16;
    QVERIFY(luma.at(0, y709) >= 1);
    ScopePanel* vs = scopes()->panel(ScopeKind::Vectorscope);
    QTRY_COMPARE(vs->display().grids.size(), 1);
    QCOMPARE(sum(vs->vectorscopeView()->display().grids[0].counts), double(kWidth * kHeight));
    QVERIFY(vs->display().bt709);
    ScopePanel* h2 = scopes()->panel(ScopeKind::Histogram2D);
    QTRY_COMPARE(h2->display().grids.size(), 1);
    QCOMPARE(h2->display().grids[0].xBins, 360);   // hue against saturation by default
    QCOMPARE(s->histogram2d->total, quint64(kWidth * kHeight));
    // Every pixel is drawn: fully saturated ones (a channel at 0, saturation exactly 1, about one
    // random pixel in a hundred) fall inside the saturation axis, not above it.
    QCOMPARE(s->histogram2d->inRange, s->histogram2d->total);
}

void TestScopePanel::scopesFollowTheRegion()
{
    scopes()->setCountAll(true);
    m_window->openPath(m_path);
    QVERIFY(waitForScopes([](const ScopeSnapshot& s) { return !s.parade.isEmpty() && !s.roi; }));
    const QRect r(5, 4, 20, 11);
    m_window->imageView()->setRoi(r);
    const ScopeSnapshotPtr s = waitForScopes([](const ScopeSnapshot& s) { return s.roi.has_value() && !s.parade.isEmpty(); });
    QVERIFY(s);
    QCOMPARE(s->width, qint64(r.width()));
    QCOMPARE(s->height, qint64(r.height()));
    QCOMPARE(sum(s->vectorscope->counts), double(r.width() * r.height()));
    const ScopePlane& red = s->parade[0];
    QCOMPARE(red.xBins, r.width());
    for (int x = 0; x < r.width(); ++x) {
        std::vector<double> column(256, 0.0);
        for (int y = r.top(); y <= r.bottom(); ++y)
            column[m_bgr.at<cv::Vec3b>(y, r.left() + x)[2]] += 1;
        for (int v = 0; v < 256; ++v)
            QCOMPARE(red.at(x, v), column[std::size_t(v)]);
    }
    // Column 2 of the region is the grey column of the image.
    QCOMPARE(red.at(kGreyColumn - r.left(), 77), double(r.height()));
    QTRY_COMPARE(scopes()->panel(ScopeKind::Waveform)->display().grids.value(0).xBins, r.width());
}

void TestScopePanel::controlsChangeWhatIsShown()
{
    scopes()->setCountAll(true);
    m_window->openPath(m_path);
    QVERIFY(waitForScopes([](const ScopeSnapshot& s) { return !s.parade.isEmpty(); }));
    ScopePanel* waveform = scopes()->panel(ScopeKind::Waveform);
    QTRY_COMPARE(waveform->display().grids.size(), 1);   // luma
    waveform->modeBox()->setCurrentIndex(1);                // RGB overlay: the parade's planes
    QTRY_COMPARE(waveform->display().grids.size(), 3);
    QCOMPARE(waveform->waveformView()->panelCount(), 1);
    waveform->scaleBox()->setCurrentIndex(1);
    QCOMPARE(waveform->waveformView()->scaleLabels().last(), QStringLiteral("100%"));
    waveform->logBox()->setChecked(!waveform->logBox()->isChecked());
    waveform->gainBox()->setValue(4);
    QCOMPARE(waveform->waveformView()->gain(), 4.0);
    ScopePanel* vs = scopes()->panel(ScopeKind::Vectorscope);
    vs->skinToneBox()->setChecked(false);
    QVERIFY(!vs->vectorscopeView()->skinToneLine());
    // The 2-D histogram: R against G, counted again.
    ScopePanel* h2 = scopes()->panel(ScopeKind::Histogram2D);
    h2->modeBox()->setCurrentIndex(1);
    const ScopeSnapshotPtr s = waitForScopes([](const ScopeSnapshot& s) { return s.settings.pair == ScopePair::RedGreen; });
    QVERIFY(s);
    QCOMPARE(s->histogram2d->xName, QStringLiteral("R"));
    QCOMPARE(s->histogram2d->yName, QStringLiteral("G"));
    const cv::Vec3b p = m_bgr.at<cv::Vec3b>(3, 9);
    QVERIFY(s->histogram2d->at(p[2], p[1]) >= 1);
    QVERIFY(s->histogram2d->at(77, 77) >= kHeight);
    QTRY_COMPARE(h2->display().grids.value(0).xName, QStringLiteral("R"));
}

void TestScopePanel::onlyVisibleScopesAreCounted()
{
    // The scopes sit behind the histogram: nothing is counted until one shows.
    QCOMPARE(scopes()->neededKinds(), ScopeKinds(0));
    m_window->openPath(m_path);
    QTRY_VERIFY_WITH_TIMEOUT(m_window->lastSnapshot(), 20000);
    QCOMPARE(scopes()->controller()->lastGeneration(), quint64(0));
    m_window->scopesDock()->raise();   // the waveform tab shows: its kind alone is counted
    const ScopeSnapshotPtr s = waitForScopes([](const ScopeSnapshot&) { return true; });
    QVERIFY(s);
    QCOMPARE(s->settings.kinds, scopeBit(ScopeKind::Waveform));
    QVERIFY(s->parade.isEmpty());
    QVERIFY(!s->vectorscope);
    QCOMPARE(s->waveform.size(), 1);
}

void TestScopePanel::hoverReadoutTakesTheStatusPlace_data()
{
    QTest::addColumn<int>("kind");
    QTest::newRow("waveform") << int(ScopeKind::Waveform);
    QTest::newRow("parade") << int(ScopeKind::Parade);
    QTest::newRow("vectorscope") << int(ScopeKind::Vectorscope);
    QTest::newRow("2-D histogram") << int(ScopeKind::Histogram2D);
}

void TestScopePanel::hoverReadoutTakesTheStatusPlace()
{
    QFETCH(int, kind);
    ScopePanel panel{ScopeKind(kind)};
    panel.resize(470, 300);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    ScopeView* view = panel.waveformView() ? static_cast<ScopeView*>(panel.waveformView())
                      : panel.vectorscopeView() ? static_cast<ScopeView*>(panel.vectorscopeView())
                                                : static_cast<ScopeView*>(panel.histogramView());
    QVERIFY(view);
    const int minimum = panel.minimumSizeHint().width();
    // A readout far wider than the panel: it replaces the status and never widens the dock.
    emit view->hovered(QStringLiteral("hue [177, 178)  saturation [0.5742, 0.5781)  count 123456789").repeated(3));
    QVERIFY(!panel.statusLabel()->isVisible());
    QCOMPARE(panel.minimumSizeHint().width(), minimum);
    emit view->hovered(QString());
    QVERIFY(panel.statusLabel()->isVisible());
    QCOMPARE(panel.minimumSizeHint().width(), minimum);
}

void TestScopePanel::rateText_data()
{
    QTest::addColumn<bool>("playing");
    QTest::addColumn<double>("measured");
    QTest::addColumn<double>("computeMs");
    QTest::addColumn<QString>("text");
    QTest::newRow("playing: the measured rate") << true << 25.04 << 30.4 << QStringLiteral(" · 25.0 scopes/s");
    QTest::newRow("playing, slower than 1/s: still measured") << true << 0.5 << 30.4 << QStringLiteral(" · 0.5 scopes/s");
    QTest::newRow("still, two recounts close together: what one count allows")
        << false << 2.3 << 30.4 << QStringLiteral(" (up to 33 scopes/s)");
    QTest::newRow("slow counts keep a decimal") << false << 0.0 << 250.0 << QStringLiteral(" (up to 4.0 scopes/s)");
    QTest::newRow("no timing") << false << 0.0 << 0.0 << QString();
}

void TestScopePanel::rateText()
{
    QFETCH(bool, playing);
    QFETCH(double, measured);
    QFETCH(double, computeMs);
    QFETCH(QString, text);
    QCOMPARE(scopeRateText(playing, measured, computeMs), text);
}

void TestScopePanel::staleGenerationIsDropped()
{
    ScopeController controller;
    QSignalSpy results(&controller, &ScopeController::resultReady);
    const Frame old = randomFrame(m_rng, hs::SampleType::U8, 40, 30, 3, ChannelOrder::Bgr);
    const Frame fresh = randomFrame(m_rng, hs::SampleType::U8, 20, 10, 3, ChannelOrder::Bgr);
    ThreadGate first(controller.workerThread());
    controller.submit(old, std::nullopt, ScopeSettings{});
    ThreadGate second(controller.workerThread(), false);   // behind the count of `old`
    first.release();
    second.waitEntered();
    // `old` is counted and its answer waits in this thread's queue: a new source starts now.
    controller.invalidate();
    const quint64 freshGeneration = controller.submit(fresh, std::nullopt, ScopeSettings{});
    second.release();
    QTRY_COMPARE_WITH_TIMEOUT(results.count(), 1, 20000);
    QCOMPARE(controller.staleResults(), qint64(1));
    const ScopeSnapshotPtr s = results.at(0).at(0).value<ScopeSnapshotPtr>();
    QCOMPARE(s->generation, freshGeneration);
    QCOMPARE(s->vectorscope->total, quint64(200));
    QCOMPARE(controller.deliveredGeneration(), freshGeneration);
}

QTEST_MAIN(TestScopePanel)
#include "tst_scopepanel.moc"
