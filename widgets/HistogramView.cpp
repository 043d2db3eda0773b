#include "widgets/HistogramView.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

HistogramView::HistogramView(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setMinimumSize(280, 160);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void HistogramView::setDisplay(const HistogramDisplay& display)
{
    m_display = display;
    if (m_hoverX >= 0)
        m_hoverText = readoutAt(m_hoverX);
    update();
}

void HistogramView::setLogCounts(bool on)
{
    m_log = on;
    update();
}

void HistogramView::setCumulative(bool on)
{
    m_cumulative = on;
    update();
}

QRectF HistogramView::plotRect() const { return QRectF(48, 10, width() - 58, height() - 34); }

int HistogramView::binAt(int x) const
{
    if (m_display.isEmpty())
        return -1;
    const QRectF r = plotRect();
    const int bins = int(m_display.series.first().counts.size());
    if (x < r.left() || x >= r.right() || bins == 0)
        return -1;
    return std::clamp(int((x - r.left()) / r.width() * bins), 0, bins - 1);
}

QString HistogramView::readoutAt(int x) const
{
    const int bin = binAt(x);
    if (bin < 0)
        return {};
    const int bins = int(m_display.series.first().counts.size());
    const double w = (m_display.hi - m_display.lo) / bins;
    QString text = QStringLiteral("[%1, %2)").arg(m_display.lo + bin * w, 0, 'g', 6).arg(m_display.lo + (bin + 1) * w, 0, 'g', 6);
    for (const HistogramSeries& s : m_display.series)
        text += QStringLiteral("  %1 %2").arg(s.name).arg(qulonglong(s.counts.value(bin)));
    return text;
}

void HistogramView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing, false);
    p.fillRect(rect(), QColor(32, 33, 36));
    const QRectF r = plotRect();
    p.setPen(QColor(70, 72, 78));
    p.drawRect(r);
    if (m_display.isEmpty()) {
        p.setPen(QColor(160, 160, 160));
        p.drawText(rect(), Qt::AlignCenter, tr("Open an image, a video or a camera"));
        return;
    }
    const int bins = int(m_display.series.first().counts.size());
    double peak = 1;
    for (const HistogramSeries& s : m_display.series)
        for (double c : s.counts)
            peak = std::max(peak, c);
    auto scale = [&](double c) { return m_log ? std::log1p(c) / std::log1p(peak) : c / peak; };

    // One column per pixel: the fullest bin that falls into it, so narrow spikes stay visible.
    const int columns = std::max(1, int(r.width()));
    p.setRenderHint(QPainter::Antialiasing, true);
    for (const HistogramSeries& s : m_display.series) {
        QPainterPath path;
        path.moveTo(r.left(), r.bottom());
        for (int col = 0; col < columns; ++col) {
            const int b0 = int(std::int64_t(col) * bins / columns);
            const int b1 = std::max(b0 + 1, int(std::int64_t(col + 1) * bins / columns));
            double v = 0;
            for (int b = b0; b < b1 && b < bins; ++b)
                v = std::max(v, s.counts[b]);
            const double y = r.bottom() - scale(v) * r.height();
            path.lineTo(r.left() + col, y);
            path.lineTo(r.left() + col + 1, y);
        }
        path.lineTo(r.right(), r.bottom());
        path.closeSubpath();
        QColor fill = s.color;
        fill.setAlpha(m_display.series.size() > 1 ? 110 : 170);
        p.fillPath(path, fill);
        p.setPen(QPen(s.color, 1));
        p.drawPath(path);
    }
    if (m_cumulative) {
        static const double marks[] = {0.01, 0.05, 0.5, 0.95, 0.99};
        for (const HistogramSeries& s : m_display.series) {
            double total = 0;
            for (double c : s.counts)
                total += c;
            if (total <= 0)
                continue;
            QPainterPath cdf;
            double run = 0;
            int next = 0;
            for (int b = 0; b < bins; ++b) {
                run += s.counts[b];
                const double x = r.left() + (b + 1) * r.width() / bins;
                const double y = r.bottom() - run / total * r.height();
                if (b == 0)
                    cdf.moveTo(r.left(), r.bottom());
                cdf.lineTo(x, y);
                while (next < 5 && run / total >= marks[next]) {
                    p.setPen(QPen(s.color.lighter(150), 1, Qt::DotLine));
                    p.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom()));
                    p.drawText(QPointF(x + 2, r.top() + 12 + 12 * next), QStringLiteral("p%1").arg(marks[next] * 100));
                    ++next;
                }
            }
            p.setPen(QPen(s.color.lighter(170), 1.5));
            p.drawPath(cdf);
        }
    }
    p.setRenderHint(QPainter::Antialiasing, false);
    p.setPen(QColor(190, 190, 190));
    p.drawText(QRectF(r.left(), r.bottom() + 4, 120, 16), Qt::AlignLeft, QString::number(m_display.lo, 'g', 6));
    p.drawText(QRectF(r.right() - 120, r.bottom() + 4, 120, 16), Qt::AlignRight, QString::number(m_display.hi, 'g', 6));
    const QString peakText = peak >= 1e9 ? QStringLiteral("%1G").arg(peak / 1e9, 0, 'f', 1)
                           : peak >= 1e6 ? QStringLiteral("%1M").arg(peak / 1e6, 0, 'f', 1)
                           : peak >= 1e4 ? QStringLiteral("%1k").arg(peak / 1e3, 0, 'f', 0)
                                         : QString::number(peak, 'g', 4);
    p.drawText(QRectF(0, r.top(), 44, 16), Qt::AlignRight, peakText);
    p.drawText(QRectF(0, r.bottom() - 16, 44, 16), Qt::AlignRight, m_log ? QStringLiteral("log") : QStringLiteral("0"));
    if (m_hoverX >= 0 && !m_hoverText.isEmpty()) {
        p.setPen(QColor(255, 255, 255, 120));
        p.drawLine(m_hoverX, int(r.top()), m_hoverX, int(r.bottom()));
        const QRect box = p.fontMetrics().boundingRect(m_hoverText).adjusted(-6, -3, 6, 3);
        QRect placed = box.translated(int(r.left()) + 8 - box.left(), int(r.top()) + 8 - box.top());
        p.fillRect(placed, QColor(0, 0, 0, 170));
        p.setPen(Qt::white);
        p.drawText(placed, Qt::AlignCenter, m_hoverText);
    }
}

void HistogramView::mouseMoveEvent(QMouseEvent* event)
{
    m_hoverX = int(event->position().x());
    m_hoverText = readoutAt(m_hoverX);
    emit hovered(m_hoverText);
    update();
}

void HistogramView::leaveEvent(QEvent*)
{
    m_hoverX = -1;
    m_hoverText.clear();
    update();
}
