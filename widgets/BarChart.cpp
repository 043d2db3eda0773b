#include "widgets/BarChart.h"

#include <QPainter>

#include <algorithm>

BarChart::BarChart(QWidget* parent) : QWidget(parent) { setMinimumHeight(120); }

void BarChart::setBars(const QVector<Bar>& bars, const QString& unit)
{
    m_bars = bars;
    m_unit = unit;
    updateGeometry();
    update();
}

void BarChart::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (m_bars.isEmpty())
        return;
    double peak = 0;
    for (const Bar& b : m_bars)
        peak = std::max(peak, b.value);
    const int labelWidth = 130, noteWidth = 170, rowHeight = std::clamp((height() - 20) / int(m_bars.size()), 18, 34);
    const int barSpace = std::max(40, width() - labelWidth - noteWidth - 20);
    for (int i = 0; i < m_bars.size(); ++i) {
        const Bar& b = m_bars[i];
        const int y = 10 + i * rowHeight;
        p.setPen(palette().text().color());
        p.drawText(QRect(4, y, labelWidth - 8, rowHeight - 4), Qt::AlignRight | Qt::AlignVCenter, b.label);
        const int w = peak > 0 ? int(b.value / peak * barSpace) : 0;
        p.fillRect(QRect(labelWidth, y + 2, std::max(1, w), rowHeight - 8), b.color.isValid() ? b.color : QColor(70, 130, 180));
        p.drawText(QRect(labelWidth + w + 6, y, noteWidth + barSpace - w, rowHeight - 4), Qt::AlignLeft | Qt::AlignVCenter,
                   QStringLiteral("%1 %2  %3").arg(b.value, 0, 'f', 3).arg(m_unit, b.note));
    }
}
