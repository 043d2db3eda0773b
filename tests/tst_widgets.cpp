// Paint-only widgets fed plain values: the histogram plot's readout, axes, legend, blending,
// percentile marks, separate per-channel plots, the table of bins, the Histogram dock's mode bar
// and rendering at a chosen size.
#include "widgets/HistogramPanel.h"
#include "widgets/HistogramTableModel.h"
#include "widgets/HistogramView.h"
#include "widgets/TablePanel.h"

#include <QAbstractButton>
#include <QApplication>
#include <QHeaderView>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTableView>
#include <QTableWidget>
#include <QTest>

#include <random>

namespace {

// R, G, B and luma as the app shows a colour image; B piles up near 255 as on the sample image.
HistogramDisplay colourDisplay(const QStringList& names = {"R", "G", "B", "luma"})
{
    HistogramDisplay display;
    display.lo = 0;
    display.hi = 256;
    display.integerValues = true;
    const QColor colours[] = {QColor(235, 80, 70), QColor(90, 200, 90), QColor(80, 120, 255), QColor(240, 240, 240)};
    for (int s = 0; s < 4; ++s) {
        QVector<double> counts(256, 0.0);
        for (int v = 0; v < 256; ++v)
            counts[v] = 200 + 50 * s + (v * (s + 3)) % 90;
        if (s == 2)
            for (int v = 230; v < 256; ++v)
                counts[v] = 4000;   // the peak the legend used to sit on
        display.series.append({names[s], colours[s], counts, s == 3});
    }
    return display;
}

HistogramDisplay grayDisplay(QVector<double> counts, double lo, double hi, bool integer)
{
    HistogramDisplay display;
    display.lo = lo;
    display.hi = hi;
    display.integerValues = integer;
    display.series.append({"gray", Qt::white, std::move(counts)});
    return display;
}

// `count` channels of random counts (fresh each run, never zero), alike or apart.
HistogramDisplay randomDisplay(int count, bool identical, int bins, std::mt19937_64& rng)
{
    HistogramDisplay display;
    display.lo = 0;
    display.hi = bins;
    display.integerValues = true;
    const char* names[] = {"R", "G", "B", "luma"};
    const QColor colours[] = {QColor(235, 80, 70), QColor(90, 200, 90), QColor(80, 140, 240), QColor(240, 240, 240)};
    std::uniform_int_distribution<int> noise(1, 400);
    QVector<double> shared(bins);
    for (double& c : shared)
        c = noise(rng);
    for (int s = 0; s < count; ++s) {
        QVector<double> counts = shared;
        if (!identical)
            for (int b = 0; b < bins; ++b)   // each channel piled towards a part of the range of its own
                counts[b] = noise(rng) * (1 + 20 * std::exp(-std::pow((b - bins * (s + 1) / (count + 1.0)) / (bins / 10.0), 2)));
        display.series.append({names[s], colours[s], counts, s == 3});
    }
    return display;
}

QStringList labelsOf(const QVector<HistogramView::Tick>& ticks)
{
    QStringList out;
    for (const auto& t : ticks)
        out << t.label;
    return out;
}

}  // namespace

class TestWidgets : public QObject {
    Q_OBJECT

private slots:
    void histogramHoverReadout_data();
    void histogramHoverReadout();
    void hoverReadoutClearsWhenTheMouseLeaves();
    void valueAxisTicksInTheDataUnits_data();
    void valueAxisTicksInTheDataUnits();
    void countAxisShowsLogDecades();
    void countLabelsUseOneNotation_data();
    void countLabelsUseOneNotation();
    void legendHidesAndShowsChannels();
    void legendHasAStripOfItsOwn_data();
    void legendHasAStripOfItsOwn();
    void legendNeverCoversData_data();
    void legendNeverCoversData();
    void overlappingChannelsAddUpAndLumaIsAnOutline();
    void percentileLabelsNeverOverlap_data();
    void percentileLabelsNeverOverlap();
    void envelopeGivesTheSameLabelsAsTheCounts_data();
    void envelopeGivesTheSameLabelsAsTheCounts();
    void percentileLabelsStayAboveTheFill_data();
    void percentileLabelsStayAboveTheFill();
    void separatePlotsGiveEachChannelABand();
    void renderPaintsAtTheRequestedSize();
    void renderPaintsATitle();
    void tableValuesStayInView_data();
    void tableValuesStayInView();
    void tableFilledOnlyWhenShown();
    void tableColumnsOnlyGrowWhileTheShapeStays();
    void binTableListsEveryBin_data();
    void binTableListsEveryBin();
    void binTableOf65536BinsMakesOnlyTheCellsShown();
    void modeBarSwitchesThePlotAndTheTable();
};

void TestWidgets::histogramHoverReadout_data()
{
    QTest::addColumn<bool>("integer");
    QTest::addColumn<double>("hi");
    QTest::addColumn<int>("x");
    QTest::addColumn<QString>("readout");
    // 4 bins over the plot's width: the readout names the bin under x and its count.
    QTest::newRow("integer, one value per bin") << true << 4.0 << 2 << QStringLiteral("value 2  gray 3");
    QTest::newRow("integer, two values per bin") << true << 8.0 << 0 << QStringLiteral("values 0–1  gray 1");
    QTest::newRow("float bins") << false << 1.0 << 2 << QStringLiteral("[0.5, 0.75)  gray 3");
    QTest::newRow("left of the plot") << true << 4.0 << -1 << QString();
}

void TestWidgets::histogramHoverReadout()
{
    QFETCH(bool, integer);
    QFETCH(double, hi);
    QFETCH(int, x);
    QFETCH(QString, readout);
    HistogramView view;
    view.resize(458, 200);
    view.setDisplay(grayDisplay({1, 2, 3, 4}, 0, hi, integer));
    const QRectF r = view.plotRect();
    const int px = x < 0 ? 2 : int(r.left() + (x + 0.5) * r.width() / 4);
    QCOMPARE(view.readoutAt(px), readout);
}

