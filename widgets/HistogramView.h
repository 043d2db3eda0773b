// The histogram plot: per-channel overlays, linear or log counts, a cumulative overlay with
// percentile markers, and a hover readout of the bin range and count.
#pragma once

#include "widgets/HistogramDisplay.h"

#include <QWidget>

class HistogramView : public QWidget {
    Q_OBJECT

public:
    explicit HistogramView(QWidget* parent = nullptr);

    void setDisplay(const HistogramDisplay& display);
    const HistogramDisplay& display() const { return m_display; }
    void setLogCounts(bool on);
    void setCumulative(bool on);
    bool logCounts() const { return m_log; }
    bool cumulative() const { return m_cumulative; }
    // Readout for a widget x position: "[lo, hi)  R 1234  G 99 ..."; empty outside the plot.
    QString readoutAt(int x) const;

    QSize sizeHint() const override { return {520, 260}; }

signals:
    void hovered(const QString& readout);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    QRectF plotRect() const;
    int binAt(int x) const;

    HistogramDisplay m_display;
    bool m_log = false;
    bool m_cumulative = false;
    int m_hoverX = -1;
    QString m_hoverText;
};
