// The scope widgets (waveform, parade, vectorscope, 2-D histogram view), offscreen: each is fed
// plain values, grabbed, and its pixels checked where the data and the graticule must appear.
#include "widgets/Histogram2DView.h"
#include "widgets/VectorscopeView.h"
#include "widgets/WaveformView.h"

#include <QApplication>
#include <QMouseEvent>
#include <QSignalSpy>
#include <QTest>

#include <memory>
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

// 8-bit BT.709 chroma codes of an RGB colour, by the integer formulas of docs/SCOPES.md.
int cb709(int r, int g, int b) { return 128 + int(std::floor((-7509.0 * r - 25259.0 * g + 32768.0 * b) / 65536)); }
int cr709(int r, int g, int b) { return 128 + int(std::floor((32768.0 * r - 29763.0 * g - 3005.0 * b) / 65536)); }

// The 100 % colour bars, R, Mg, B, Cy, G, Yl, as 8-bit RGB.
const int kBars[6][3] = {{255, 0, 0}, {255, 0, 255}, {0, 0, 255}, {0, 255, 255}, {0, 255, 0}, {255, 255, 0}};

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
    void waveformEndsLieInsideThePlot_data();
    void waveformEndsLieInsideThePlot();
    void waveformGraticules_data();
    void waveformGraticules();
    void onePixelBesideAMillionIsLit_data();
    void onePixelBesideAMillionIsLit();
    void vectorscopeTargetsAt75Or100();
    void vectorscopeFullBarsAreSpots_data();
    void vectorscopeFullBarsAreSpots();
    void vectorscopePixelColours();
    void histogram2DEdgeRowsAndColumnsAreDrawn();
    void histogram2DColourBarLabelsFit();
    void rebuildsAreLinearInTheirCells_data();
    void rebuildsAreLinearInTheirCells();
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
    QVERIFY(brightness(pixelAt(image, view.positionOf(0, 3, 200.5))) > 450);
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
    QVERIFY2(qRed(both) > 150 && qGreen(both) > 150 && qBlue(both) < 60, qPrintable(QString::number(both, 16)));  // red + green = yellow
    const QRgb blue = pixelAt(image, view.positionOf(0, 4, 30.5));
    QVERIFY(qBlue(blue) > 150 && qRed(blue) < 60);
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
    QVERIFY(qRed(r) > 150 && qGreen(r) < 60 && qBlue(r) < 60);
    QVERIFY(qBlue(b) > 150 && qRed(b) < 60);
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
    // Cells of about 0.5, 0.8, 1.6 and 0.4 pixels: each drawn as a spot of at least 3 x 3.
    QTest::newRow("smallest dock, 8-bit") << 160 << 256;
    QTest::newRow("dock at 1280x720, 8-bit") << 240 << 256;
    QTest::newRow("large, 8-bit") << 480 << 256;
    QTest::newRow("dock at 1280x720, 512 cells") << 256 << 512;
}