void TestWidgets::hoverReadoutClearsWhenTheMouseLeaves()
{
    HistogramView view;
    view.resize(458, 200);
    view.setDisplay(grayDisplay({1, 2, 3, 4}, 0, 4, true));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QSignalSpy hovered(&view, &HistogramView::hovered);
    QTest::mouseMove(&view, view.plotRect().center().toPoint());
    QTRY_VERIFY(!hovered.isEmpty());
    QVERIFY(!hovered.last().at(0).toString().isEmpty());
    QVERIFY(!view.hoverText().isEmpty());
    QEvent leave(QEvent::Leave);
    QApplication::sendEvent(&view, &leave);
    QCOMPARE(hovered.last().at(0).toString(), QString());
    QVERIFY(view.hoverText().isEmpty());
}

void TestWidgets::valueAxisTicksInTheDataUnits_data()
{
    QTest::addColumn<double>("lo");
    QTest::addColumn<double>("hi");
    QTest::addColumn<bool>("integer");
    QTest::addColumn<QStringList>("labels");
    QTest::newRow("8-bit") << 0.0 << 256.0 << true << QStringList{"0", "64", "128", "192", "255"};
    QTest::newRow("16-bit") << 0.0 << 65536.0 << true << QStringList{"0", "16384", "32768", "49152", "65535"};
    QTest::newRow("12-bit in 16") << 0.0 << 4096.0 << true << QStringList{"0", "1024", "2048", "3072", "4095"};
    QTest::newRow("float -0.5..1.5") << -0.5 << 1.5 << false << QStringList{"-0.5", "0", "0.5", "1", "1.5"};
    QTest::newRow("float 0..1") << 0.0 << 1.0 << false << QStringList{"0", "0.2", "0.4", "0.6", "0.8", "1"};
    QTest::newRow("integer min-max 19..201") << 19.0 << 201.0 << true << QStringList{"50", "100", "150", "200"};
}

void TestWidgets::valueAxisTicksInTheDataUnits()
{
    QFETCH(double, lo);
    QFETCH(double, hi);
    QFETCH(bool, integer);
    QFETCH(QStringList, labels);
    HistogramView view;
    const QSize size(420, 240);
    view.resize(size);
    view.setDisplay(grayDisplay(QVector<double>(64, 1.0), lo, hi, integer));
    const auto ticks = view.valueTicks(size);
    QCOMPARE(labelsOf(ticks), labels);
    const QRectF r = view.plotRect(size);
    for (const auto& t : ticks)
        QVERIFY2(t.position >= r.left() - 0.5 && t.position <= r.right() + 0.5, qPrintable(t.label));
}

void TestWidgets::countAxisShowsLogDecades()
{
    HistogramView view;
    const QSize size(420, 400);
    view.resize(size);
    view.setDisplay(grayDisplay({0, 3, 123456, 70}, 0, 4, true));
    QCOMPARE(labelsOf(view.countTicks(size)).first(), QStringLiteral("0"));
    QVERIFY(labelsOf(view.countTicks(size)).contains("100k"));
    view.setLogCounts(true);
    QCOMPARE(labelsOf(view.countTicks(size)), (QStringList{"0", "1", "10", "100", "1k", "10k", "100k"}));
    // Decades are evenly spaced.
    const auto ticks = view.countTicks(size);
    const double d1 = ticks[2].position - ticks[3].position, d2 = ticks[5].position - ticks[6].position;
    QVERIFY(std::abs(d1 - d2) < 1.5);
    QVERIFY(view.percentTicks(size).isEmpty());
    view.setCumulative(true);
    QCOMPARE(labelsOf(view.percentTicks(size)), (QStringList{"0%", "25%", "50%", "75%", "100%"}));
}

void TestWidgets::countLabelsUseOneNotation_data()
{
    QTest::addColumn<double>("peak");
    QTest::addColumn<int>("height");
    QTest::addColumn<QString>("expected");   // one label the axis must show
    QTest::newRow("3,600: steps of 500") << 3600.0 << 400 << QStringLiteral("2.5k");
    QTest::newRow("8,000: steps of 1000") << 8000.0 << 400 << QStringLiteral("8k");
    QTest::newRow("1.5 M: steps of 200 k") << 1.5e6 << 400 << QStringLiteral("1.4M");
    QTest::newRow("900: plain") << 900.0 << 400 << QStringLiteral("900");
}

void TestWidgets::countLabelsUseOneNotation()
{
    QFETCH(double, peak);
    QFETCH(int, height);
    QFETCH(QString, expected);
    HistogramView view;
    const QSize size(420, height);
    view.resize(size);
    view.setDisplay(grayDisplay({0, peak / 2, peak, 1}, 0, 4, true));
    const QStringList labels = labelsOf(view.countTicks(size));
    QVERIFY2(labels.contains(expected), qPrintable(labels.join(' ')));
    for (const QString& label : labels) {
        bool plain = false;
        const double v = label.toDouble(&plain);
        QVERIFY2(!plain || v < 1000, qPrintable(labels.join(' ')));   // 1000 and up carry k, M or G
    }
}

