// The scope widgets (waveform, parade, vectorscope, 2-D histogram view), offscreen: each is fed
// plain values, grabbed, and its pixels checked where the data and the graticule must appear.
#include "widgets/Histogram2DView.h"
#include "widgets/VectorscopeView.h"
#include "widgets/WaveformView.h"

#include <QApplication>
#include <QMouseEvent>
#include <QSignalSpy>
#include <QTest>

#include <random>

#include <cmath>

namespace {

ScopeGrid grid(const QString& name, QColor color, int xBins, int yBins, double yHi = 256)
{
    ScopeGrid g;
    g.name = name;
    g.color = color;
    g.xName = QStringLiteral("column");
    g.yName = name;
    g.xBins = xBins;
    g.yBins = yBins;
    g.xLo = 0;
    g.xHi = xBins;
    g.yLo = 0;
    g.yHi = yHi;
    g.counts.fill(0, qsizetype(xBins) * yBins);
    return g;
}

void set(ScopeGrid& g, int x, int y, double count) { g.counts[qsizetype(x) * g.yBins + y] = count; }

int brightness(QRgb c) { return qRed(c) + qGreen(c) + qBlue(c); }

QImage shot(QWidget& w)
{
    w.resize(480, 320);
    return w.grab().toImage();
}

QRgb pixelAt(const QImage& image, QPointF p)
{
    const qreal dpr = image.devicePixelRatio();
    return image.pixel(int(p.x() * dpr), int(p.y() * dpr));
}

// The brightest pixel within one pixel of p: traces one image row high land on a whole pixel.
int brightnessNear(const QImage& image, QPointF p)
{
    int best = 0;
    for (int dx = -1; dx <= 1; ++dx)
        for (int dy = -1; dy <= 1; ++dy)
            best = std::max(best, brightness(pixelAt(image, p + QPointF(dx, dy))));
    return best;
}

void sendMove(QWidget& w, QPoint pos)
{
    QMouseEvent move(QEvent::MouseMove, QPointF(pos), w.mapToGlobal(QPointF(pos)), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &move);
}

}  // namespace

class TestScopeWidgets : public QObject {
    Q_OBJECT

private slots:
    void waveformTraceWhereCountsAre();
    void waveformScaleLabels();
    void waveformGainAndLog();
    void overlayBlendsAdditively();
    void paradePanelsSideBySide();
    void waveformHoverReadout();
    void vectorscopeTargetsAndGraticule();
    void vectorscopeTrace();
    void vectorscopeFlatColourIsVisible_data();
    void vectorscopeFlatColourIsVisible();
    void vectorscopeSkinToneLine();
    void histogram2DCellsAndLogScale();
    void histogram2DGain_data();
    void histogram2DGain();
    void histogram2DHoverAndLeave();
    void histogram2DRebuildIsLinearInItsCells_data();
    void histogram2DRebuildIsLinearInItsCells();
    void emptyDisplaysPaint();
};

void TestScopeWidgets::waveformTraceWhereCountsAre()
{
    ScopeDisplay d;
    d.kind = ScopeDisplay::Kind::Waveform;
    ScopeGrid g = grid("luma", Qt::white, 10, 256);
    set(g, 3, 200, 50);
    d.grids << g;
    WaveformView view;
    view.setDisplay(d);
    const QImage image = shot(view);
    QVERIFY(brightness(pixelAt(image, view.positionOf(0, 3, 200.5))) > 600);
    QVERIFY(brightness(pixelAt(image, view.positionOf(0, 6, 50.5))) < 60);  // nothing counted there
    QCOMPARE(view.panelCount(), 1);
}

void TestScopeWidgets::waveformScaleLabels()
{
    WaveformView view;
    ScopeDisplay d;
    d.grids << grid("luma", Qt::white, 4, 256);
    view.setDisplay(d);
    QCOMPARE(view.scaleLabels(), QStringList({"0", "64", "128", "191", "255"}));
    view.setScale(WaveformView::Scale::Percent);
    QCOMPARE(view.scaleLabels(), QStringList({"0%", "25%", "50%", "75%", "100%"}));
    d.codeMax = 65535;
    view.setDisplay(d);
    view.setScale(WaveformView::Scale::CodeValues);
    QCOMPARE(view.scaleLabels().last(), QStringLiteral("65535"));
}

