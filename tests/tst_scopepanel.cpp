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
#include <QTabWidget>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include <algorithm>
#include <functional>
#include <limits>
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
    void panelsSayTheyAreCounting();
    void hueSaturationHasNoFalseLineAtOneHalf();
    void floatAxesHoldTheData_data();
    void floatAxesHoldTheData();
    void exposureIsSharedAndRecounts();
    void optionsAreRememberedBetweenRuns();

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
    waveform->graticuleBox()->setCurrentIndex(2);   // 0-100 %, full range
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

// While the worker counts, a panel with nothing of the source to show says so, instead of
// asking for a file that is open.
void TestScopePanel::panelsSayTheyAreCounting()
{
    for (ScopePanel* p : scopes()->panels())
        QCOMPARE(p->statusLabel()->text(), QStringLiteral("Open an image or a video"));
    ThreadGate gate(scopes()->controller()->workerThread());
    scopes()->setCountAll(true);
    m_window->openPath(m_path);
    QTRY_VERIFY_WITH_TIMEOUT(scopes()->controller()->lastGeneration() > 0, 20000);
    for (ScopePanel* p : scopes()->panels()) {
        const QString text = p->statusLabel()->text();
        QVERIFY2(text.startsWith(QStringLiteral("Counting the ")) && !text.contains(QStringLiteral("Open an image")), qPrintable(text));
    }
    gate.release();
    QVERIFY(waitForScopes([](const ScopeSnapshot& s) { return s.vectorscope.has_value(); }));
    for (ScopePanel* p : scopes()->panels())
        QTRY_VERIFY2(p->statusLabel()->text().contains(QStringLiteral("%1×%2").arg(kWidth).arg(kHeight)), qPrintable(p->statusLabel()->text()));
}

// 8-bit saturations d / max cluster on both sides of 1/2 (and of every simple fraction). With
// rows [k/256, (k+1)/256) the row starting at 0.5 took the cluster and the one below lost it:
// a bright line at 0.5 with a dark one under it, in no image. Rows centred on k/256 are even.
void TestScopePanel::hueSaturationHasNoFalseLineAtOneHalf()
{
    cv::Mat bgr(400, 600, CV_8UC3);   // rows of about 900 counts: noise of 3 %
    std::uniform_int_distribution<int> maxima(96, 160);
    for (int y = 0; y < bgr.rows; ++y)
        for (int x = 0; x < bgr.cols; ++x) {
            // Saturation spread evenly over [0, 1]: the largest channel, the smallest, one between.
            const int mx = maxima(m_rng);
            const int mn = mx - std::uniform_int_distribution<int>(0, mx)(m_rng);
            int px[3] = {mx, mn, std::uniform_int_distribution<int>(mn, mx)(m_rng)};
            std::shuffle(px, px + 3, m_rng);
            bgr.at<cv::Vec3b>(y, x) = cv::Vec3b(uchar(px[0]), uchar(px[1]), uchar(px[2]));
        }
    const QString path = m_dir.filePath(QStringLiteral("saturation.png"));
    QVERIFY(cv::imwrite(path.toStdString(), bgr));
    scopes()->setCountAll(true);
    m_window->openPath(path);
    const ScopeSnapshotPtr s = waitForScopes([](const ScopeSnapshot& s) { return s.histogram2d.has_value(); });
    QVERIFY(s);
    const ScopePlane& h = *s->histogram2d;
    QCOMPARE(h.inRange, h.total);
    // Saturation 0 and 1 are the centres of the first and last rows: whole rows inside the axis.
    const double row = (h.yHi - h.yLo) / h.yBins;
    QVERIFY(std::abs(h.yLo + row / 2) < 1e-9 && std::abs(h.yHi - row / 2 - 1) < 1e-9);
    auto rowTotal = [&](int y) {
        double t = 0;
        for (int x = 0; x < h.xBins; ++x)
            t += h.at(x, y);
        return t;
    };
    const int half = int(std::floor((0.5 - h.yLo) / row));
    double around = 0;
    int n = 0;
    for (int y = half - 6; y <= half + 6; ++y)
        if (y != half) {
            around += rowTotal(y);
            ++n;
        }
    around /= n;
    // Rows [k/256, (k+1)/256) gave the row at 0.5 about 1.5 times its neighbours and the one
    // below it half; now each is within the noise of a few per cent.
    for (int y : {half - 1, half, half + 1})
        QVERIFY2(std::abs(rowTotal(y) / around - 1) < 0.2,
                 qPrintable(QStringLiteral("row %1 holds %2, its neighbours %3 on average").arg(y).arg(rowTotal(y)).arg(around)));
}

namespace {

// A grey float frame (R = G = B, so luma equals the sample exactly): `values` cycled over its pixels.
Frame greyFloatFrame(const std::vector<float>& values, int width, int height)
{
    auto data = std::make_shared<std::vector<float>>(std::size_t(width) * height * 3);
    for (std::size_t i = 0; i < std::size_t(width) * height; ++i)
        for (int c = 0; c < 3; ++c)
            (*data)[i * 3 + c] = values[i % values.size()];
    return Frame(std::shared_ptr<const void>(data, data->data()), reinterpret_cast<const unsigned char*>(data->data()),
                 hs::SampleType::F32, width, height, 3, std::size_t(width) * 3 * sizeof(float), ChannelOrder::Rgb);
}

}  // namespace