void TestWidgets::legendHidesAndShowsChannels()
{
    HistogramView view;
    view.resize(500, 260);
    HistogramDisplay display = grayDisplay({1, 2, 3, 4}, 0, 4, true);
    display.series = {{"R", Qt::red, {5, 0, 0, 0}}, {"G", Qt::green, {0, 6, 0, 0}}, {"luma", Qt::white, {1, 1, 1, 1}, true}};
    view.setDisplay(display);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const auto entries = view.legendEntries(view.size());
    QCOMPARE(entries.size(), 3);
    QCOMPARE(entries[0].first, QStringLiteral("R"));
    QSignalSpy changed(&view, &HistogramView::hiddenSeriesChanged);
    QTest::mouseClick(&view, Qt::LeftButton, {}, entries[0].second.center().toPoint());
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.last().at(0).toStringList(), QStringList{"R"});
    QVERIFY(!view.isSeriesVisible("R"));
    const int x = int(view.plotRect().left() + 0.5 * view.plotRect().width() / 4);
    QCOMPARE(view.readoutAt(x), QStringLiteral("value 0  G 0  luma 1"));
    QTest::mouseClick(&view, Qt::LeftButton, {}, entries[0].second.center().toPoint());
    QCOMPARE(changed.last().at(0).toStringList(), QStringList{});
    QCOMPARE(view.readoutAt(x), QStringLiteral("value 0  R 5  G 0  luma 1"));
    view.setHiddenSeries({"G", "luma"});   // from settings: no signal
    QCOMPARE(changed.count(), 2);
    QVERIFY(!view.isSeriesVisible("luma"));
}

void TestWidgets::legendHasAStripOfItsOwn_data()
{
    QTest::addColumn<QSize>("size");
    QTest::addColumn<bool>("cumulative");
    QTest::addColumn<QString>("referenceTitle");   // empty: no reference
    QTest::newRow("dock size") << QSize(520, 280) << false << QString();
    QTest::newRow("cumulative, percentile labels") << QSize(520, 280) << true << QString();
    QTest::newRow("reference title beside the legend") << QSize(640, 280) << true << QStringLiteral("reference: sample.png");
    QTest::newRow("long reference title, a row of its own")
        << QSize(520, 280) << false << QStringLiteral("reference: a_very_long_reference_file_name_from_the_camera_0001.tiff");
    QTest::newRow("narrowest: the legend wraps") << QSize(280, 200) << true << QStringLiteral("reference: sample.png");
}

void TestWidgets::legendHasAStripOfItsOwn()
{
    QFETCH(QSize, size);
    QFETCH(bool, cumulative);
    QFETCH(QString, referenceTitle);
    HistogramView view;
    view.resize(size);
    HistogramDisplay display = colourDisplay();
    if (!referenceTitle.isEmpty()) {
        display.reference = display.series;
        display.referenceLo = display.lo;
        display.referenceHi = display.hi;
        display.referenceTitle = referenceTitle;
    }
    view.setDisplay(display);
    view.setCumulative(cumulative);
    const QRectF plot = view.plotRect(size);
    const QRectF widget(QPointF(0, 0), QSizeF(size));
    const auto entries = view.legendEntries(size);
    QCOMPARE(entries.size(), 4);
    QVector<QRectF> annotations;
    for (const auto& entry : entries)
        annotations.append(entry.second);
    const QRectF title = view.referenceTitleRect(size);
    QCOMPARE(title.isEmpty(), referenceTitle.isEmpty());
    if (!title.isEmpty())
        annotations.append(title);
    for (int i = 0; i < annotations.size(); ++i) {
        const QRectF a = annotations[i];
        QVERIFY2(!a.intersects(plot) && a.bottom() <= plot.top(), qPrintable(QStringLiteral("annotation %1").arg(i)));
        QVERIFY(widget.contains(a));
        for (int j = i + 1; j < annotations.size(); ++j)
            QVERIFY2(!a.intersects(annotations[j]), qPrintable(QStringLiteral("annotations %1 and %2").arg(i).arg(j)));
    }
    // The plot keeps most of the height, and the percentile labels stay inside it, clear of all.
    QVERIFY2(plot.height() >= size.height() * 0.45, qPrintable(QString::number(plot.height())));
    const auto labels = view.percentileLabels(size);
    QCOMPARE(labels.isEmpty(), !cumulative);
    for (const auto& label : labels) {
        QVERIFY(plot.contains(label.rect));
        for (const QRectF& a : annotations)
            QVERIFY(!label.rect.intersects(a));
    }
    // Every entry still hides and shows its channel, wherever it was placed.
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QSignalSpy changed(&view, &HistogramView::hiddenSeriesChanged);
    for (const auto& [name, rect] : entries) {
        QTest::mouseClick(&view, Qt::LeftButton, {}, rect.center().toPoint());
        QVERIFY2(!view.isSeriesVisible(name), qPrintable(name));
    }
    QCOMPARE(changed.count(), 4);
    QCOMPARE(view.hiddenSeries(), (QStringList{"R", "G", "B", "luma"}));
}

void TestWidgets::legendNeverCoversData_data()
{
    QTest::addColumn<QSize>("size");
    QTest::addColumn<bool>("cumulative");
    QTest::newRow("dock size") << QSize(520, 280) << false;
    QTest::newRow("export size, cumulative") << QSize(1200, 600) << true;
}

void TestWidgets::legendNeverCoversData()
{
    // Legends of different widths over the same data: a legend inside the plot would change
    // the plot's pixels (a dark box over the blue peak near 255); one beside it changes none.
    QFETCH(QSize, size);
    QFETCH(bool, cumulative);
    HistogramView shortNames, longNames;
    shortNames.setDisplay(colourDisplay());
    longNames.setDisplay(colourDisplay({"red", "green", "blue channel", "luma (BT.709)"}));
    shortNames.setCumulative(cumulative);
    longNames.setCumulative(cumulative);
    const QRectF plot = shortNames.plotRect(size);
    QCOMPARE(longNames.plotRect(size), plot);
    const QImage a = shortNames.render(size), b = longNames.render(size);
    // Percentile labels name values, not channels, so they match too.
    const QRect inside = plot.toAlignedRect().adjusted(-1, -1, 1, 1);
    int differing = 0;
    for (int y = inside.top(); y <= inside.bottom(); ++y)
        for (int x = inside.left(); x <= inside.right(); ++x)
            differing += a.pixel(x, y) != b.pixel(x, y);
    QCOMPARE(differing, 0);
    // The peak reaches the plot's top right undimmed: blue at full fill brightness (where no
    // percentile's label, which may lie over data, is).
    QPoint corner = QPointF(plot.right() - plot.width() * 5 / 256, plot.top() + 6).toPoint();
    for (const auto& label : shortNames.percentileLabels(size))
        if (label.rect.adjusted(-3, -3, 3, 3).contains(corner))
            corner.setY(int(label.rect.bottom()) + 4);
    int blue = 0;
    for (int dx = -2; dx <= 2; ++dx)
        for (int dy = -2; dy <= 2; ++dy)
            blue = std::max(blue, a.pixelColor(corner + QPoint(dx, dy)).blue());
    QVERIFY2(blue >= 36 + int(255 * 0.62) - 2, qPrintable(QString::number(blue)));
}

