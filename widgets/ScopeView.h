// What the waveform/parade, the vectorscope and the 2-D histogram view share: the display they
// paint, brightness (gain) and a log intensity that re-render it, and the hover readout that
// clears on leave. Each scope paints and reads out its own geometry.
#pragma once

#include "widgets/ScopeDisplay.h"

#include <QString>
#include <QWidget>

class ScopeView : public QWidget {
    Q_OBJECT

public:
    void setDisplay(const ScopeDisplay& display);
    const ScopeDisplay& display() const { return m_display; }
    // Brightness: the count that reaches full intensity is the largest count divided by the gain.
    void setGain(double gain);
    double gain() const { return m_gain; }
    void setLogIntensity(bool on);
    bool logIntensity() const { return m_log; }

    // A description of what lies under a widget position; empty where there is nothing.
    virtual QString readoutAt(const QPoint& position) const = 0;

signals:
    void hovered(const QString& readout);

protected:
    ScopeView(bool logIntensity, QWidget* parent);
    // Re-renders the trace after the display, the gain or the intensity scale changed.
    virtual void rebuild() = 0;
    // The one grid a vectorscope or a 2-D view paints; null when there is none fit to paint.
    const ScopeGrid* singleGrid() const;
    // 0..1 brightness of a cell with `count` when the fullest cell holds `max`.
    double intensity(double count, double max) const;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

    ScopeDisplay m_display;

private:
    double m_gain = 1.0;
    bool m_log = false;
    QString m_hover;
};