void TestScopeWidgets::waveformGainAndLog()
{
    ScopeDisplay d;
    ScopeGrid g = grid("luma", Qt::white, 8, 256);
    set(g, 1, 100, 10000);
    set(g, 5, 100, 300);
    d.grids << g;
    WaveformView view;
    view.resize(480, 320);
    view.setDisplay(d);
    const QPointF faint = view.positionOf(0, 5, 100.5);
    const int linear = brightnessNear(shot(view), faint);
    view.setLogIntensity(true);
    const int logged = brightnessNear(shot(view), faint);
    QVERIFY2(logged > linear + 100, qPrintable(QStringLiteral("%1 vs %2").arg(logged).arg(linear)));
    view.setLogIntensity(false);
    view.setGain(1000);
    const int gained = brightnessNear(shot(view), faint);
    QVERIFY(gained > linear + 100);
    QCOMPARE(view.gain(), 100.0);  // clamped
}

void TestScopeWidgets::overlayBlendsAdditively()
{
    ScopeDisplay d;
    ScopeGrid r = grid("R", Qt::red, 6, 256), gr = grid("G", Qt::green, 6, 256), b = grid("B", Qt::blue, 6, 256);
    set(r, 2, 120, 9);
    set(gr, 2, 120, 9);
    set(b, 4, 30, 9);
    d.grids << r << gr << b;
    WaveformView view;
    view.setDisplay(d);
    const QImage image = shot(view);
    const QRgb both = pixelAt(image, view.positionOf(0, 2, 120.5));
    QVERIFY(qRed(both) > 200 && qGreen(both) > 200 && qBlue(both) < 60);  // red + green = yellow
    const QRgb blue = pixelAt(image, view.positionOf(0, 4, 30.5));
    QVERIFY(qBlue(blue) > 200 && qRed(blue) < 60);
}

void TestScopeWidgets::paradePanelsSideBySide()
{
    ScopeDisplay d;
    d.kind = ScopeDisplay::Kind::Parade;
    const QColor colors[] = {Qt::red, Qt::green, Qt::blue};
    const char* names[] = {"R", "G", "B"};
    for (int c = 0; c < 3; ++c) {
        ScopeGrid g = grid(names[c], colors[c], 12, 256);
        set(g, 2, 100, 5);
        d.grids << g;
    }
    WaveformView view;
    view.setDisplay(d);
    QCOMPARE(view.panelCount(), 3);
    const QImage image = shot(view);
    QVERIFY(view.panelRect(0).right() < view.panelRect(1).left());
    QVERIFY(view.panelRect(1).right() < view.panelRect(2).left());
    const QRgb r = pixelAt(image, view.positionOf(0, 2, 100.5));
    const QRgb b = pixelAt(image, view.positionOf(2, 2, 100.5));
    QVERIFY(qRed(r) > 200 && qGreen(r) < 60 && qBlue(r) < 60);
    QVERIFY(qBlue(b) > 200 && qRed(b) < 60);
    // Panel 1 has no trace where panel 0's would be.
    QVERIFY(brightness(pixelAt(image, view.positionOf(1, 9, 10.5))) < 60);
}

void TestScopeWidgets::waveformHoverReadout()
{
    ScopeDisplay d;
    d.kind = ScopeDisplay::Kind::Parade;
    ScopeGrid g = grid("R", Qt::red, 4, 256);
    set(g, 1, 64, 7);
    d.grids << g << grid("G", Qt::green, 4, 256);
    WaveformView view;
    view.resize(480, 320);
    view.setDisplay(d);
    QSignalSpy spy(&view, &WaveformView::hovered);
    sendMove(view, view.positionOf(0, 1, 64.5).toPoint());
    QCOMPARE(spy.count(), 1);
    const QString text = spy.last().first().toString();
    QVERIFY2(text.contains("column 1") && text.contains("R 64: 7"), qPrintable(text));
    QEvent leave(QEvent::Leave);
    QApplication::sendEvent(&view, &leave);
    QCOMPARE(spy.count(), 2);
    QVERIFY(spy.last().first().toString().isEmpty());
}