void TestWidgets::overlappingChannelsAddUpAndLumaIsAnOutline()
{
    // R and G cover the same bins fully; luma, drawn over them, too.
    HistogramView view;
    const QSize size(400, 240);
    HistogramDisplay display;
    display.lo = 0;
    display.hi = 4;
    display.integerValues = true;
    display.series = {{"R", QColor(235, 80, 70), {10, 10, 10, 10}},
                      {"G", QColor(90, 200, 90), {10, 10, 10, 10}},
                      {"luma", QColor(240, 240, 240), {10, 10, 10, 10}, true}};
    view.setDisplay(display);
    view.setHiddenSeries({"G", "luma"});
    const QRectF r = view.plotRect(size);
    const QPoint inside = QPointF(r.left() + r.width() * 0.3, r.bottom() - r.height() * 0.3).toPoint();
    const QColor redOnly = view.render(size).pixelColor(inside);
    view.setHiddenSeries({"luma"});
    const QColor both = view.render(size).pixelColor(inside);
    // Additive: red keeps its red and gains G's green.
    QVERIFY2(both.red() >= redOnly.red() && both.green() > redOnly.green() + 60,
             qPrintable(QStringLiteral("%1 -> %2").arg(redOnly.name(), both.name())));
    // Luma as an outline: inside the fills nothing changes when it is shown.
    view.setHiddenSeries({});
    QCOMPARE(view.render(size).pixelColor(inside), both);
}

void TestWidgets::envelopeGivesTheSameLabelsAsTheCounts_data()
{
    QTest::addColumn<int>("bins");
    QTest::addColumn<int>("binsPerPeak");
    QTest::newRow("65,536 bins in groups of 16") << 65536 << 16;
    QTest::newRow("1,000,003 bins, a short last group") << 1000003 << 245;
}

// A display with the worker's envelope (peaks and cumulative sums per group of bins) gives the
// same percentile values as the full counts, which the view then never walks as it paints.
void TestWidgets::envelopeGivesTheSameLabelsAsTheCounts()
{
    QFETCH(int, bins);
    QFETCH(int, binsPerPeak);
    std::mt19937_64 rng(bins);
    std::uniform_int_distribution<int> count(0, 50);
    QVector<double> counts(bins);
    for (double& c : counts)
        c = count(rng) * count(rng) % 97;
    HistogramSeries full{"gray", Qt::white, counts};
    HistogramSeries enveloped = full;
    enveloped.binsPerPeak = binsPerPeak;
    double run = 0;
    for (int b = 0; b < bins; ++b) {   // the oracle of the envelope, as its header defines it
        run += counts[b];
        if (b % binsPerPeak == 0) {
            enveloped.peaks.append(counts[b]);
            enveloped.cumulative.append(run);
        } else {
            enveloped.peaks.last() = std::max(enveloped.peaks.last(), counts[b]);
            enveloped.cumulative.last() = run;
        }
    }
    enveloped.total = run;
    QCOMPARE(enveloped.peaks.size(), (bins + binsPerPeak - 1) / binsPerPeak);
    const QSize size(640, 300);
    auto labelsOf = [&](const HistogramSeries& series) {
        HistogramDisplay display;
        display.lo = 0;
        display.hi = bins;
        display.integerValues = true;
        display.series = {series};
        HistogramView view;
        view.setDisplay(display);
        view.setCumulative(true);
        QVector<double> values;
        for (const auto& l : view.percentileLabels(size))
            values << l.value;
        return values;
    };
    const QVector<double> want = labelsOf(full);
    QVERIFY(!want.isEmpty());
    QCOMPARE(labelsOf(enveloped), want);
}

void TestWidgets::percentileLabelsNeverOverlap_data()
{
    QTest::addColumn<int>("seriesCount");
    QTest::addColumn<bool>("identical");
    QTest::newRow("four identical channels") << 4 << true;
    QTest::newRow("four channels apart") << 4 << false;
    QTest::newRow("one channel") << 1 << true;
}

void TestWidgets::percentileLabelsNeverOverlap()
{
    QFETCH(int, seriesCount);
    QFETCH(bool, identical);
    HistogramView view;
    const QSize size(520, 280);
    HistogramDisplay display;
    display.lo = 0;
    display.hi = 256;
    display.integerValues = true;
    const char* names[] = {"R", "G", "B", "luma"};
    for (int s = 0; s < seriesCount; ++s) {
        QVector<double> counts(256, 0.0);
        for (int v = 0; v < 256; ++v)
            counts[v] = 100 + (identical ? 0 : s * 37) + (v % 7);
        display.series.append({names[s], QColor(100 + 40 * s, 200 - 30 * s, 120), counts, s == 3});
    }
    view.setDisplay(display);
    view.setCumulative(true);
    const auto labels = view.percentileLabels(size);
    QVERIFY(labels.size() >= 3);   // at least one label per mark
    const QRectF r = view.plotRect(size);
    for (int i = 0; i < labels.size(); ++i) {
        QVERIFY(r.contains(labels[i].rect));
        for (int j = i + 1; j < labels.size(); ++j)
            QVERIFY2(!labels[i].rect.intersects(labels[j].rect),
                     qPrintable(labels[i].series + " " + labels[i].text + " / " + labels[j].series + " " + labels[j].text));
        for (const auto& entry : view.legendEntries(size))
            QVERIFY(!labels[i].rect.intersects(entry.second));
    }
    // The values are the inverted-CDF bins' lower edges: with uniform-ish data, p50 lies near 128.
    for (const auto& l : labels)
        if (l.percent == 50)
            QVERIFY2(std::abs(l.value - 128) <= 4, qPrintable(l.text));
}

