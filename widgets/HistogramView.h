// The histogram plot: axes with ticks and titles (values in the data's units, counts or log
// decades, a % axis for the cumulative overlay), a legend that shows and hides channels in a strip
// of its own above the plot (so it never dims a peak),
// channel fills that add up where they overlap (luma as an outline) or, arranged Separate, one
// band per channel on a shared value axis, each on its own count scale (ImageJ's separate
// plots, for when additive overlap is hard to read), a pinned reference as dashed outlines,
// percentile values on opaque labels over everything else, one for every channel and mark,
// never overlapping, and a hover readout of the bin range and counts that goes when the mouse
// leaves. render() paints the same plot at any size, with a title when given one.
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
        QPointF anchor;        // where the channel's CDF crosses the mark's guide
    };
    enum class Arrangement { Overlay, Separate };
    // One plot area: every visible channel (Overlay) or one channel (Separate).
    struct Band {
        QRectF rect;
        QStringList series;    // the visible series drawn in it
        double peak = 1;       // the count its top stands for
    };

    explicit HistogramView(QWidget* parent = nullptr);

    void setDisplay(const HistogramDisplay& display);
    const HistogramDisplay& display() const { return m_display; }
    void setLogCounts(bool on);
    void setCumulative(bool on);
    bool logCounts() const { return m_log; }
    bool cumulative() const { return m_cumulative; }
    void setArrangement(Arrangement arrangement);
    Arrangement arrangement() const { return m_arrangement; }
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
    QRectF plotRect(const QSize& size) const;   // every band, from the first's top to the last's bottom
    QRectF plotRect() const { return plotRect(size()); }
    QVector<Band> bands(const QSize& size) const;   // top to bottom; one when overlaid
    QVector<Tick> valueTicks(const QSize& size) const;
    QVector<Tick> countTicks(const QSize& size, int band = 0) const;
    QVector<Tick> percentTicks(const QSize& size, int band = 0) const;   // empty unless cumulative
    // The legend and the reference's title lie in a strip above plotRect(), never over the data.
    QVector<QPair<QString, QRectF>> legendEntries(const QSize& size) const;
    // One per visible channel and mark, inside its band, none overlapping where the band has room.
    QVector<PercentileLabel> percentileLabels(const QSize& size) const;
    // The guides' names ("p5", "p50", "p95"), each on its guide, clear of every label and dot.
    QVector<QPair<QString, QRectF>> guideLabels(const QSize& size) const;
    static QColor labelBackground();   // opaque, under every percentile label and guide name
    QRectF referenceTitleRect(const QSize& size) const;   // left of the legend, or under it when both do not fit; empty without a reference
    // Where render() paints `title`: a row of its own above the legend; empty without a title.
    QRectF titleRect(const QSize& size, const QString& title) const;

    // The plot painted at `size` (axes, legend, overlays; no hover), at a device pixel ratio of 1,
    // under `title` when it is not empty (an export's file, frame and region).
    QImage render(const QSize& size, const QString& title = {}) const;

    QSize sizeHint() const override { return {520, 280}; }

signals:
    void displayChanged();                             // setDisplay was called
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
        QRectF title;
        QRectF plot;
        QVector<QPair<QString, QRectF>> legend;
        QRectF referenceTitle;
        QVector<Band> bands;
    };
    Layout layout(const QSize& size, const QString& title = {}) const;
    void paint(QPainter& p, const QSize& size, bool withHover, const QString& title) const;
    void paintBand(QPainter& p, const Band& band, const QVector<Tick>& xTicks, bool stacked) const;
    QVector<Tick> countTicksOf(const Band& band, bool stacked) const;
    QVector<Tick> percentTicksOf(const Band& band) const;
    // The percentiles' labels and the guides' names ("p50"), placed together in each band.
    struct Annotations {
        QVector<PercentileLabel> labels;
        QVector<QPair<QString, QRectF>> guides;
    };
    Annotations annotate(const QVector<Band>& bands) const;
    int binAt(int x) const;
    double peakOf(const QStringList& series) const;
    double countToUnit(double count, double peak) const;   // 0 at the axis, 1 at the top
    void toggleSeries(const QString& name);

    HistogramDisplay m_display;
    QStringList m_hidden;
    QString m_placeholder;
    QVector<double> m_marks{5, 50, 95};
    bool m_log = false;
    bool m_cumulative = false;
    Arrangement m_arrangement = Arrangement::Overlay;
    int m_hoverX = -1;
    QString m_hoverText;
};