void TestScopeWidgets::vectorscopeFlatColourIsVisible()
{
    // A flat colour is one populated cell: it must show as a spot with a glow, not a dot under
    // a pixel, centred where the cell is, and light nothing far from it.
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
    const QPointF centre = view.positionOfChroma((cx + 0.5) / bins - 0.5, (cy + 0.5) / bins - 0.5);
    // The classic tint: green above red and blue, which nothing else near there is.
    // (The G and Cy targets, whose blue equals their red or their green, are not.)
    auto isTrace = [](QRgb c) { return qGreen(c) > 40 && qGreen(c) > qRed(c) + 8 && qBlue(c) > qRed(c) && qBlue(c) < 0.92 * qGreen(c); };
    auto isCore = [](QRgb c) { return qGreen(c) > 150 && qGreen(c) > qRed(c) + 30; };
    const int r = view.coreRadius();
    const int reach = 3 * r + 3 + int(std::ceil(view.traceRect().width() * dpr / bins));
    const QPoint c = (centre * dpr).toPoint();
    int lit = 0, core = 0;
    QPointF sum;
    for (int y = c.y() - reach; y <= c.y() + reach; ++y)
        for (int x = c.x() - reach; x <= c.x() + reach; ++x) {
            if (isTrace(image.pixel(x, y))) {
                ++lit;
                sum += QPointF(x + 0.5, y + 0.5);
            }
            core += isCore(image.pixel(x, y));
        }
    QVERIFY2(core >= (2 * r + 1) * (2 * r + 1), qPrintable(QStringLiteral("%1 core pixels, radius %2").arg(core).arg(r)));
    QVERIFY2(lit > core, "a glow around the core");
    const QPointF mid = sum / lit;
    QVERIFY2(std::hypot(mid.x() - centre.x() * dpr, mid.y() - centre.y() * dpr) <= 1.5,
             qPrintable(QStringLiteral("spot at %1,%2, cell at %3,%4").arg(mid.x()).arg(mid.y()).arg(centre.x() * dpr).arg(centre.y() * dpr)));
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

void TestScopeWidgets::waveformEndsLieInsideThePlot_data()
{
    QTest::addColumn<double>("yHi");
    QTest::addColumn<double>("codeMax");
    QTest::addColumn<bool>("floatValues");
    QTest::newRow("8-bit: codes 0 and 255") << 256.0 << 255.0 << false;
    QTest::newRow("16-bit: codes 0 and 65535") << 65536.0 << 65535.0 << false;
    QTest::newRow("float: 0 and 1, and beyond the axis") << 1.0000001 << 1.0 << true;
}

// SMPTE 100 % bars and clipped highlights sit in the end bins of the value axis: they are traced
// inside the plot, clear of its border, and marked red in the margin beyond them.
void TestScopeWidgets::waveformEndsLieInsideThePlot()
{
    QFETCH(double, yHi);
    QFETCH(double, codeMax);
    QFETCH(bool, floatValues);
    for (ScopeDisplay::Kind kind : {ScopeDisplay::Kind::Waveform, ScopeDisplay::Kind::Parade}) {
        ScopeDisplay d;
        d.kind = kind;
        d.codeMax = codeMax;
        d.floatValues = floatValues;
        ScopeGrid g = grid("R", Qt::white, 10, 256, yHi);
        set(g, 2, 0, 50);     // black (or below the axis)
        set(g, 6, 255, 50);   // full scale
        set(g, 4, 128, 50);
        g.clipAtEnds = !floatValues;
        if (floatValues) {    // a float frame's samples beyond the axis, per column
            g.over.fill(0, 10);
            g.under.fill(0, 10);
            g.over[6] = 30;
            g.under[2] = 5;
        }
        d.grids << g;
        WaveformView view;
        view.setDisplay(d);
        const QImage image = shot(view);
        const double bin = yHi / 256;
        const QRectF panel = view.panelRect(0), plot = view.plotRect(0);
        const QPointF low = view.positionOf(0, 2, 0.5 * bin), high = view.positionOf(0, 6, 255.5 * bin);
        for (const QPointF& p : {low, high}) {
            QVERIFY2(plot.contains(p), qPrintable(QStringLiteral("%1,%2").arg(p.x()).arg(p.y())));
            QVERIFY2(p.y() - panel.top() >= 4 && panel.bottom() - p.y() >= 4, "clear of the border");
            QVERIFY2(brightnessNear(image, p) > 300, qPrintable(QString::number(brightnessNear(image, p))));
        }
        auto isClipMark = [](QRgb c) { return qRed(c) > 150 && qGreen(c) < 120 && qBlue(c) < 120; };
        const double above = view.clipStripRect(0, true).center().y(), below = view.clipStripRect(0, false).center().y();
        QVERIFY(above < high.y() - 1 && below > low.y() + 1);
        QVERIFY2(isClipMark(pixelAt(image, QPointF(high.x(), above))), qPrintable(QString::number(pixelAt(image, QPointF(high.x(), above)), 16)));
        QVERIFY(isClipMark(pixelAt(image, QPointF(low.x(), below))));
        // Only the columns that clip are marked.
        QVERIFY(!isClipMark(pixelAt(image, QPointF(low.x(), above))));
        QVERIFY(!isClipMark(pixelAt(image, QPointF(high.x(), below))));
        QVERIFY(!isClipMark(pixelAt(image, QPointF(view.positionOf(0, 4, 0).x(), above))));
    }
}

void TestScopeWidgets::waveformGraticules_data()
{
    QTest::addColumn<int>("scale");
    QTest::addColumn<int>("range");
    QTest::addColumn<double>("codeMax");
    QTest::addColumn<bool>("floatValues");
    QTest::addColumn<double>("yHi");
    QTest::addColumn<QStringList>("labels");
    const int codes = int(WaveformView::Scale::CodeValues), percent = int(WaveformView::Scale::Percent);
    const int full = int(WaveformView::Range::Full), legal = int(WaveformView::Range::Legal);
    QTest::newRow("8-bit codes, full") << codes << full << 255.0 << false << 256.0 << QStringList{"0", "64", "128", "191", "255"};
    QTest::newRow("8-bit codes, legal 16-235") << codes << legal << 255.0 << false << 256.0 << QStringList{"16", "71", "126", "180", "235"};
    QTest::newRow("8-bit percent, full") << percent << full << 255.0 << false << 256.0 << QStringList{"0%", "25%", "50%", "75%", "100%"};
    QTest::newRow("8-bit IRE-style, legal") << percent << legal << 255.0 << false << 256.0 << QStringList{"0%", "25%", "50%", "75%", "100%"};
    QTest::newRow("16-bit codes, legal") << codes << legal << 65535.0 << false << 65536.0
                                         << QStringList{"4096", "18112", "32128", "46144", "60160"};
    QTest::newRow("float 0-1, codes: float units") << codes << full << 1.0 << true << 1.0000001 << QStringList{"0", "0.25", "0.5", "0.75", "1"};
    QTest::newRow("float HDR 0-4.2, codes") << codes << full << 1.0 << true << 4.2 << QStringList{"0", "1", "2", "3", "4"};
    QTest::newRow("float HDR 0-4.2, percent") << percent << full << 1.0 << true << 4.2 << QStringList{"0%", "100%", "200%", "300%", "400%"};
}

void TestScopeWidgets::waveformGraticules()
{
    QFETCH(int, scale);
    QFETCH(int, range);
    QFETCH(double, codeMax);
    QFETCH(bool, floatValues);
    QFETCH(double, yHi);
    QFETCH(QStringList, labels);
    ScopeDisplay d;
    d.codeMax = codeMax;
    d.floatValues = floatValues;
    d.grids << grid("luma", Qt::white, 4, 256, yHi);
    WaveformView view;
    view.setDisplay(d);
    view.setScale(WaveformView::Scale(scale));
    view.setRange(WaveformView::Range(range));
    QCOMPARE(view.scaleLabels(), labels);
    // 0 % and 100 % are solid lines, and every line lies on the axis.
    int solid = 0;
    for (const WaveformView::Tick& t : view.ticks()) {
        solid += t.solid;
        QVERIFY(t.value >= 0 && t.value <= yHi);
    }
    QCOMPARE(solid, 2);
    if (range == int(WaveformView::Range::Legal))   // the full range's ends as unlabelled lines
        QCOMPARE(view.ticks().size(), labels.size() + 2);
}

void TestScopeWidgets::onePixelBesideAMillionIsLit_data()
{
    QTest::addColumn<int>("kind");
    QTest::newRow("waveform") << int(ScopeDisplay::Kind::Waveform);
    QTest::newRow("parade") << int(ScopeDisplay::Kind::Parade);
    QTest::newRow("vectorscope") << int(ScopeDisplay::Kind::Vectorscope);
}

// The display response is a phosphor's, not counts over the busiest cell: a cell that one pixel
// hits glows visibly beside one that a million hit, at gain 1, and brighter at a higher gain.
void TestScopeWidgets::onePixelBesideAMillionIsLit()
{
    QFETCH(int, kind);
    ScopeDisplay d;
    d.kind = ScopeDisplay::Kind(kind);
    const bool vectorscope = d.kind == ScopeDisplay::Kind::Vectorscope;
    ScopeGrid g = grid("luma", Qt::white, vectorscope ? 256 : 20, 256);
    const int busyX = vectorscope ? 180 : 4, busyY = vectorscope ? 80 : 200;
    const int oneX = vectorscope ? 160 : 12, oneY = vectorscope ? 200 : 60;   // off the skin-tone line
    set(g, busyX, busyY, 1e6);
    set(g, oneX, oneY, 1);
    d.grids << g;
    std::unique_ptr<ScopeView> view;
    if (vectorscope)
        view = std::make_unique<VectorscopeView>();
    else
        view = std::make_unique<WaveformView>();
    view->setDisplay(d);
    auto at = [&](int x, int y) {
        if (vectorscope)
            return static_cast<VectorscopeView*>(view.get())->positionOfChroma((x + 0.5) / 256 - 0.5, (y + 0.5) / 256 - 0.5);
        return static_cast<WaveformView*>(view.get())->positionOf(0, x, y + 0.5);
    };
    const QImage image = shot(*view);
    const int one = brightnessNear(image, at(oneX, oneY));
    const int busy = brightnessNear(image, at(busyX, busyY));
    QVERIFY2(one >= 120, qPrintable(QStringLiteral("one pixel: %1, a million: %2").arg(one).arg(busy)));
    QVERIFY2(busy > one + 200, qPrintable(QStringLiteral("one pixel: %1, a million: %2").arg(one).arg(busy)));
    view->setGain(4);
    QVERIFY(brightnessNear(shot(*view), at(oneX, oneY)) > one);
}

void TestScopeWidgets::vectorscopeTargetsAt75Or100()
{
    ScopeDisplay d;
    d.kind = ScopeDisplay::Kind::Vectorscope;
    d.grids << grid("CbCr", Qt::white, 256, 256);
    VectorscopeView view;
    view.setDisplay(d);
    view.resize(480, 480);
    const double box = std::max(6.0, view.scopeRect().width() * 0.035);
    auto redEdge = [&](const QImage& image, QPointF p) {
        const QRgb c = pixelAt(image, p + QPointF(0, -box / 2));
        return qRed(c) > 150 && qGreen(c) < 150;
    };
    QCOMPARE(view.targetAmplitude(), 0.75);
    const QPointF red75 = view.targetPosition("R");
    view.setTargetAmplitude(1.0);
    const QPointF red100 = view.targetPosition("R");
    QCOMPARE(VectorscopeView::colourTargets(true, 1.0)[0].cr, 0.5);   // 100 % red: Cr at full scale
    QCOMPARE(red100, view.positionOfChroma(VectorscopeView::colourTargets(true, 1.0)[0].cb, 0.5));
    const QImage image = view.grab().toImage();
    QVERIFY(redEdge(image, red100));
    QVERIFY(!redEdge(image, red75));   // one set of targets at a time
    // Every 100 % target lies inside the graticule's circle, whichever standard.
    for (bool bt709 : {true, false})
        for (const auto& t : VectorscopeView::colourTargets(bt709, 1.0))
            QVERIFY2(std::hypot(t.cb, t.cr) < VectorscopeView::kHalfSpan * 0.96, qPrintable(t.name));
    view.setTargetAmplitude(0.75);
    QVERIFY(redEdge(view.grab().toImage(), red75));
}

void TestScopeWidgets::vectorscopeFullBarsAreSpots_data()
{
    QTest::addColumn<int>("side");
    QTest::newRow("dock at 1280x720") << 240;
    QTest::newRow("large") << 480;
}

// 100 % colour bars: six cells at the edge of the 8-bit chroma range (Cr 255 for red, Cb 255 for
// blue). Each is a spot of at least 3 x 3 bright pixels, inside the scope, at its target.
void TestScopeWidgets::vectorscopeFullBarsAreSpots()
{
    QFETCH(int, side);
    ScopeDisplay d;
    d.kind = ScopeDisplay::Kind::Vectorscope;
    ScopeGrid g = grid("CbCr", Qt::white, 256, 256);
    for (const auto& bar : kBars)
        set(g, cb709(bar[0], bar[1], bar[2]), cr709(bar[0], bar[1], bar[2]), 1e5);
    set(g, 128, 128, 2e5);   // white and black
    d.grids << g;
    VectorscopeView view;
    view.setDisplay(d);
    view.resize(side, side);
    view.setTargetAmplitude(1.0);
    const QImage image = view.grab().toImage();
    const qreal dpr = image.devicePixelRatio();
    const int r = view.coreRadius();
    const auto targets = VectorscopeView::colourTargets(true, 1.0);
    for (int i = 0; i < 6; ++i) {
        const int cb = cb709(kBars[i][0], kBars[i][1], kBars[i][2]), cr = cr709(kBars[i][0], kBars[i][1], kBars[i][2]);
        const QPointF centre = view.positionOfChroma((cb + 0.5) / 256 - 0.5, (cr + 0.5) / 256 - 0.5);
        QVERIFY(view.scopeRect().contains(centre));
        // Within a target box's half-width of its target.
        const QPointF target = view.positionOfChroma(targets[i].cb, targets[i].cr);
        QVERIFY2(std::hypot(centre.x() - target.x(), centre.y() - target.y()) < std::max(6.0, view.scopeRect().width() * 0.035),
                 qPrintable(targets[i].name));
        int bright = 0;
        const QPoint c = (centre * dpr).toPoint();
        for (int y = c.y() - 2 * r - 2; y <= c.y() + 2 * r + 2; ++y)
            for (int x = c.x() - 2 * r - 2; x <= c.x() + 2 * r + 2; ++x)
                bright += qGreen(image.pixel(x, y)) > 150;
        QVERIFY2(bright >= 9 && bright >= (2 * r + 1) * (2 * r + 1),
                 qPrintable(QStringLiteral("%1: %2 bright pixels").arg(targets[i].name).arg(bright)));
    }
}

void TestScopeWidgets::vectorscopePixelColours()
{
    ScopeDisplay d;
    d.kind = ScopeDisplay::Kind::Vectorscope;
    ScopeGrid g = grid("CbCr", Qt::white, 256, 256);
    const int redCb = cb709(191, 0, 0), redCr = cr709(191, 0, 0), blueCb = cb709(0, 0, 191), blueCr = cr709(0, 0, 191);
    set(g, redCb, redCr, 5000);
    set(g, blueCb, blueCr, 5000);
    d.grids << g;
    VectorscopeView view;
    view.setDisplay(d);
    view.resize(480, 320);
    const QPointF red = view.positionOfChroma((redCb + 0.5) / 256 - 0.5, (redCr + 0.5) / 256 - 0.5);
    const QPointF blue = view.positionOfChroma((blueCb + 0.5) / 256 - 0.5, (blueCr + 0.5) / 256 - 0.5);
    QCOMPARE(view.trace(), VectorscopeView::Trace::Classic);
    QImage image = shot(view);
    for (const QPointF& p : {red, blue}) {   // the phosphor tint, whatever the chroma
        const QRgb c = pixelAt(image, p);
        QVERIFY2(qGreen(c) > qRed(c) && qGreen(c) > qBlue(c) && qGreen(c) > 100, qPrintable(QString::number(c, 16)));
    }
    view.setTrace(VectorscopeView::Trace::PixelColours);
    image = shot(view);
    const QRgb r = pixelAt(image, red), b = pixelAt(image, blue);
    QVERIFY2(qRed(r) > qGreen(r) + 80 && qRed(r) > qBlue(r) + 80, qPrintable(QString::number(r, 16)));
    QVERIFY2(qBlue(b) > qRed(b) + 60 && qBlue(b) > qGreen(b) + 60, qPrintable(QString::number(b, 16)));
    // Grey is drawn white.
    const QColor grey = VectorscopeView::chromaColour(0, 0, true);
    QVERIFY(grey.red() == 255 && grey.green() == 255 && grey.blue() == 255);
}

// The hue-saturation view of colour bars: fully saturated bars lie in the top row, white and
// black in the bottom row, red in column 0. Each lit cell shows in its own rectangle, in its
// colour, whatever the plot's size in pixels: none is hidden by the frame or dropped in scaling.
void TestScopeWidgets::histogram2DEdgeRowsAndColumnsAreDrawn()
{
    ScopeDisplay d;
    d.kind = ScopeDisplay::Kind::Histogram2D;
    ScopeGrid g = grid("H,S", Qt::white, 360, 257, 1.0 + 1.0 / 512);
    g.xName = "hue";
    g.yName = "saturation";
    g.xHi = 360;
    g.yLo = -1.0 / 512;
    QVector<QPoint> lit{{0, 256}, {60, 256}, {120, 256}, {180, 256}, {240, 256}, {300, 256}, {0, 0}, {359, 0}, {200, 128}};
    for (int x = 3; x < 360; x += 7)   // apart from the cells above: a pixel may hold two cells
        if (x % 60 > 6 && x % 60 < 54 && std::abs(x - 200) > 6)
            lit << QPoint(x, 256);
    std::mt19937 rng(360);
    for (const QPoint& c : lit)
        set(g, c.x(), c.y(), double(10 + rng() % 5000));
    d.grids << g;
    Histogram2DView view;
    view.setDisplay(d);
    for (QSize size : {QSize(480, 320), QSize(420, 250), QSize(900, 700)}) {
        view.resize(size);
        const QImage image = view.grab().toImage();
        const qreal dpr = image.devicePixelRatio();
        for (const QPoint& c : lit) {
            const QRectF cell = view.cellRect(c.x(), c.y());
            const QRgb want = view.colorFor(g.at(c.x(), c.y())).rgb();
            bool found = false;
            for (int y = int(std::floor(cell.top() * dpr)); y <= int(std::ceil(cell.bottom() * dpr)) && !found; ++y)
                for (int x = int(std::floor(cell.left() * dpr)); x <= int(std::ceil(cell.right() * dpr)) && !found; ++x)
                    found = image.pixel(x, y) == want;
            QVERIFY2(found, qPrintable(QStringLiteral("cell %1,%2 at %3x%4").arg(c.x()).arg(c.y()).arg(size.width()).arg(size.height())));
        }
    }
}

void TestScopeWidgets::histogram2DColourBarLabelsFit()
{
    ScopeDisplay d;
    ScopeGrid g = grid("H,S", Qt::white, 36, 32, 1.0);
    set(g, 5, 5, 150000);
    set(g, 9, 20, 3);
    d.grids << g;
    Histogram2DView view;
    view.setDisplay(d);
    const QImage image = shot(view);
    const QStringList labels = view.colorBarLabels();
    QCOMPARE(labels.last(), QStringLiteral("100000"));
    const QRectF r = view.colorBarLabelRect(int(labels.size()) - 1);
    QVERIFY2(QRectF(view.rect()).contains(r), qPrintable(QStringLiteral("label right %1 of %2").arg(r.right()).arg(view.width())));
    QVERIFY(r.width() >= QFontMetricsF(view.font()).horizontalAdvance(labels.last()));
    QVERIFY(r.left() > view.colorBarRect().right());
    // The last digit is drawn: ink in the label's right quarter.
    const QColor window = view.palette().window().color();
    int ink = 0;
    for (double y = r.top(); y < r.bottom(); y += 1)
        for (double x = r.left() + r.width() * 0.75; x < r.right(); x += 1)
            ink += QColor(pixelAt(image, QPointF(x, y))) != window;
    QVERIFY2(ink > 3, qPrintable(QString::number(ink)));
}

void TestScopeWidgets::rebuildsAreLinearInTheirCells_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<int>("bins");
    for (int bins : {16, 256}) {
        QTest::newRow(qPrintable(QStringLiteral("waveform %1").arg(bins))) << int(ScopeDisplay::Kind::Waveform) << bins;
        QTest::newRow(qPrintable(QStringLiteral("parade %1").arg(bins))) << int(ScopeDisplay::Kind::Parade) << bins;
        QTest::newRow(qPrintable(QStringLiteral("vectorscope %1").arg(bins))) << int(ScopeDisplay::Kind::Vectorscope) << bins;
    }
}