void TestWidgets::percentileLabelsStayAboveTheFill_data()
{
    QTest::addColumn<int>("seriesCount");
    QTest::addColumn<bool>("identical");
    QTest::addColumn<bool>("log");
    QTest::addColumn<bool>("separate");
    QTest::addColumn<QSize>("size");
    QTest::newRow("log, four identical channels, dock") << 4 << true << true << false << QSize(520, 280);
    QTest::newRow("log, four channels apart, dock") << 4 << false << true << false << QSize(520, 280);
    QTest::newRow("log, four identical channels, narrow") << 4 << true << true << false << QSize(380, 240);
    QTest::newRow("linear, three identical channels") << 3 << true << false << false << QSize(520, 280);
    QTest::newRow("log, one channel") << 1 << true << true << false << QSize(520, 280);
    QTest::newRow("log, separate plots, dock") << 4 << false << true << true << QSize(520, 330);
    QTest::newRow("separate plots, export size") << 4 << true << false << true << QSize(1200, 600);
}

// Log counts fill most of the plot: every channel's p5, p50 and p95 still has its label, on an
// opaque box over the fill, none over another label, a guide's name or a crossing's dot.
void TestWidgets::percentileLabelsStayAboveTheFill()
{
    QFETCH(int, seriesCount);
    QFETCH(bool, identical);
    QFETCH(bool, log);
    QFETCH(bool, separate);
    QFETCH(QSize, size);
    std::mt19937_64 rng(std::random_device{}());
    HistogramView view;
    view.setDisplay(randomDisplay(seriesCount, identical, 256, rng));
    view.setLogCounts(log);
    view.setArrangement(separate ? HistogramView::Arrangement::Separate : HistogramView::Arrangement::Overlay);
    const QImage fillOnly = view.render(size);   // no cumulative overlay: what lies under the labels
    view.setCumulative(true);
    const auto labels = view.percentileLabels(size);
    const auto guides = view.guideLabels(size);
    const QImage image = view.render(size);
    QCOMPARE(labels.size(), seriesCount * 3);
    QCOMPARE(guides.size(), 3 * (separate ? seriesCount : 1));
    const auto bands = view.bands(size);
    int overFill = 0;
    for (int i = 0; i < labels.size(); ++i) {
        const auto& l = labels[i];
        // Every channel has each mark once, inside the band it is drawn in.
        int same = 0;
        for (const auto& other : labels)
            same += other.series == l.series && other.percent == l.percent;
        QCOMPARE(same, 1);
        bool inItsBand = false;
        for (const auto& band : bands)
            inItsBand = inItsBand || (band.series.contains(l.series) && band.rect.contains(l.rect));
        QVERIFY2(inItsBand, qPrintable(l.series + " p" + QString::number(l.percent)));
        for (int j = i + 1; j < labels.size(); ++j)
            QVERIFY2(!l.rect.intersects(labels[j].rect), qPrintable(l.series + " " + l.text + " / " + labels[j].series + " " + labels[j].text));
        for (const auto& g : guides)
            QVERIFY2(!l.rect.intersects(g.second), qPrintable(l.text + " / " + g.first));
        for (const auto& other : labels)
            QVERIFY2(!l.rect.contains(other.anchor), qPrintable(l.text + " covers the dot of " + other.series));
        // Opaque: the box's inner corner is the label colour whatever lies under it, and the
        // value is written in it.
        const QPoint corner = l.rect.topLeft().toPoint() + QPoint(2, 2);
        QCOMPARE(image.pixelColor(corner), HistogramView::labelBackground());
        overFill += fillOnly.pixelColor(corner) != fillOnly.pixelColor(QPoint(2, size.height() / 2));
        int bright = 0;
        for (int y = int(l.rect.top()); y < int(l.rect.bottom()); ++y)
            for (int x = int(l.rect.left()); x < int(l.rect.right()); ++x)
                bright += image.pixelColor(x, y).lightness() > 110;
        QVERIFY2(bright >= 4, qPrintable(l.text));
    }
    if (log)
        QVERIFY2(overFill > 0, "no label lay over a fill: the fixture does not test that");
    for (const auto& g : guides) {
        QCOMPARE(image.pixelColor(g.second.topLeft().toPoint() + QPoint(1, 1)), HistogramView::labelBackground());
        for (const auto& l : labels)
            QVERIFY2(!g.second.contains(l.anchor), qPrintable(g.first + " covers a dot"));
    }
}