void TestScopePanel::floatAxesHoldTheData_data()
{
    QTest::addColumn<int>("axis");
    QTest::addColumn<double>("exposure");
    QTest::addColumn<int>("above");       // pixels above the axis, of the 40 below
    QTest::addColumn<double>("shownTop"); // the axis's top in shown units, at least
    QTest::addColumn<double>("twoShownAt");
    const int fit = int(ScopeFloatAxis::Fit), unit = int(ScopeFloatAxis::Unit);
    // Per 8 pixels: 0.25 (x3), 0.5, 1.0, 2.0, 3.5 and +inf.
    QTest::newRow("fit: the axis holds every finite sample") << fit << 0.0 << 5 << 3.5 << 2.0;
    QTest::newRow("0-1: 2.0, 3.5 and inf clip") << unit << 0.0 << 15 << 1.0 << -1.0;
    QTest::newRow("0-1 at -2 EV: values up to 4 come into view") << unit << -2.0 << 5 << 1.0 << 0.5;
    QTest::newRow("fit at +1 EV: shown doubled") << fit << 1.0 << 5 << 7.0 << 4.0;
}

// A float frame's waveform and parade run in float units over an axis that holds the data (or
// 0-1), exposure scales what is shown, and what lies beyond is counted and said.
void TestScopePanel::floatAxesHoldTheData()
{
    QFETCH(int, axis);
    QFETCH(double, exposure);
    QFETCH(int, above);
    QFETCH(double, shownTop);
    QFETCH(double, twoShownAt);
    const float inf = std::numeric_limits<float>::infinity();
    const Frame frame = greyFloatFrame({0.25f, 0.25f, 0.5f, 1.0f, 2.0f, 3.5f, inf, 0.25f}, 8, 5);
    ScopeController controller;
    QSignalSpy results(&controller, &ScopeController::resultReady);
    ScopeSettings settings;
    settings.kinds = scopeBit(ScopeKind::Waveform) | scopeBit(ScopeKind::Parade);
    settings.floatAxis = ScopeFloatAxis(axis);
    settings.exposure = exposure;
    controller.submit(frame, std::nullopt, settings);
    QTRY_COMPARE_WITH_TIMEOUT(results.count(), 1, 20000);
    const ScopeSnapshotPtr s = results.at(0).at(0).value<ScopeSnapshotPtr>();
    QVERIFY2(!s->error.isError(), qPrintable(s->error.message()));
    QVERIFY(s->floatValues);
    QCOMPARE(s->codeMax, 1.0);
    QCOMPARE(s->waveform.size(), 1);
    QCOMPARE(s->parade.size(), 3);
    QVector<const ScopePlane*> planes{&s->waveform.front(), &s->parade[0], &s->parade[2]};
    for (const ScopePlane* p : planes) {
        QVERIFY2(p->yLo <= 0 && p->yHi >= shownTop && p->yHi < shownTop * 1.01 + 0.01,
                 qPrintable(QStringLiteral("%1: [%2, %3)").arg(p->name).arg(p->yLo).arg(p->yHi)));
        QCOMPARE(p->aboveY, quint64(above));
        QCOMPARE(p->belowY, quint64(0));
        QCOMPARE(double(p->inRange + p->aboveY), double(p->total));
        double overflow = 0;
        for (double v : p->aboveByX)
            overflow += v;
        QCOMPARE(overflow, double(above));   // per column, where the red marks go
        QVERIFY(!p->clipAtEnds);
        // Column 4 holds the 2.0 samples: where they are shown, in exposed units.
        if (twoShownAt >= 0) {
            const int bin = int(std::floor((twoShownAt - p->yLo) / (p->yHi - p->yLo) * p->yBins));
            QVERIFY2(p->at(4, bin) == 5, qPrintable(QStringLiteral("%1 bin %2: %3").arg(p->name).arg(bin).arg(p->at(4, bin))));
        }
    }
    QVERIFY2(scopeClipText(*s, ScopeKind::Waveform).contains(QStringLiteral("above")), qPrintable(scopeClipText(*s, ScopeKind::Waveform)));
    // A panel showing it offers the exposure and the float axis.
    ScopePanel panel(ScopeKind::Parade);
    panel.resize(900, 300);
    panel.show();
    QVERIFY(!panel.exposureBox()->isVisible());
    panel.showSnapshot(s);
    QVERIFY(panel.exposureBox()->isVisible() && panel.floatAxisBox()->isVisible());
    const ScopeDisplay d = scopeDisplay(*s, ScopeKind::Parade);
    QVERIFY(d.floatValues);
    QCOMPARE(d.exposure, exposure);
    QCOMPARE(d.grids[0].over.size(), 8);
}

