// A 2-D histogram (hue against saturation, channel against channel) as an image: one cell per
// bin pair, coloured by count on a log (or linear) scale, with axis titles, range ticks, a colour
// bar with its decades, and a hover readout of the cell's ranges and count.
#pragma once

#include "widgets/ScopeDisplay.h"

#include <QImage>
#include <QWidget>

class Histogram2DView : public QWidget {
    Q_OBJECT

public:
    explicit Histogram2DView(QWidget* parent = nullptr);

    // Kind::Histogram2D (or any kind): the first grid is shown.
    void setDisplay(const ScopeDisplay& display);
    const ScopeDisplay& display() const { return m_display; }
    void setLogScale(bool on);
    bool logScale() const { return m_log; }

    // The colour of a count on the current scale (black for zero).
    QColor colorFor(double count) const;
    QRectF plotRect() const;
    QRectF colorBarRect() const;
    // The widget rectangle of cell (x, y), y upwards.
    QRectF cellRect(int x, int y) const;
    // "R [12, 13)  G [200, 201)  count 5"; empty outside the plot.
    QString readoutAt(const QPoint& position) const;
    // The colour bar's labels, bottom to top ("1", "10", "100" ... on the log scale).
    QStringList colorBarLabels() const;

    QSize sizeHint() const override { return {420, 360}; }
    QSize minimumSizeHint() const override { return {200, 160}; }

signals:
    void hovered(const QString& readout);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    void rebuild();
    double maxCount() const;

    ScopeDisplay m_display;
    bool m_log = true;
    QImage m_image;
    QString m_hover;
};