void TestWidgets::separatePlotsGiveEachChannelABand()
{
    // R and G cover the same bins; G holds four times R's counts.
    HistogramView view;
    const QSize size(480, 320);
    view.resize(size);
    HistogramDisplay display;
    display.lo = 0;
    display.hi = 4;
    display.integerValues = true;
    display.series = {{"R", QColor(235, 80, 70), {10, 10, 10, 10}}, {"G", QColor(90, 200, 90), {40, 40, 40, 40}}};
    view.setDisplay(display);
    auto at = [&](const QRectF& r, double fx, double fy) { return QPointF(r.left() + r.width() * fx, r.bottom() - r.height() * fy).toPoint(); };
    // Overlaid: one band; R reaches a quarter of the height, G all of it, added where they overlap.
    QCOMPARE(view.bands(size).size(), 1);
    const QImage overlaid = view.render(size);
    const QRectF plot = view.plotRect(size);
    QVERIFY(overlaid.pixelColor(at(plot, 0.5, 0.1)).red() > 150 && overlaid.pixelColor(at(plot, 0.5, 0.1)).green() > 150);

    view.setArrangement(HistogramView::Arrangement::Separate);
    const auto bands = view.bands(size);
    QCOMPARE(bands.size(), 2);
    QCOMPARE(bands[0].series, QStringList{"R"});
    QCOMPARE(bands[1].series, QStringList{"G"});
    QCOMPARE(view.plotRect(size), plot);   // the same area, shared by the bands
    QVERIFY(bands[0].rect.bottom() < bands[1].rect.top());
    for (const auto& band : bands) {
        QVERIFY(plot.contains(band.rect));
        QCOMPARE(band.rect.left(), plot.left());   // one value axis for both
        QCOMPARE(band.rect.width(), plot.width());
        QVERIFY(band.rect.height() > plot.height() * 0.4);
    }
    // Each band on its own scale, filled to its top in its own colour only.
    const QImage image = view.render(size);
    const QColor red = image.pixelColor(at(bands[0].rect, 0.5, 0.9)), green = image.pixelColor(at(bands[1].rect, 0.5, 0.9));
    // (Fills add to the background, 32, 33, 36.)
    QVERIFY2(red.red() > 150 && red.green() < 100, qPrintable(red.name()));
    QVERIFY2(green.green() > 140 && green.red() < 100, qPrintable(green.name()));
    QVERIFY(labelsOf(view.countTicks(size, 0)).contains("10"));
    QVERIFY(labelsOf(view.countTicks(size, 1)).contains("40"));
    QVERIFY(!labelsOf(view.countTicks(size, 0)).contains("40"));
    // The readout and the legend work as overlaid.
    const int x = int(plot.left() + 2.5 * plot.width() / 4);
    QCOMPARE(view.readoutAt(x), QStringLiteral("value 2  R 10  G 40"));
    QCOMPARE(view.legendEntries(size).size(), 2);
    // A hidden channel gives up its band.
    view.setHiddenSeries({"R"});
    QCOMPARE(view.bands(size).size(), 1);
    QCOMPARE(view.bands(size).first().rect, plot);
    QCOMPARE(view.bands(size).first().series, QStringList{"G"});
}

void TestWidgets::renderPaintsAtTheRequestedSize()
{
    HistogramView view;
    view.resize(300, 180);
    view.setDisplay(grayDisplay({1, 2, 3, 4}, 0, 4, true));
    const QImage image = view.render(QSize(1200, 600));
    QCOMPARE(image.size(), QSize(1200, 600));
    // The axes are painted: the frame's left edge is a line of the axis colour.
    const QRectF r = view.plotRect(QSize(1200, 600));
    const QColor edge = image.pixelColor(int(r.left()), int(r.center().y()));
    QVERIFY2(edge.lightness() > 80, qPrintable(edge.name()));
    const QImage empty = HistogramView().render(QSize(320, 200));
    QCOMPARE(empty.size(), QSize(320, 200));
}

void TestWidgets::renderPaintsATitle()
{
    HistogramView view;
    view.setDisplay(colourDisplay());
    const QSize size(900, 420);
    const QString title = QStringLiteral("clip.avi — frame 3 — region 10 × 8 at (2, 3)");
    QVERIFY(view.titleRect(size, QString()).isEmpty());
    const QRectF rect = view.titleRect(size, title);
    QVERIFY(!rect.isEmpty());
    const QImage plain = view.render(size), titled = view.render(size, title);
    QCOMPARE(titled.size(), size);
    // Its own row above the legend: the legend is painted as without it, lower by the title's row.
    const auto legend = view.legendEntries(size);
    const QRect strip = QRectF(legend.first().second.topLeft(), legend.last().second.bottomRight()).toAlignedRect();
    QCOMPARE(titled.copy(strip.translated(0, int(rect.bottom()))), plain.copy(strip));
    int text = 0, plainText = 0;
    for (int y = int(rect.top()); y < int(rect.bottom()); ++y)
        for (int x = int(rect.left()); x < int(rect.right()); ++x) {
            text += titled.pixelColor(x, y).lightness() > 120;
            plainText += plain.pixelColor(x, y).lightness() > 120;
        }
    QVERIFY2(text > 100, qPrintable(QString::number(text)));
    QVERIFY(text > plainText + 100);
    QVERIFY(titled != plain);
}

void TestWidgets::tableValuesStayInView_data()
{
    QTest::addColumn<QStringList>("columns");
    QTest::addColumn<int>("alignment");
    QTest::newRow("label -> value: left, beside a long value") << QStringList{"value"} << int(Qt::AlignLeft);
    QTest::newRow("per channel: right, digits under digits") << QStringList{"R", "G"} << int(Qt::AlignRight);
}

void TestWidgets::tableValuesStayInView()
{
    QFETCH(QStringList, columns);
    QFETCH(int, alignment);
    TablePanel panel;
    panel.resize(300, 200);
    TableContent content;
    content.columns = columns;
    content.rowLabels = {"backend", "upload"};
    const QString longText = QStringLiteral("CPU (HistoScope was built without CUDA: counting on the CPU)");
    content.cells = {QStringList(columns.size(), longText), QStringList(columns.size(), QStringLiteral("0.120 ms"))};
    panel.setContent(content);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QVERIFY(panel.showsEveryCellWhole());
    QTableWidget* table = panel.table();
    QCOMPARE(int(table->item(1, 0)->textAlignment() & Qt::AlignHorizontal_Mask), alignment);
    if (columns.size() == 1) {
        // The short value's text starts at the column's left edge, inside the visible viewport.
        const QRect cell = table->visualItemRect(table->item(1, 0));
        const int textRight = cell.left() + table->fontMetrics().horizontalAdvance(QStringLiteral("0.120 ms")) + 8;
        QVERIFY2(textRight <= table->viewport()->width(), qPrintable(QString::number(textRight)));
        QVERIFY(cell.width() > table->viewport()->width());   // the long value made the column wider than the panel
    }
}

