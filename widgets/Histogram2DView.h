// A 2-D histogram (hue against saturation, channel against channel) as an image: one cell per
// bin pair, coloured by count on a log (the default, ScopeView's log intensity) or linear scale,
// with axis titles, range ticks, a colour bar with its decades, and a hover readout of the cell's
// ranges and count. The gain brightens as in the other scopes: the top of the colour bar is the
// largest count divided by the gain (linear), or its gain-th root (log).
#pragma once

#include "widgets/ScopeView.h"

#include <QImage>

class Histogram2DView : public ScopeView {
    Q_OBJECT

public:
    explicit Histogram2DView(QWidget* parent = nullptr);

    // Kind::Histogram2D (or any kind, setDisplay): the first grid is shown.
    // The colour of a count on the current scale (black for zero).
    QColor colorFor(double count) const;
    QRectF plotRect() const;
    QRectF colorBarRect() const;
    // The widget rectangle of cell (x, y), y upwards.
    QRectF cellRect(int x, int y) const;
    // "R [12, 13)  G [200, 201)  count 5"; empty outside the plot.
    QString readoutAt(const QPoint& position) const override;
    // The colour bar's labels, bottom to top ("1", "10", "100" ... on the log scale).
    QStringList colorBarLabels() const;

    // Cells read by the last rebuild: twice the grid's (its largest count, then the colours).
    quint64 cellsVisitedByRebuild() const { return m_cellsVisited; }

    QSize sizeHint() const override { return {420, 360}; }
    QSize minimumSizeHint() const override { return {200, 160}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    void rebuild() override;
    double maxCount() const;
    // Where a count lies on the colour bar, 0 (bottom) to 1 (top; brighter counts clip there).
    double barFraction(double count) const;

    QImage m_image;
    double m_max = 0;            // the grid's largest count, found once per rebuild
    quint64 m_cellsVisited = 0;
};
