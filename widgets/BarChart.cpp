#include "widgets/BarChart.h"

#include <QPainter>

#include <algorithm>

namespace {
constexpr int kMargin = 6;
}

BarChart::BarChart(QWidget* parent) : QWidget(parent) { setMinimumHeight(120); }

void BarChart::setBars(const QVector<Bar>& bars, const QString& unit)
{
    m_bars = bars;
    m_unit = unit;
    updateGeometry();
    update();
}

void BarChart::setFootnote(const QString& text)
{
    m_footnote = text;
    setToolTip(text);
    updateGeometry();
    update();
}

QRect BarChart::footnoteRect() const
{
    if (m_footnote.isEmpty())
        return {};
    const QRect wrapped = fontMetrics().boundingRect(QRect(kMargin, 0, std::max(1, width() - 2 * kMargin), 10000),
                                                     Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignTop, m_footnote);
    const int h = wrapped.height();
    return QRect(kMargin, std::max(0, height() - kMargin - h), std::max(1, width() - 2 * kMargin), h);
}

QSize BarChart::sizeHint() const
{
    const int note = m_footnote.isEmpty() ? 0
                                          : fontMetrics().boundingRect(QRect(0, 0, 560 - 2 * kMargin, 10000), Qt::TextWordWrap, m_footnote).height()
                                                + kMargin;
    return {560, 40 + 26 * int(m_bars.size()) + note};
}

void BarChart::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const QRect note = footnoteRect();
    if (!note.isEmpty()) {
        p.setPen(palette().text().color());
        p.drawText(note, Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignTop, m_footnote);
    }
    if (m_bars.isEmpty())
        return;
    double peak = 0;
    for (const Bar& b : m_bars)
        peak = std::max(peak, b.value);
    const int barsHeight = (note.isEmpty() ? height() : note.top()) - 20;
    const int labelWidth = 130, noteWidth = 170, rowHeight = std::clamp(barsHeight / int(m_bars.size()), 18, 34);
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