static TableContent statisticsLike(const QString& value)
{
    TableContent content;
    content.columns = {"R", "G", "B", "luma"};
    for (int r = 0; r < 24; ++r)
        content.rowLabels << QStringLiteral("row %1").arg(r);
    content.cells.fill(QStringList(4, value), 24);
    return content;
}

// A live source sets the statistics of every frame: behind another tab, that costs nothing
// until the panel shows; what the panel reports is always the latest content.
void TestWidgets::tableFilledOnlyWhenShown()
{
    TablePanel panel;
    auto* table = panel.findChild<QTableWidget*>();
    QVERIFY(table);
    panel.setContent(statisticsLike(QStringLiteral("1.5")));
    panel.setContent(statisticsLike(QStringLiteral("2.5")));
    QCOMPARE(table->rowCount(), 0);                       // hidden: nothing built yet
    QCOMPARE(panel.cell(3, 2), QStringLiteral("2.5"));    // but the content is the newest
    QCOMPARE(panel.rowOf(QStringLiteral("row 7")), 7);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QCOMPARE(table->rowCount(), 24);
    QCOMPARE(table->columnCount(), 4);
    QCOMPARE(table->item(3, 2)->text(), QStringLiteral("2.5"));
}

// Frame after frame of one shape, the cells are updated in place and a column never narrows, so
// numbers do not jump sideways; a new shape (other channels) fits its columns afresh.
void TestWidgets::tableColumnsOnlyGrowWhileTheShapeStays()
{
    TablePanel panel;
    panel.resize(500, 600);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.setContent(statisticsLike(QStringLiteral("123456.789")));
    QTableWidget* table = panel.table();
    const int wide = table->columnWidth(0);
    const QTableWidgetItem* item = table->item(0, 0);
    panel.setContent(statisticsLike(QStringLiteral("1")));
    QCOMPARE(table->item(0, 0), item);   // the same item, its text replaced
    QCOMPARE(table->item(0, 0)->text(), QStringLiteral("1"));
    QCOMPARE(table->columnWidth(0), wide);
    QTRY_VERIFY(panel.showsEveryCellWhole());   // the header takes its new width once laid out
    TableContent gray = statisticsLike(QStringLiteral("1"));
    gray.columns = {"gray"};
    for (QStringList& row : gray.cells)
        row = QStringList{QStringLiteral("1")};
    panel.setContent(gray);
    QCOMPARE(table->columnCount(), 1);
    QVERIFY(table->columnWidth(0) < wide);
    QTRY_VERIFY(panel.showsEveryCellWhole());   // the header takes its new width once laid out
}

void TestWidgets::binTableListsEveryBin_data()
{
    QTest::addColumn<double>("lo");
    QTest::addColumn<double>("hi");
    QTest::addColumn<int>("bins");
    QTest::addColumn<bool>("integer");
    QTest::newRow("8-bit, one value per bin") << 0.0 << 256.0 << 256 << true;
    QTest::newRow("8-bit in 100 bins") << 0.0 << 256.0 << 100 << true;
    QTest::newRow("16-bit, one value per bin") << 0.0 << 65536.0 << 65536 << true;
    QTest::newRow("float [0, 1) in 65,536 bins") << 0.0 << 1.0 << 65536 << false;
    QTest::newRow("float [-0.5, 1.5) in 1000 bins") << -0.5 << 1.5 << 1000 << false;
}

// ImageJ's List: a row per bin with its range in the data's units and every channel's count.
void TestWidgets::binTableListsEveryBin()
{
    QFETCH(double, lo);
    QFETCH(double, hi);
    QFETCH(int, bins);
    QFETCH(bool, integer);
    std::mt19937_64 rng(std::random_device{}());
    HistogramDisplay display = randomDisplay(3, false, bins, rng);
    display.lo = lo;
    display.hi = hi;
    display.integerValues = integer;
    HistogramTableModel model;
    model.setDisplay(display);
    QCOMPARE(model.rowCount(), bins);
    QCOMPARE(model.columnCount(), 6);
    QStringList headers;
    for (int c = 0; c < model.columnCount(); ++c)
        headers << model.headerData(c, Qt::Horizontal).toString();
    QCOMPARE(headers, (QStringList{"bin", "lo", "hi", "R", "G", "B"}));
    const double w = (hi - lo) / bins;
    std::uniform_int_distribution<int> row(0, bins - 2);
    QVector<int> rows{0, bins - 1};
    for (int i = 0; i < 50; ++i)
        rows << row(rng);
    for (int r : rows) {
        auto text = [&](int c) { return model.data(model.index(r, c)).toString(); };
        QCOMPARE(text(0), QString::number(r));
        const double a = text(1).toDouble(), b = text(2).toDouble();
        // To a hundredth of a bin.
        QVERIFY2(std::abs(a - (lo + r * w)) <= w * 1e-2, qPrintable(text(1)));
        QVERIFY2(std::abs(b - (r + 1 == bins ? hi : lo + (r + 1) * w)) <= w * 1e-2, qPrintable(text(2)));
        if (integer && w == 1)
            QCOMPARE(text(1), QString::number(qint64(lo) + r));   // integer values as integers
        // Neighbouring bins read apart.
        if (r + 1 < bins)
            QVERIFY2(text(1) != model.data(model.index(r + 1, 1)).toString(), qPrintable(text(1)));
        for (int s = 0; s < 3; ++s)
            QCOMPARE(text(3 + s), QString::number(qulonglong(display.series[s].counts[r])));
    }
    QCOMPARE(model.data(model.index(bins - 1, 2)).toString().toDouble(), hi);
    QVERIFY(!model.data(model.index(bins, 0)).isValid());
}

