// Waveform monitor and RGB parade, painted from 2-D histograms of column against value: each
// cell's count lights its point of the trace through the phosphor response (ScopeView). Overlay
// (a luma waveform, or R, G and B blended additively) or parade (one panel per channel, side by
// side). The plot holds the whole value axis with a margin above and below, so code 0 and full
// scale are traced inside it, never on its border, and clipped values (the code range's end
// bins, a float axis's overflow) are marked in red in those margins. The graticule is in code
// values (float units for float frames) or in percent (IRE-style), over the full range or
// video's legal range (16-235).
#pragma once

#include "widgets/ScopeView.h"

#include <QImage>
#include <QStringList>

class WaveformView : public ScopeView {
    Q_OBJECT

public:
    enum class Scale { CodeValues, Percent };
    enum class Range { Full, Legal };
    // The marks of clipped values, drawn in the margins next to the trace.
    static QColor clipColor() { return QColor(255, 60, 40); }

    explicit WaveformView(QWidget* parent = nullptr);

    // Kind::Waveform overlays every grid (setDisplay); Kind::Parade puts them side by side.
    void setScale(Scale scale);
    Scale scale() const { return m_scale; }
    void setRange(Range range);
    Range range() const { return m_range; }

    struct Tick {
        double value = 0;   // data units
        QString label;      // empty: a line without a label
        bool solid = false; // 0 % and 100 %; the others dashed, the full range's ends in legal dotted
    };
    // The graticule, bottom to top.
    QVector<Tick> ticks() const;
    // The graticule's labels, bottom to top: "0" ... "255" or "0%" ... "100%".
    QStringList scaleLabels() const;
    // Where the traces are painted: one panel per grid in a parade, one for all in an overlay.
    int panelCount() const;
    QRectF panelRect(int panel) const;
    // Where the value axis lies inside a panel: the panel less its margins above and below.
    QRectF plotRect(int panel) const;
    // The strips in the margins where clipped values are marked, above and below the plot.
    QRectF clipStripRect(int panel, bool high) const;
    // Widget coordinates of column bin `x` (its centre) at value `value` (data units) in a panel.
    QPointF positionOf(int panel, double x, double value) const;
    // "R  column 12  value 200  count 3" under a widget position; empty outside the panels.
    QString readoutAt(const QPoint& position) const override;

    QSize sizeHint() const override { return {640, 300}; }
    QSize minimumSizeHint() const override { return {200, 120}; }

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    // One panel's cells: RGB floats per cell (the top row first) and the clip marks per column.
    struct PanelCells {
        int width = 0;
        int height = 0;
        int channels = 3;          // values per cell in `rgb`: 3, or 1 brightness of `tint`
        QColor tint = Qt::white;
        QVector<float> rgb;
        QVector<float> high;
        QVector<float> low;
        QImage image;       // rgb at device resolution, made when first painted at a size
        QImage highStrip;
        QImage lowStrip;
    };
    QRectF tracesRect() const;
    int leftMargin() const;
    const ScopeGrid* panelGrid(int panel) const;
    void rebuild() override;
    PanelCells renderPanel(const QVector<int>& grids);
    void ensureImages(PanelCells& cells, QSize device) const;
    QString valueText(double value) const;

    Scale m_scale = Scale::CodeValues;
    Range m_range = Range::Full;
    QVector<PanelCells> m_panels;
};