// Two passes over the cells (the response's reference, then the trace), whatever their size.
void TestScopeWidgets::rebuildsAreLinearInTheirCells()
{
    QFETCH(int, kind);
    QFETCH(int, bins);
    ScopeDisplay d;
    d.kind = ScopeDisplay::Kind(kind);
    const int grids = d.kind == ScopeDisplay::Kind::Parade ? 3 : 1;
    std::mt19937 rng(bins);
    for (int i = 0; i < grids; ++i) {
        ScopeGrid g = grid("R", Qt::red, bins, bins);
        for (double& c : g.counts)
            c = double(rng() % 50);
        d.grids << g;
    }
    std::unique_ptr<ScopeView> view;
    if (d.kind == ScopeDisplay::Kind::Vectorscope)
        view = std::make_unique<VectorscopeView>();
    else
        view = std::make_unique<WaveformView>();
    view->setDisplay(d);
    const quint64 cells = quint64(grids) * quint64(bins) * quint64(bins);
    QCOMPARE(view->cellsVisitedByRebuild(), 2 * cells);
    view->setGain(3.0);
    QCOMPARE(view->cellsVisitedByRebuild(), 2 * cells);
    view->setLogIntensity(true);
    QCOMPARE(view->cellsVisitedByRebuild(), 2 * cells);
    QVERIFY(!shot(*view).isNull());
}

QTEST_MAIN(TestScopeWidgets)
#include "tst_scopewidgets.moc"
