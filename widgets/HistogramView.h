// The histogram plot: axes with ticks and titles (values in the data's units, counts or log
// decades, a % axis for the cumulative overlay), a legend that shows and hides channels in a strip
// of its own above the plot (so it never dims a peak),
// channel fills that add up where they overlap (luma as an outline), a pinned reference as
// dashed outlines, percentile marks that never overlap, and a hover readout of the bin range
// and counts that goes when the mouse leaves. render() paints the same plot at any size.
#pragma once

#include "widgets/HistogramDisplay.h"

#include <QImage>
#include <QStringList>
#include <QWidget>

class HistogramView : public QWidget {
    Q_OBJECT

public:
    struct Tick {
        double position = 0;   // widget coordinate along the axis
        QString label;
    };
    struct PercentileLabel {
        QString series;
        double percent = 0;
        double value = 0;
        QRectF rect;           // where the label is painted
        QString text;
    };

    explicit HistogramView(QWidget* parent = nullptr);

    void setDisplay(const HistogramDisplay& display);
    const HistogramDisplay& display() const { return m_display; }
    void setLogCounts(bool on);
    void setCumulative(bool on);
    bool logCounts() const { return m_log; }
    bool cumulative() const { return m_cumulative; }
    // Series hidden by name ("R", "luma"...): not painted, not scaled for, not in the readout.
    void setHiddenSeries(const QStringList& names);
    QStringList hiddenSeries() const { return m_hidden; }
    bool isSeriesVisible(const QString& name) const { return !m_hidden.contains(name); }
    void setPlaceholderText(const QString& text);   // shown when there is nothing to plot
    void setPercentileMarks(const QVector<double>& percents) { m_marks = percents; update(); }

    // Readout for a widget x position: "[lo, hi)  R 1234  G 99 ..."; empty outside the plot.
    QString readoutAt(int x) const;
    QString hoverText() const { return m_hoverText; }

    // Layout, for tests and for render(): all in widget coordinates of a plot of `size`.
    QRectF plotRect(const QSize& size) const;
    QRectF plotRect() const { return plotRect(size()); }
    QVector<Tick> valueTicks(const QSize& size) const;
    QVector<Tick> countTicks(const QSize& size) const;
    QVector<Tick> percentTicks(const QSize& size) const;       // empty unless cumulative
    // The legend and the reference's title lie in a strip above plotRect(), never over the data.
    QVector<QPair<QString, QRectF>> legendEntries(const QSize& size) const;
    QVector<PercentileLabel> percentileLabels(const QSize& size) const;   // placed, none overlapping
    QRectF referenceTitleRect(const QSize& size) const;   // left of the legend, or under it when both do not fit; empty without a reference

    // The plot painted at `size` (axes, legend, overlays; no hover), at a device pixel ratio of 1.
    QImage render(const QSize& size) const;

    QSize sizeHint() const override { return {520, 280}; }

signals:
    void hovered(const QString& readout);              // empty when the mouse leaves
    void hiddenSeriesChanged(const QStringList& hidden);   // the user toggled a legend entry

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;

private:
    struct Layout {
        QRectF plot;
        QVector<QPair<QString, QRectF>> legend;
        QRectF referenceTitle;
    };
    Layout layout(const QSize& size) const;
    void paint(QPainter& p, const QSize& size, bool withHover) const;
    int binAt(int x) const;
    double peak() const;
    double countToUnit(double count, double peak) const;   // 0 at the axis, 1 at the top
    void toggleSeries(const QString& name);

    HistogramDisplay m_display;
    QStringList m_hidden;
    QString m_placeholder;
    QVector<double> m_marks{5, 50, 95};
    bool m_log = false;
    bool m_cumulative = false;
    int m_hoverX = -1;
    QString m_hoverText;
};