void TestScopeWidgets::vectorscopeTargetsAndGraticule()
{
    const auto targets = VectorscopeView::colourTargets(true);
    QCOMPARE(targets.size(), 6);
    QStringList names;
    for (const auto& t : targets)
        names << t.name;
    QCOMPARE(names, QStringList({"R", "Mg", "B", "Cy", "G", "Yl"}));
    // Opposite colours sit opposite each other; 75 % red at Cr = 0.375 exactly.
    QCOMPARE(targets[0].cr, 0.375);
    QVERIFY(std::abs(targets[0].cb + targets[3].cb) < 1e-12 && std::abs(targets[0].cr + targets[3].cr) < 1e-12);
    QCOMPARE(targets[2].cb, 0.375);

    ScopeDisplay d;
    d.kind = ScopeDisplay::Kind::Vectorscope;
    d.grids << grid("CbCr", Qt::white, 256, 256);
    VectorscopeView view;
    view.setDisplay(d);
    const QImage image = shot(view);
    const QPointF c = view.scopeRect().center();
    const QPointF red = view.targetPosition("R"), blue = view.targetPosition("B"), yellow = view.targetPosition("Yl");
    QVERIFY(red.y() < c.y() && red.x() < c.x());     // Cr up, Cb left
    QVERIFY(blue.x() > c.x() && blue.y() > c.y());    // Cb right, Cr a little down
    QVERIFY(yellow.x() < c.x());
    // The red target's box is drawn in red around its position.
    const double box = std::max(6.0, view.scopeRect().width() * 0.035);
    const QRgb edge = pixelAt(image, red + QPointF(0, -box / 2));
    QVERIFY2(qRed(edge) > 150 && qGreen(edge) < 150, qPrintable(QString::number(edge, 16)));
    // The crosshair passes through the centre.
    QVERIFY(brightness(pixelAt(image, c + QPointF(view.scopeRect().width() * 0.3, 0))) > 150);
}

void TestScopeWidgets::vectorscopeTrace()
{
    ScopeDisplay d;
    d.kind = ScopeDisplay::Kind::Vectorscope;
    ScopeGrid g = grid("CbCr", Qt::white, 256, 256);
    g.xName = "Cb";
    g.yName = "Cr";
    set(g, 200, 60, 40);
    d.grids << g;
    VectorscopeView view;
    view.setDisplay(d);
    const QImage image = shot(view);
    const QPointF hot = view.positionOfChroma((200.5 - 128) / 256, (60.5 - 128) / 256);
    QVERIFY(brightness(pixelAt(image, hot)) > 300);
    QVERIFY(brightness(pixelAt(image, view.positionOfChroma(-0.2, -0.25))) < 60);
    QVERIFY(view.readoutAt(hot.toPoint()).contains("count 40"));
}

void TestScopeWidgets::vectorscopeFlatColourIsVisible_data()
{
    QTest::addColumn<int>("side");   // the widget's width and height
    QTest::addColumn<int>("bins");   // cells per chroma axis
    // Cells of 0.56, 0.87, 1.8 and 0.47 pixels: all drawn at least kMinDotPixels square.
    QTest::newRow("smallest dock, 8-bit") << 160 << 256;
    QTest::newRow("dock at 1280x720, 8-bit") << 240 << 256;
    QTest::newRow("large, 8-bit") << 480 << 256;
    QTest::newRow("dock at 1280x720, 512 cells") << 256 << 512;
}

void TestScopeWidgets::vectorscopeFlatColourIsVisible()
{
    // A flat colour is one populated cell: it must show as a blob, not a dot under a pixel.
    QFETCH(int, side);
    QFETCH(int, bins);
    ScopeDisplay d;
    d.kind = ScopeDisplay::Kind::Vectorscope;
    ScopeGrid g = grid("CbCr", Qt::white, bins, bins);
    g.xName = "Cb";
    g.yName = "Cr";
    g.xHi = g.yHi = 256;
    // An orange, off the axes, the targets and the skin-tone line.
    const int cx = bins * 100 / 256, cy = bins * 190 / 256;
    set(g, cx, cy, 250000);
    d.grids << g;
    VectorscopeView view;
    view.setDisplay(d);
    view.resize(side, side);
    const QImage image = view.grab().toImage();
    const qreal dpr = image.devicePixelRatio();
    const QPointF centre = view.positionOfChroma((cx + 0.5) * 256.0 / bins / 256 - 0.5, (cy + 0.5) * 256.0 / bins / 256 - 0.5);
    // The trace's tint at full intensity, (0.75, 1, 0.8) x 255, drawn unscaled: no target, label or line has it.
    auto isTrace = [](QRgb c) { return qRed(c) == 191 && qGreen(c) == 255 && qBlue(c) == 204; };
    int lit = 0;
    QPointF sum;
    const int reach = int(std::ceil(std::max<double>(VectorscopeView::kMinDotPixels, view.traceRect().width() * dpr / bins))) + 3;
    const QPoint c = (centre * dpr).toPoint();
    for (int y = c.y() - reach; y <= c.y() + reach; ++y)
        for (int x = c.x() - reach; x <= c.x() + reach; ++x)
            if (isTrace(image.pixel(x, y))) {
                ++lit;
                sum += QPointF(x + 0.5, y + 0.5);
            }
    const int minDot = VectorscopeView::kMinDotPixels;
    QVERIFY2(lit >= minDot * minDot, qPrintable(QStringLiteral("%1 pixels lit").arg(lit)));
    // Where the cell is, no larger than it needs to be: the blob is centred on the cell.
    const double cell = view.traceRect().width() * dpr / bins;
    QVERIFY2(lit <= std::pow(std::max<double>(minDot, cell) + 2, 2), qPrintable(QString::number(lit)));
    const QPointF mid = sum / lit;
    QVERIFY2(std::hypot(mid.x() - centre.x() * dpr, mid.y() - centre.y() * dpr) <= 1.0,
             qPrintable(QStringLiteral("blob at %1,%2, cell at %3,%4").arg(mid.x()).arg(mid.y()).arg(centre.x() * dpr).arg(centre.y() * dpr)));
    // Nothing else lit: the cell is drawn larger, no neighbour is made up.
    int elsewhere = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            elsewhere += isTrace(image.pixel(x, y)) && (std::abs(x - c.x()) > reach || std::abs(y - c.y()) > reach);
    QCOMPARE(elsewhere, 0);
}

