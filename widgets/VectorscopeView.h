// Vectorscope: the Cb x Cr histogram as a trace on a round graticule, with the 75 % colour
// targets of the standard (R, Mg, B, Cy, G, Yl) and the skin-tone line. Brightness (gain) and a
// log intensity as in the waveform.
#pragma once

#include "widgets/ScopeView.h"

#include <QImage>

class VectorscopeView : public ScopeView {
    Q_OBJECT

public:
    struct Target {
        QString name;   // "R", "Mg", "B", "Cy", "G", "Yl"
        QColor color;
        double cb = 0;  // chroma as a fraction of full scale, -0.5 .. 0.5
        double cr = 0;
    };
    // The colour bars' chroma at `amplitude` of full scale (0.75 for the 75 % targets).
    static QVector<Target> colourTargets(bool bt709, double amplitude = 0.75);
    // Angle of the skin-tone line from the +Cb axis, counter-clockwise, in degrees.
    static constexpr double kSkinToneDegrees = 123.0;

    explicit VectorscopeView(QWidget* parent = nullptr);

    // Kind::Vectorscope, one grid (setDisplay): x = Cb codes, y = Cr codes.
    void setSkinToneLine(bool on);
    bool skinToneLine() const { return m_skin; }

    // The square the scope is painted in, and where a chroma (fractions of full scale) lands.
    QRectF scopeRect() const;
    QPointF positionOfChroma(double cb, double cr) const;
    // Widget position of a 75 % target by name; the centre when there is none.
    QPointF targetPosition(const QString& name) const;
    // "Cb 140  Cr 90  count 17" under a widget position; empty outside the scope.
    QString readoutAt(const QPoint& position) const override;

    // The least a populated cell is drawn as, in device pixels, however small the dock: a flat
    // colour is one cell, which would otherwise shrink to a dot under a pixel (or vanish).
    static constexpr int kMinDotPixels = 3;
    // Where the trace is drawn, in widget coordinates: the cells' codes mapped onto the scope.
    QRectF traceRect() const;

    QSize sizeHint() const override { return {320, 320}; }
    QSize minimumSizeHint() const override { return {160, 160}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    void rebuild() override;
    void renderDots(const QRect& deviceRect, qreal dpr);

    bool m_skin = true;
    QImage m_trace;       // one pixel per (Cb, Cr) cell
    QImage m_dots;        // m_trace drawn at device resolution, each cell at least kMinDotPixels
    QRect m_dotsRect;     // where m_dots lies, in device pixels
};