void TestScopePanel::exposureIsSharedAndRecounts()
{
    scopes()->setCountAll(true);
    m_window->openPath(m_path);
    QVERIFY(waitForScopes([](const ScopeSnapshot& s) { return !s.parade.isEmpty(); }));
    // An 8-bit frame has no exposure: the controls are hidden.
    for (ScopePanel* p : scopes()->panels())
        QVERIFY(!p->exposureBox()->isVisible());
    scopes()->panel(ScopeKind::Parade)->exposureBox()->setValue(-1.5);
    for (ScopePanel* p : scopes()->panels())
        QCOMPARE(p->exposureBox()->value(), -1.5);
    QCOMPARE(scopes()->options().exposure, -1.5);
    QVERIFY(waitForScopes([](const ScopeSnapshot& s) { return s.settings.exposure == -1.5; }));
}

// Every panel's options, the shared ones and the current tab survive a restart, and a change of
// the histogram's settings (whose panel knows nothing of the scopes) keeps them.
void TestScopePanel::optionsAreRememberedBetweenRuns()
{
    ScopePanel* waveform = scopes()->panel(ScopeKind::Waveform);
    ScopePanel* parade = scopes()->panel(ScopeKind::Parade);
    ScopePanel* vs = scopes()->panel(ScopeKind::Vectorscope);
    ScopePanel* h2 = scopes()->panel(ScopeKind::Histogram2D);
    waveform->modeBox()->setCurrentIndex(1);
    waveform->graticuleBox()->setCurrentIndex(3);
    waveform->gainBox()->setValue(2.5);
    waveform->logBox()->setChecked(true);
    parade->graticuleBox()->setCurrentIndex(1);
    parade->gainBox()->setValue(0.5);
    parade->floatAxisBox()->setCurrentIndex(1);
    vs->targetsBox()->setCurrentIndex(1);
    vs->traceBox()->setCurrentIndex(1);
    vs->skinToneBox()->setChecked(false);
    vs->gainBox()->setValue(3);
    h2->modeBox()->setCurrentIndex(2);
    h2->logBox()->setChecked(false);
    vs->exposureBox()->setValue(2);
    auto* tabs = qobject_cast<QTabWidget*>(m_window->scopesDock()->widget());
    QVERIFY(tabs);
    tabs->setCurrentIndex(2);

    ScopeOptions expected;
    expected.rgbWaveform = true;
    expected.waveformGraticule = {ScopeScale::Percent, ScopeRange::Legal};
    expected.waveform = {2.5, true};
    expected.paradeGraticule = {ScopeScale::CodeValues, ScopeRange::Legal};
    expected.parade = {0.5, false};
    expected.floatAxis = ScopeFloatAxis::Unit;
    expected.targets = ScopeTargets::Bars100;
    expected.trace = ScopeTrace::PixelColours;
    expected.skinToneLine = false;
    expected.vectorscope = {3.0, false};
    expected.pair = ScopePair::RedBlue;
    expected.histogram2dLog = false;
    expected.exposure = 2;
    expected.tab = 2;
    QVERIFY(scopes()->options() == expected);
    // A histogram setting changed through the window: the scopes' options stay as they are.
    HistogramSettings other;
    other.counting.bins = 512;
    m_window->setSettings(other);
    {
        QSettings store;
        QCOMPARE(store.value("scopes/waveform/gain").toDouble(), 2.5);
        QCOMPARE(store.value("scopes/vectorscope/trace").toString(), QStringLiteral("pixel-colours"));
        QCOMPARE(store.value("scopes/tab").toString(), QStringLiteral("vectorscope"));
        QCOMPARE(store.value("histogram/bins").toInt(), 512);
    }

    m_window = std::make_unique<MainWindow>();   // the next run
    m_window->show();
    QVERIFY(scopes()->options() == expected);
    waveform = scopes()->panel(ScopeKind::Waveform);
    vs = scopes()->panel(ScopeKind::Vectorscope);
    h2 = scopes()->panel(ScopeKind::Histogram2D);
    QCOMPARE(waveform->modeBox()->currentIndex(), 1);
    QCOMPARE(waveform->graticuleBox()->currentIndex(), 3);
    QCOMPARE(waveform->waveformView()->scale(), WaveformView::Scale::Percent);
    QCOMPARE(waveform->waveformView()->range(), WaveformView::Range::Legal);
    QCOMPARE(waveform->waveformView()->gain(), 2.5);
    QVERIFY(waveform->waveformView()->logIntensity());
    QCOMPARE(vs->vectorscopeView()->targetAmplitude(), 1.0);
    QCOMPARE(vs->vectorscopeView()->trace(), VectorscopeView::Trace::PixelColours);
    QVERIFY(!vs->vectorscopeView()->skinToneLine());
    QCOMPARE(h2->pair(), ScopePair::RedBlue);
    QVERIFY(!h2->histogramView()->logIntensity());
    QCOMPARE(scopes()->panel(ScopeKind::Parade)->exposureBox()->value(), 2.0);
    QCOMPARE(qobject_cast<QTabWidget*>(m_window->scopesDock()->widget())->currentIndex(), 2);
}

QTEST_MAIN(TestScopePanel)
#include "tst_scopepanel.moc"