void TestScopeWidgets::vectorscopeSkinToneLine()
{
    ScopeDisplay d;
    d.kind = ScopeDisplay::Kind::Vectorscope;
    d.grids << grid("CbCr", Qt::white, 64, 64);
    VectorscopeView view;
    view.setDisplay(d);
    view.resize(480, 320);
    const double a = VectorscopeView::kSkinToneDegrees * M_PI / 180;
    // Along the line (dashed): several of ten points lit in the line's colour, none without it.
    auto litPoints = [&](const QImage& image) {
        int lit = 0;
        for (int k = 1; k <= 10; ++k) {
            const QPointF at = view.positionOfChroma(0.04 * k * std::cos(a), 0.04 * k * std::sin(a));
            int red = 0;
            for (int dx = -1; dx <= 1; ++dx)
                for (int dy = -1; dy <= 1; ++dy)
                    red = std::max(red, qRed(pixelAt(image, at + QPointF(dx, dy))));
            lit += red > 100;
        }
        return lit;
    };
    QVERIFY(view.skinToneLine());
    QVERIFY(litPoints(shot(view)) >= 4);
    view.setSkinToneLine(false);
    QCOMPARE(litPoints(shot(view)), 0);
}

void TestScopeWidgets::histogram2DCellsAndLogScale()
{
    ScopeDisplay d;
    d.kind = ScopeDisplay::Kind::Histogram2D;
    ScopeGrid g = grid("H,S", Qt::white, 16, 16, 1.0);
    g.xName = "hue";
    g.yName = "saturation";
    set(g, 3, 12, 1000);
    set(g, 10, 2, 1);
    d.grids << g;
    Histogram2DView view;
    view.setDisplay(d);
    QVERIFY(view.logIntensity());
    QImage image = shot(view);
    QCOMPARE(pixelAt(image, view.cellRect(3, 12).center()), view.colorFor(1000).rgb());
    QCOMPARE(pixelAt(image, view.cellRect(10, 2).center()), view.colorFor(1).rgb());
    QVERIFY(brightness(view.colorFor(1).rgb()) > 40);   // one count is visible on the log scale
    QCOMPARE(view.colorBarLabels(), QStringList({"1", "10", "100", "1000"}));
    view.setLogIntensity(false);
    image = shot(view);
    QVERIFY(brightness(pixelAt(image, view.cellRect(10, 2).center())) < 30);   // and lost on the linear one
    QVERIFY(brightness(pixelAt(image, view.cellRect(3, 12).center())) > 500);
    QCOMPARE(pixelAt(image, view.cellRect(0, 0).center()), qRgb(0, 0, 0));
}

void TestScopeWidgets::histogram2DGain_data()
{
    QTest::addColumn<bool>("log");
    QTest::addColumn<double>("gain");
    QTest::addColumn<QStringList>("labels");
    QTest::addColumn<double>("topCount");   // the smallest of 1, 10, 100, 500, 1000 that reaches the top colour
    QTest::newRow("log, gain 1") << true << 1.0 << QStringList({"1", "10", "100", "1000"}) << 1000.0;
    QTest::newRow("log, gain 2: the bar ends at the square root") << true << 2.0 << QStringList({"1", "10"}) << 100.0;
    QTest::newRow("linear, gain 1") << false << 1.0 << QStringList({"0", "250", "500", "750", "1000"}) << 1000.0;
    QTest::newRow("linear, gain 2: the bar ends at half") << false << 2.0 << QStringList({"0", "125", "250", "375", "500"})
                                                          << 500.0;
}

