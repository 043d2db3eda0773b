// Paint-only widgets fed plain values.
#include "widgets/HistogramView.h"

#include <QTest>

class TestWidgets : public QObject {
    Q_OBJECT

private slots:
    void histogramHoverReadout_data();
    void histogramHoverReadout();
};

void TestWidgets::histogramHoverReadout_data()
{
    QTest::addColumn<int>("x");
    QTest::addColumn<QString>("readout");
    // The plot spans x in [48, 448): each of the 4 bins is 100 pixels wide.
    QTest::newRow("inside bin 2") << 300 << QStringLiteral("[2, 3)  gray 3");
    QTest::newRow("inside bin 0") << 60 << QStringLiteral("[0, 1)  gray 1");
    QTest::newRow("left of the plot") << 5 << QString();
}

void TestWidgets::histogramHoverReadout()
{
    QFETCH(int, x);
    QFETCH(QString, readout);
    HistogramView view;
    HistogramDisplay display;
    display.lo = 0;
    display.hi = 4;
    display.series.append({"gray", Qt::white, {1, 2, 3, 4}});
    view.setDisplay(display);
    view.resize(458, 200);
    QCOMPARE(view.readoutAt(x), readout);
}

QTEST_MAIN(TestWidgets)
#include "tst_widgets.moc"
