#include "widgets/ScopeView.h"

#include <QMouseEvent>

#include <algorithm>
#include <cmath>

ScopeView::ScopeView(bool logIntensity, QWidget* parent) : QWidget(parent), m_log(logIntensity)
{
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void ScopeView::setDisplay(const ScopeDisplay& display)
{
    m_display = display;
    rebuild();
}

void ScopeView::setGain(double gain)
{
    gain = std::clamp(gain, 0.01, 100.0);
    if (gain == m_gain)
        return;
    m_gain = gain;
    rebuild();
}

void ScopeView::setLogIntensity(bool on)
{
    if (on == m_log)
        return;
    m_log = on;
    rebuild();
}

const ScopeGrid* ScopeView::singleGrid() const
{
    return !m_display.grids.isEmpty() && m_display.grids[0].isValid() ? &m_display.grids[0] : nullptr;
}

double ScopeView::intensity(double count, double max) const
{
    if (count <= 0 || max <= 0)
        return 0;
    const double t = m_log ? std::log1p(count) / std::log1p(max) : count / max;
    return std::min(1.0, t * m_gain);
}

void ScopeView::mouseMoveEvent(QMouseEvent* event)
{
    const QString text = readoutAt(event->position().toPoint());
    if (text != m_hover) {
        m_hover = text;
        emit hovered(text);
    }
}

void ScopeView::leaveEvent(QEvent*)
{
    if (!m_hover.isEmpty()) {
        m_hover.clear();
        emit hovered(QString());
    }
}