// 65,536 bins listed without a cell per bin: the table asks the model only for the rows it shows,
// when it opens, scrolls and takes the next frame.
void TestWidgets::binTableOf65536BinsMakesOnlyTheCellsShown()
{
    std::mt19937_64 rng(std::random_device{}());
    const int bins = 65536;
    HistogramPanel panel;
    panel.resize(520, 330);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.view()->setDisplay(randomDisplay(4, false, bins, rng));
    QCOMPARE(panel.tableModel()->rowCount(), 0);   // not shown: not fed
    panel.setMode(HistogramPanel::Mode::Table);
    QTableView* table = panel.table();
    QVERIFY(table->isVisible());
    QCOMPARE(panel.tableModel()->rowCount(), bins);
    const int columns = panel.tableModel()->columnCount();
    const int visibleRows = table->viewport()->height() / table->verticalHeader()->defaultSectionSize() + 2;
    QVERIFY(visibleRows < 40);
    auto shownCellsAreMade = [&] {
        QApplication::processEvents();
        table->viewport()->repaint();
        return panel.tableModel()->cellsMade() > 0;
    };
    QTRY_VERIFY(shownCellsAreMade());
    // Each paint makes the visible cells; opening the table made a few paints' worth, never a
    // cell per bin.
    auto paintCost = [&] {
        const qint64 before = panel.tableModel()->cellsMade();
        table->viewport()->repaint();
        return panel.tableModel()->cellsMade() - before;
    };
    QVERIFY2(panel.tableModel()->cellsMade() < bins / 10, qPrintable(QString::number(panel.tableModel()->cellsMade())));
    const qint64 once = paintCost();
    QVERIFY(once > 0);
    QVERIFY2(once <= visibleRows * columns, qPrintable(QString::number(once)));
    // Every value whole: no column narrower than its widest text.
    const QFontMetrics fm(table->font());
    for (int c = 0; c < columns; ++c)
        QVERIFY2(table->columnWidth(c) >= fm.horizontalAdvance(panel.tableModel()->data(panel.tableModel()->index(bins - 1, c)).toString()) + 6,
                 qPrintable(QString::number(c)));
    table->scrollToBottom();
    QVERIFY(paintCost() <= visibleRows * columns);
    QCOMPARE(table->rowAt(table->viewport()->height() - 2), bins - 1);
    QCOMPARE(panel.tableModel()->data(panel.tableModel()->index(bins - 1, 0)).toString(), QStringLiteral("65535"));
    // The next frame of the same binning changes values only: no reset (which would lay out
    // a header section per bin again), the rows in view kept.
    const int scroll = table->verticalScrollBar()->value();
    QSignalSpy reset(panel.tableModel(), &QAbstractItemModel::modelReset);
    panel.view()->setDisplay(randomDisplay(4, false, bins, rng));
    QCOMPARE(reset.count(), 0);
    QCOMPARE(table->verticalScrollBar()->value(), scroll);
    QCOMPARE(panel.tableModel()->cellsMade(), qint64(0));   // set again: nothing made until shown
    QVERIFY(paintCost() <= visibleRows * columns);
}

void TestWidgets::modeBarSwitchesThePlotAndTheTable()
{
    HistogramPanel panel;
    panel.resize(520, 330);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QSignalSpy changed(&panel, &HistogramPanel::modeChanged);
    // Nothing counted yet: the plot's page says so, whatever the mode.
    panel.setMode(HistogramPanel::Mode::Table);
    QVERIFY(panel.view()->isVisible());
    QVERIFY(!panel.table()->isVisible());
    QCOMPARE(changed.count(), 0);   // from settings: no signal
    panel.view()->setDisplay(colourDisplay());
    QVERIFY(panel.table()->isVisible());
    QVERIFY(!panel.view()->isVisible());
    QCOMPARE(panel.tableModel()->rowCount(), 256);
    QVERIFY(panel.modeButton(HistogramPanel::Mode::Table)->isChecked());

    QTest::mouseClick(panel.modeButton(HistogramPanel::Mode::Separate), Qt::LeftButton);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.last().at(0).value<HistogramPanel::Mode>(), HistogramPanel::Mode::Separate);
    QVERIFY(panel.view()->isVisible());
    QVERIFY(!panel.table()->isVisible());
    QCOMPARE(panel.view()->arrangement(), HistogramView::Arrangement::Separate);
    QCOMPARE(panel.view()->bands(panel.view()->size()).size(), 4);
    QCOMPARE(panel.tableModel()->rowCount(), 0);   // the table let go of the counts

    QTest::mouseClick(panel.modeButton(HistogramPanel::Mode::Overlay), Qt::LeftButton);
    QCOMPARE(changed.count(), 2);
    QCOMPARE(changed.last().at(0).value<HistogramPanel::Mode>(), HistogramPanel::Mode::Overlay);
    QCOMPARE(panel.view()->arrangement(), HistogramView::Arrangement::Overlay);
    QCOMPARE(panel.view()->bands(panel.view()->size()).size(), 1);
    QTest::mouseClick(panel.modeButton(HistogramPanel::Mode::Overlay), Qt::LeftButton);
    QCOMPARE(changed.count(), 2);   // the mode it already has
    QVERIFY(panel.modeButton(HistogramPanel::Mode::Overlay)->isChecked());
}

QTEST_MAIN(TestWidgets)
#include "tst_widgets.moc"
