#include "widgets/TimeSeriesView.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

TimeSeriesView::TimeSeriesView(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setCursor(Qt::PointingHandCursor);
}

void TimeSeriesView::setFrameRange(qint64 first, qint64 count)
{
    m_first = first;
    m_count = std::max<qint64>(0, count);
    update();
}

void TimeSeriesView::setSeries(const QVector<TimeSeries>& series)
{
    m_series = series;
    update();
}

void TimeSeriesView::setCurrentFrame(qint64 frame)
{
    m_current = frame;
    update();
}

QRectF TimeSeriesView::plotRect() const
{
    const QFontMetricsF fm(font());
    const double side = fm.horizontalAdvance(QStringLiteral("65535")) + 10;
    return QRectF(side, 6, std::max(10.0, width() - 2 * side), std::max(10.0, height() - fm.height() - 12));
}

qint64 TimeSeriesView::frameAt(double x) const
{
    const QRectF r = plotRect();
    if (m_count <= 0 || x < r.left() || x > r.right())
        return -1;
    return m_first + std::clamp<qint64>(qint64((x - r.left()) / r.width() * double(m_count)), 0, m_count - 1);
}

double TimeSeriesView::xOf(qint64 frame) const
{
    const QRectF r = plotRect();
    if (m_count <= 0)
        return r.left();
    return r.left() + (double(frame - m_first) + 0.5) / double(m_count) * r.width();
}

QString TimeSeriesView::readoutAt(double x) const
{
    const qint64 frame = frameAt(x);
    if (frame < 0)
        return {};
    QString text = tr("frame %1").arg(frame);
    for (const TimeSeries& s : m_series) {
        const qint64 i = frame - s.firstFrame;
        const double v = i >= 0 && i < s.values.size() ? s.values[qsizetype(i)] : std::nan("");
        text += QStringLiteral("  %1 %2").arg(s.name, std::isnan(v) ? QStringLiteral("–") : QString::number(v, 'g', 4));
    }
    return text;
}

void TimeSeriesView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), QColor(32, 33, 36));
    const QRectF r = plotRect();
    const QFontMetricsF fm(font());
    p.setPen(QColor(70, 72, 78));
    p.drawRect(r);
    if (m_count <= 0) {
        p.setPen(QColor(150, 150, 150));
        p.drawText(rect(), Qt::AlignCenter, tr("Play or scan a video to see its statistics over time"));
        return;
    }
    // One column per pixel: each column shows the frames that fall into it (min to max), so
    // a one-frame flash stays visible in a long file.
    p.setRenderHint(QPainter::Antialiasing, true);
    for (const TimeSeries& s : m_series) {
        const double span = s.hi > s.lo ? s.hi - s.lo : 1;
        auto yOf = [&](double v) { return r.bottom() - std::clamp((v - s.lo) / span, 0.0, 1.0) * r.height(); };
        QPainterPath line;
        bool open = false;
        const int columns = std::max(1, int(r.width()));
        for (int col = 0; col < columns; ++col) {
            const qint64 f0 = m_first + qint64(double(col) / columns * double(m_count));
            const qint64 f1 = std::max(f0 + 1, m_first + qint64(double(col + 1) / columns * double(m_count)));
            double lo = INFINITY, hi = -INFINITY;
            for (qint64 f = f0; f < f1; ++f) {
                const qint64 i = f - s.firstFrame;
                if (i < 0 || i >= s.values.size())
                    continue;
                const double v = s.values[qsizetype(i)];
                if (std::isnan(v))
                    continue;
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
            if (lo > hi)
                continue;   // frames not known (dropped, not scanned yet): the line joins its neighbours
            const double x = r.left() + col + 0.5;
            if (!open)
                line.moveTo(x, yOf(lo));
            else
                line.lineTo(x, yOf(lo));
            if (hi > lo)
                line.lineTo(x, yOf(hi));
            open = true;
        }
        p.setPen(QPen(s.color, 1.3));
        p.drawPath(line);
    }
    p.setRenderHint(QPainter::Antialiasing, false);
    // Axes: the left series' range on the left, the right one's on the right, frames below.
    p.setPen(QColor(190, 190, 190));
    for (const TimeSeries& s : m_series) {
        const QString top = QString::number(s.hi, 'g', 4), bottom = QString::number(s.lo, 'g', 4);
        p.setPen(s.color);
        if (s.rightAxis) {
            p.drawText(QPointF(r.right() + 4, r.top() + fm.ascent()), top);
            p.drawText(QPointF(r.right() + 4, r.bottom()), bottom);
        } else {
            p.drawText(QPointF(r.left() - 4 - fm.horizontalAdvance(top), r.top() + fm.ascent()), top);
            p.drawText(QPointF(r.left() - 4 - fm.horizontalAdvance(bottom), r.bottom()), bottom);
        }
    }
    p.setPen(QColor(170, 170, 170));
    p.drawText(QPointF(r.left(), r.bottom() + fm.ascent() + 3), QString::number(m_first));
    const QString last = QString::number(m_first + m_count - 1);
    p.drawText(QPointF(r.right() - fm.horizontalAdvance(last), r.bottom() + fm.ascent() + 3), last);
    QString legend;
    double lx = r.left() + fm.horizontalAdvance(QString::number(m_first)) + 16;
    for (const TimeSeries& s : m_series) {
        p.setPen(s.color);
        legend = QStringLiteral("— %1").arg(s.name);
        p.drawText(QPointF(lx, r.bottom() + fm.ascent() + 3), legend);
        lx += fm.horizontalAdvance(legend) + 14;
    }
    if (m_current >= m_first && m_current < m_first + m_count) {
        p.setPen(QPen(QColor(255, 210, 0), 1));
        const double x = xOf(m_current);
        p.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom()));
    }
    if (m_hoverX >= 0) {
        const QString text = readoutAt(m_hoverX);
        if (!text.isEmpty()) {
            p.setPen(QColor(255, 255, 255, 110));
            p.drawLine(QPointF(m_hoverX, r.top()), QPointF(m_hoverX, r.bottom()));
            const double w = fm.horizontalAdvance(text) + 10;
            double x = m_hoverX + 8;
            if (x + w > r.right())
                x = std::max(r.left(), m_hoverX - 8 - w);
            const QRectF box(x, r.top() + 2, w, fm.height() + 4);
            p.fillRect(box, QColor(0, 0, 0, 190));
            p.setPen(Qt::white);
            p.drawText(box, Qt::AlignCenter, text);
        }
    }
}

void TimeSeriesView::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton)
        return;
    const qint64 frame = frameAt(event->position().x());
    if (frame >= 0)
        emit frameClicked(frame);
}

void TimeSeriesView::mouseMoveEvent(QMouseEvent* event)
{
    m_hoverX = event->position().x();
    if (event->buttons() & Qt::LeftButton) {
        const qint64 frame = frameAt(m_hoverX);
        if (frame >= 0 && frame != m_current)
            emit frameClicked(frame);   // dragging scrubs
    }
    update();
}

void TimeSeriesView::leaveEvent(QEvent*)
{
    m_hoverX = -1;
    update();
}
