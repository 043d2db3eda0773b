// Waveform monitor and RGB parade, painted from 2-D histograms of column against value: each
// cell's count lights its point of the trace. Overlay (a luma waveform, or R, G and B blended
// additively) or parade (one panel per channel, side by side); a graticule in code values or in
// percent of full scale; brightness (gain) and a log intensity for faint detail.
#pragma once

#include "widgets/ScopeView.h"

#include <QImage>
#include <QStringList>

class WaveformView : public ScopeView {
    Q_OBJECT

public:
    enum class Scale { CodeValues, Percent };

    explicit WaveformView(QWidget* parent = nullptr);

    // Kind::Waveform overlays every grid (setDisplay); Kind::Parade puts them side by side.
    void setScale(Scale scale);
    Scale scale() const { return m_scale; }

    // The graticule's labels, bottom to top: "0" ... "255" or "0%" ... "100%".
    QStringList scaleLabels() const;
    // Where the traces are painted: one panel per grid in a parade, one for all in an overlay.
    int panelCount() const;
    QRectF panelRect(int panel) const;
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
    QRectF tracesRect() const;
    void rebuild() override;
    QImage renderPanel(const QVector<int>& grids) const;

    Scale m_scale = Scale::CodeValues;
    QVector<QImage> m_panels;   // rendered traces, one image per panel
};
