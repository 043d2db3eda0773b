// A 2-D histogram (hue against saturation, channel against channel) as an image: one cell per
// bin pair, coloured by count on a log (the default, ScopeView's log intensity) or linear scale,
// with axis titles, round-valued ticks, a colour bar with its decades, and a hover readout of the
// cell's ranges and count. The gain brightens as in the other scopes: the top of the colour bar
// is the largest count divided by the gain (linear), or its gain-th root (log). Every cell is
// drawn, however many cells share a device pixel (the fullest of them shows), and the frame lies
// outside the plot, so the edge rows and columns (saturation 0 and 1, hue 0) are never hidden.
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
    // The black plot, and inside it, a few pixels in, where the cells lie: a cell of the first or
    // last row or column, widened to a spot, stays whole inside the plot.
    QRectF plotRect() const;
    QRectF cellsRect() const;
    QRectF colorBarRect() const;
    // Where the colour bar's label `index` (colorBarLabels) is drawn.
    QRectF colorBarLabelRect(int index) const;
    // The widget rectangle of cell (x, y), y upwards.
    QRectF cellRect(int x, int y) const;
    // "R [12, 13)  G [200, 201)  count 5"; empty outside the plot.
    QString readoutAt(const QPoint& position) const override;
    // The colour bar's labels, bottom to top ("1", "10", "100" ... on the log scale).
    QStringList colorBarLabels() const;
    // The ticks of an axis, in its units: round values inside [lo, hi] (hue: every 60 degrees).
    static QVector<double> axisTicks(double lo, double hi, bool hue);

    QSize sizeHint() const override { return {420, 360}; }
    QSize minimumSizeHint() const override { return {200, 160}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    void rebuild() override;
    double maxCount() const;
    // Where a count lies on the colour bar, 0 (bottom) to 1 (top; brighter counts clip there).
    double barFraction(double count) const;
    QColor rampColor(double fraction) const;
    int rightMargin() const { return m_right; }

    QVector<float> m_fractions;  // per cell, the top row first: 0 empty, else 1 + barFraction
    QImage m_image;              // the cells at device resolution, made when first painted at a size
    double m_max = 0;            // the grid's largest count, found once per rebuild
    int m_right = 70;            // the colour bar and its widest label
};