void TestScopeWidgets::histogram2DGain()
{
    QFETCH(bool, log);
    QFETCH(double, gain);
    QFETCH(QStringList, labels);
    QFETCH(double, topCount);
    ScopeDisplay d;
    ScopeGrid g = grid("R,G", Qt::white, 4, 4);
    set(g, 3, 3, 1000);
    d.grids << g;
    Histogram2DView view;
    view.setDisplay(d);
    view.setLogIntensity(log);
    view.setGain(gain);
    QCOMPARE(view.colorBarLabels(), labels);
    const QRgb top = view.colorFor(1000).rgb();
    double reached = 0;
    for (double c : {1.0, 10.0, 100.0, 500.0, 1000.0}) {
        if (view.colorFor(c).rgb() == top) {
            reached = c;
            break;
        }
    }
    QCOMPARE(reached, topCount);
}

void TestScopeWidgets::histogram2DHoverAndLeave()
{
    ScopeDisplay d;
    ScopeGrid g = grid("R,G", Qt::white, 8, 4, 256);
    g.xName = "R";
    g.yName = "G";
    g.xHi = 256;
    set(g, 5, 1, 77);
    d.grids << g;
    Histogram2DView view;
    view.resize(480, 320);
    view.setDisplay(d);
    QSignalSpy spy(&view, &Histogram2DView::hovered);
    sendMove(view, view.cellRect(5, 1).center().toPoint());
    QCOMPARE(spy.count(), 1);
    const QString text = spy.last().first().toString();
    QVERIFY2(text.contains("R [160, 192)") && text.contains("G [64, 128)") && text.contains("count 77"), qPrintable(text));
    sendMove(view, QPoint(2, 2));  // outside the plot: the readout clears
    QCOMPARE(spy.count(), 2);
    QVERIFY(spy.last().first().toString().isEmpty());
    sendMove(view, view.cellRect(5, 1).center().toPoint());
    QEvent leave(QEvent::Leave);
    QApplication::sendEvent(&view, &leave);
    QCOMPARE(spy.count(), 4);
    QVERIFY(spy.last().first().toString().isEmpty());
}

void TestScopeWidgets::histogram2DRebuildIsLinearInItsCells_data()
{
    QTest::addColumn<int>("bins");
    QTest::newRow("16 x 16") << 16;
    QTest::newRow("256 x 256 (an 8-bit channel pair)") << 256;
}

// Each cell is read twice per rebuild (the largest count, then its colour), whatever the size:
// the rebuild used to scan the whole grid once per cell (15-18 s on the GUI thread at 256 x 256).
void TestScopeWidgets::histogram2DRebuildIsLinearInItsCells()
{
    QFETCH(int, bins);
    ScopeDisplay d;
    d.kind = ScopeDisplay::Kind::Histogram2D;
    ScopeGrid g = grid("R,G", Qt::white, bins, bins);
    std::mt19937 rng(bins);
    for (double& c : g.counts)
        c = double(rng() % 50);
    set(g, bins / 3, bins / 2, 5000);
    d.grids << g;
    Histogram2DView view;
    view.setDisplay(d);
    QCOMPARE(view.cellsVisitedByRebuild(), quint64(2) * quint64(bins) * quint64(bins));
    view.setGain(2.0);   // a rebuild again, the same work
    QCOMPARE(view.cellsVisitedByRebuild(), quint64(2) * quint64(bins) * quint64(bins));
    const QImage image = shot(view);
    QCOMPARE(pixelAt(image, view.cellRect(bins / 3, bins / 2).center()), view.colorFor(5000).rgb());
}

void TestScopeWidgets::emptyDisplaysPaint()
{
    WaveformView w;
    VectorscopeView v;
    Histogram2DView h;
    // Each paints its whole area (the window colour at the corner, outside any plot) at its size.
    for (QWidget* view : {static_cast<QWidget*>(&w), static_cast<QWidget*>(&v), static_cast<QWidget*>(&h)}) {
        const QImage image = shot(*view);
        QCOMPARE(image.size(), QSize(480, 320) * image.devicePixelRatio());
        QCOMPARE(QColor(pixelAt(image, QPointF(1, 1))), view->palette().window().color());
    }
    QVERIFY(w.readoutAt(QPoint(100, 100)).isEmpty());
    QVERIFY(h.readoutAt(QPoint(100, 100)).isEmpty());
}

QTEST_MAIN(TestScopeWidgets)
#include "tst_scopewidgets.moc"
