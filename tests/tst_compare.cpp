// Comparing with a pinned reference: the compareHist distances against formulas written here,
// the reference overlaid on the plot (equal areas), pinned across files, distances computed
// off the GUI thread for every new histogram, binning mismatches said, and matching the
// current image to the reference from the window.
#include "app/core/HistogramDistances.h"
#include "app/gui/ComparePanel.h"
#include "app/gui/EqualizeDialog.h"
#include "app/gui/MainWindow.h"
#include "widgets/HistogramView.h"
#include "widgets/TablePanel.h"

#include "TestSupport.h"

#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <opencv2/imgcodecs.hpp>

#include <cmath>

using namespace testsupport;

namespace {

struct Oracle {
    double correlation, chiSquare, intersection, bhattacharyya;
};

// The four measures from their definitions, on histograms normalized to a sum of 1.
Oracle oracle(const std::vector<std::uint64_t>& ha, const std::vector<std::uint64_t>& hb)
{
    const std::size_t n = ha.size();
    double sa = 0, sb = 0;
    for (std::size_t i = 0; i < n; ++i) {
        sa += double(ha[i]);
        sb += double(hb[i]);
    }
    std::vector<double> a(n), b(n);
    for (std::size_t i = 0; i < n; ++i) {
        a[i] = double(ha[i]) / sa;
        b[i] = double(hb[i]) / sb;
    }
    const double ma = 1.0 / double(n), mb = 1.0 / double(n);
    double cov = 0, va = 0, vb = 0, chi = 0, inter = 0, bc = 0;
    for (std::size_t i = 0; i < n; ++i) {
        cov += (a[i] - ma) * (b[i] - mb);
        va += (a[i] - ma) * (a[i] - ma);
        vb += (b[i] - mb) * (b[i] - mb);
        if (a[i] > 0)
            chi += (a[i] - b[i]) * (a[i] - b[i]) / a[i];
        inter += std::min(a[i], b[i]);
        bc += std::sqrt(a[i] * b[i]);
    }
    // OpenCV's Bhattacharyya: sqrt(1 - sum sqrt(a b) / sqrt(mean(a) mean(b) n^2)).
    const double bhatt = std::sqrt(std::max(0.0, 1 - bc / std::sqrt(ma * mb * double(n) * double(n))));
    return {cov / std::sqrt(va * vb), chi, inter, bhatt};
}

HistogramSnapshot snapshotOf(const std::vector<std::uint64_t>& counts)
{
    HistogramSnapshot s;
    auto pixels = std::make_shared<std::vector<unsigned char>>(1, 0);
    s.frame = Frame(std::shared_ptr<const void>(pixels, pixels->data()), pixels->data(), hs::SampleType::U8, 1, 1, 1, 1,
                    ChannelOrder::Gray);
    hs::ChannelHistogram h;
    h.channel = 0;
    h.binning.bins = std::uint32_t(counts.size());
    h.binning.lo = 0;
    h.binning.hi = 256;
    h.counts = counts;
    s.result.channels.push_back(h);
    return s;
}

}  // namespace

class TestCompare : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void distancesMatchTheirDefinitions_data();
    void distancesMatchTheirDefinitions();
    void differentBinsAreSaid();
    void panelSaysWhichSideIsTheReference();
    void pinnedReferenceIsComparedAcrossFiles();
    void matchToReferenceFromTheWindow();

private:
    QString writeImage(int width, int height, int lo, int hi, const QString& name);
    SnapshotPtr waitForSnapshot(const std::function<bool(const HistogramSnapshot&)>& accept);

    QTemporaryDir m_dir;
    std::unique_ptr<MainWindow> m_window;
    std::mt19937_64 m_rng;
};

void TestCompare::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    m_rng = seededRng();
    cv::theRNG().state = m_rng();
}

void TestCompare::init()
{
    QSettings().clear();
    m_window = std::make_unique<MainWindow>();
    m_window->show();
}

void TestCompare::cleanup() { m_window.reset(); }

QString TestCompare::writeImage(int width, int height, int lo, int hi, const QString& name)
{
    cv::Mat m(height, width, CV_8UC3);
    cv::randu(m, cv::Scalar::all(lo), cv::Scalar::all(hi));
    const QString path = m_dir.filePath(name);
    return cv::imwrite(path.toStdString(), m) ? path : QString();
}

SnapshotPtr TestCompare::waitForSnapshot(const std::function<bool(const HistogramSnapshot&)>& accept)
{
    auto ok = [&] { return m_window->lastSnapshot() && accept(*m_window->lastSnapshot()); };
    QSignalSpy shown(m_window.get(), &MainWindow::snapshotShown);
    for (int turns = 0; !ok() && turns < 300; ++turns)
        shown.wait(100);
    return ok() ? m_window->lastSnapshot() : SnapshotPtr();
}

