// Vectorscope: the Cb x Cr histogram as a trace on a round graticule, with the colour targets of
// the standard (R, Mg, B, Cy, G, Yl) at 75 % or 100 % bars and the skin-tone line. Each lit cell
// glows over a few device pixels (a core and a bloom, as a phosphor's spot), so a flat colour,
// one cell, reads as a spot and not a dot under a pixel. The trace is a phosphor tint, or each
// cell in the colour its Cb, Cr stand for (Resolve's colour trace). Brightness (gain) and a log
// intensity as in the waveform.
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
    enum class Trace { Classic, PixelColours };
    // The colour bars' chroma at `amplitude` of full scale (0.75 for the 75 % targets).
    static QVector<Target> colourTargets(bool bt709, double amplitude = 0.75);
    // Angle of the skin-tone line from the +Cb axis, counter-clockwise, in degrees.
    static constexpr double kSkinToneDegrees = 123.0;
    // The chroma the scope's square reaches either side of grey: beyond 0.5, so that every 100 %
    // target (up to 0.60 from the centre: BT.709's magenta and green) lies inside the graticule.
    static constexpr double kHalfSpan = 0.64;
    // The classic trace's tint at full brightness.
    static QColor classicTint() { return QColor(191, 255, 204); }
    // The pixel-colour trace's colour of chroma (cb, cr), fractions of full scale: the colour of
    // that chroma at mid luma, scaled so its largest channel is full.
    static QColor chromaColour(double cb, double cr, bool bt709);

    explicit VectorscopeView(QWidget* parent = nullptr);

    // Kind::Vectorscope, one grid (setDisplay): x = Cb codes, y = Cr codes.
    void setSkinToneLine(bool on);
    bool skinToneLine() const { return m_skin; }
    // 0.75 or 1.0: which bars' targets are drawn.
    void setTargetAmplitude(double amplitude);
    double targetAmplitude() const { return m_amplitude; }
    void setTrace(Trace trace);
    Trace trace() const { return m_traceMode; }

    // The square the scope is painted in, and where a chroma (fractions of full scale) lands.
    QRectF scopeRect() const;
    QPointF positionOfChroma(double cb, double cr) const;
    // Widget position of a target (at the current amplitude) by name; the centre when there is none.
    QPointF targetPosition(const QString& name) const;
    // "Cb 140  Cr 90  count 17" under a widget position; empty outside the scope.
    QString readoutAt(const QPoint& position) const override;

    // Where the trace is drawn, in widget coordinates: the cells' codes mapped onto the scope.
    QRectF traceRect() const;
    // Half the side of a lit cell's core, in device pixels, at the current size (at least 1: a
    // cell is a spot of 3 x 3 pixels or more, with a bloom around it).
    int coreRadius() const;

    QSize sizeHint() const override { return {320, 320}; }
    QSize minimumSizeHint() const override { return {160, 160}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    void rebuild() override;
    void renderTrace(const QRect& deviceRect, qreal dpr);

    bool m_skin = true;
    double m_amplitude = 0.75;
    Trace m_traceMode = Trace::Classic;
    int m_width = 0, m_height = 0;   // cells
    QVector<float> m_cells;          // RGB per (Cb, Cr) cell, the highest Cr first
    QImage m_trace;                  // the cells at device resolution, with their bloom
    QRect m_traceRect;               // where m_trace lies, in device pixels
};