void TestCompare::distancesMatchTheirDefinitions_data()
{
    QTest::addColumn<int>("bins");
    QTest::addColumn<bool>("same");
    QTest::newRow("256 bins, two images") << 256 << false;
    QTest::newRow("256 bins, one image against itself") << 256 << true;
    QTest::newRow("16 bins") << 16 << false;
}

void TestCompare::distancesMatchTheirDefinitions()
{
    QFETCH(int, bins);
    QFETCH(bool, same);
    std::uniform_int_distribution<int> count(1, 5000);
    std::vector<std::uint64_t> a(static_cast<std::size_t>(bins)), b(static_cast<std::size_t>(bins));
    for (int i = 0; i < bins; ++i) {
        a[std::size_t(i)] = std::uint64_t(count(m_rng));
        b[std::size_t(i)] = same ? a[std::size_t(i)] * 3 : std::uint64_t(count(m_rng) * (i % 3));   // 3x the pixels: same shape
    }
    const HistogramDistances d = histogramDistances(snapshotOf(a), snapshotOf(b));
    QVERIFY2(!d.error.isError(), qPrintable(d.error.message()));
    QCOMPARE(d.channels.size(), 1);
    const Oracle o = oracle(a, b);
    const ChannelDistances& c = d.channels[0];
    QCOMPARE(c.channel, QStringLiteral("gray"));
    const double tol = 1e-4;   // compareHist works in single precision
    QVERIFY2(std::abs(c.correlation - o.correlation) < tol, qPrintable(QString::number(c.correlation)));
    QVERIFY2(std::abs(c.chiSquare - o.chiSquare) < tol * std::max(1.0, o.chiSquare), qPrintable(QString::number(c.chiSquare)));
    QVERIFY2(std::abs(c.intersection - o.intersection) < tol, qPrintable(QString::number(c.intersection)));
    QVERIFY2(std::abs(c.bhattacharyya - o.bhattacharyya) < tol, qPrintable(QString::number(c.bhattacharyya)));
    if (same) {
        QVERIFY(std::abs(c.correlation - 1) < tol);
        QVERIFY(std::abs(c.chiSquare) < tol);
        QVERIFY(std::abs(c.intersection - 1) < tol);
        QVERIFY(std::abs(c.bhattacharyya) < 1e-3);
    }
}

void TestCompare::differentBinsAreSaid()
{
    const HistogramDistances d = histogramDistances(snapshotOf(std::vector<std::uint64_t>(256, 1)), snapshotOf(std::vector<std::uint64_t>(64, 4)));
    QVERIFY(d.error.isError());
    QVERIFY(d.error.message().contains("64 bins"));
    QVERIFY(d.channels.isEmpty());
}

void TestCompare::panelSaysWhichSideIsTheReference()
{
    // Chi-square is not symmetric: with different shapes, current against reference and the
    // reverse differ, and the value shown is the current against the reference (divided by the
    // current), as its row says.
    std::uniform_int_distribution<int> count(1, 5000);
    std::vector<std::uint64_t> current(64), reference(64);
    for (std::size_t i = 0; i < 64; ++i) {
        current[i] = std::uint64_t(count(m_rng));
        reference[i] = std::uint64_t(count(m_rng)) * (i % 4 + 1);
    }
    const HistogramDistances d = histogramDistances(snapshotOf(current), snapshotOf(reference));
    QVERIFY2(!d.error.isError(), qPrintable(d.error.message()));
    const Oracle forward = oracle(current, reference), backward = oracle(reference, current);
    QVERIFY(std::abs(forward.chiSquare - backward.chiSquare) > 1e-3);   // the fixture tells the sides apart
    QVERIFY2(std::abs(d.channels[0].chiSquare - forward.chiSquare) < 1e-4 * std::max(1.0, forward.chiSquare),
             qPrintable(QString::number(d.channels[0].chiSquare)));
    ComparePanel panel;
    panel.resize(420, 360);
    panel.show();
    panel.setReference(QStringLiteral("ref.png (64×48, 64 bins)"));
    panel.showDistances(d);
    QVERIFY2(panel.referenceText().startsWith(QStringLiteral("Reference (r): ref.png")), qPrintable(panel.referenceText()));
    QVERIFY2(panel.referenceText().contains(QStringLiteral("current histogram (c) against it")), qPrintable(panel.referenceText()));
    TablePanel* table = panel.table();
    const int chi = table->rowOf(ComparePanel::chiSquareLabel());
    QVERIFY(chi >= 0);
    QCOMPARE(ComparePanel::chiSquareLabel(), QStringLiteral("chi-square Σ(c−r)²/c"));
    QCOMPARE(table->cell(chi, 0), QString::number(d.channels[0].chiSquare, 'f', 5));
    QVERIFY(std::abs(table->cell(chi, 0).toDouble() - forward.chiSquare) < 1e-4 * std::max(1.0, forward.chiSquare));
    QVERIFY2(panel.legendText().contains(QStringLiteral("not symmetric")), qPrintable(panel.legendText()));
    QVERIFY(panel.legendText().contains(QStringLiteral("c: the current histogram, r: the pinned reference")));
    QTRY_VERIFY(table->showsEveryCellWhole());   // the row labels and numbers are laid out whole
}

void TestCompare::pinnedReferenceIsComparedAcrossFiles()
{
    const QString first = writeImage(64, 48, 0, 128, "dark.png");
    const QString second = writeImage(40, 30, 100, 256, "bright.png");
    m_window->openPath(first);
    const SnapshotPtr a = waitForSnapshot([](const HistogramSnapshot&) { return true; });
    QVERIFY(a);
    m_window->pinReference();
    QCOMPARE(m_window->reference(), a);
    QVERIFY(m_window->comparePanel()->referenceText().contains("dark.png"));
    // The reference overlays the plot, with the same total as each current channel.
    QTRY_VERIFY(!m_window->histogramView()->display().reference.isEmpty());
    QSignalSpy distances(m_window.get(), &MainWindow::distancesShown);
    m_window->openPath(second);
    const SnapshotPtr b = waitForSnapshot([](const HistogramSnapshot& s) { return s.frame.width() == 40; });
    QVERIFY(b);
    QTRY_VERIFY_WITH_TIMEOUT(!distances.isEmpty() && distances.last().at(0).value<HistogramDistances>().generation == b->generation, 10000);
    const HistogramDisplay& display = m_window->histogramView()->display();
    QCOMPARE(display.reference.size(), display.series.size());
    double mine = 0, theirs = 0;
    for (double c : display.series[0].counts)
        mine += c;
    for (double c : display.reference[0].counts)
        theirs += c * display.reference[0].scale;   // the view draws it scaled
    QVERIFY(std::abs(mine - theirs) < 1e-6 * mine);
    // The table: R, G, B and luma, each against the oracle on the two snapshots' counts.
    TablePanel* table = m_window->comparePanel()->table();
    QCOMPARE(table->cell(table->rowOf("correlation"), 0).isEmpty(), false);
    const HistogramDistances d = distances.last().at(0).value<HistogramDistances>();
    QCOMPARE(d.channels.size(), 4);
    const auto channelOf = [](const HistogramSnapshot& s, int storage) { return s.result.channels[std::size_t(storage)].counts; };
    const Oracle red = oracle(channelOf(*b, 2), channelOf(*a, 2));   // R is stored third (BGR)
    QCOMPARE(d.channels[0].channel, QStringLiteral("R"));
    QVERIFY(std::abs(d.channels[0].intersection - red.intersection) < 1e-4);
    QVERIFY(std::abs(d.channels[0].bhattacharyya - red.bhattacharyya) < 1e-4);
    QCOMPARE(table->cell(table->rowOf("intersection"), 0), QString::number(d.channels[0].intersection, 'f', 5));
    // Chi-square divides by the current histogram (b), the reference (a) being the other side.
    QVERIFY(std::abs(d.channels[0].chiSquare - red.chiSquare) < 1e-4 * std::max(1.0, red.chiSquare));
    QCOMPARE(table->cell(table->rowOf(ComparePanel::chiSquareLabel()), 0), QString::number(d.channels[0].chiSquare, 'f', 5));
    QVERIFY(m_window->comparePanel()->referenceText().startsWith(QStringLiteral("Reference (r): ")));
    // Dark against bright: far apart.
    QVERIFY(d.channels[0].intersection < 0.5);
    m_window->clearReference();
    QVERIFY(m_window->histogramView()->display().reference.isEmpty());
    QVERIFY(m_window->comparePanel()->referenceText().contains("No reference"));
}

void TestCompare::matchToReferenceFromTheWindow()
{
    m_window->openPath(writeImage(50, 40, 150, 256, "target.png"));
    QVERIFY(waitForSnapshot([](const HistogramSnapshot&) { return true; }));
    m_window->pinReference();
    m_window->openPath(writeImage(30, 20, 0, 60, "source.png"));
    QVERIFY(waitForSnapshot([](const HistogramSnapshot& s) { return s.frame.width() == 30; }));
    m_window->matchToReference();
    auto* dialog = m_window->findChild<EqualizeDialog*>();
    QVERIFY(dialog);
    QSignalSpy presented(dialog, &EqualizeDialog::equalized);
    QTRY_VERIFY_WITH_TIMEOUT(dialog->outcome() && dialog->outcome()->method == EqualizeMethod::Match, 30000);
    QVERIFY2(!dialog->outcome()->error.isError(), qPrintable(dialog->outcome()->error.message()));
    // Matched to a bright reference, the dark image becomes bright.
    const cv::Mat out(int(dialog->outcome()->equalized.height()), int(dialog->outcome()->equalized.width()), CV_8UC3,
                      const_cast<unsigned char*>(dialog->outcome()->equalized.data()), dialog->outcome()->equalized.strideBytes());
    QVERIFY(cv::mean(out)[0] > 150);
}

QTEST_MAIN(TestCompare)
#include "tst_compare.moc"
