#include "widgets/Histogram2DView.h"

#include <QMouseEvent>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace {

constexpr int kLeft = 56, kRight = 70, kTop = 10, kBottom = 40;

// A perceptually ordered ramp, black through blue, magenta and orange to pale yellow.
QColor ramp(double t)
{
    static const QColor stops[] = {QColor(0, 0, 4), QColor(40, 11, 84), QColor(101, 21, 110), QColor(159, 42, 99),
                                   QColor(212, 72, 66), QColor(245, 125, 21), QColor(250, 193, 39), QColor(252, 255, 164)};
    t = std::clamp(t, 0.0, 1.0) * 7.0;
    const int i = std::min(6, int(t));
    const double f = t - i;
    const QColor& a = stops[i];
    const QColor& b = stops[i + 1];
    return QColor(int(a.red() + (b.red() - a.red()) * f), int(a.green() + (b.green() - a.green()) * f),
                  int(a.blue() + (b.blue() - a.blue()) * f));
}

QString tick(double v) { return QString::number(v, 'g', 4); }

}  // namespace

Histogram2DView::Histogram2DView(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void Histogram2DView::setDisplay(const ScopeDisplay& display)
{
    m_display = display;
    rebuild();
}

void Histogram2DView::setLogScale(bool on)
{
    if (on == m_log)
        return;
    m_log = on;
    rebuild();
}

double Histogram2DView::maxCount() const
{
    return m_display.grids.isEmpty() ? 0.0 : m_display.grids[0].maxCount();
}

QColor Histogram2DView::colorFor(double count) const
{
    const double max = maxCount();
    if (count <= 0 || max <= 0)
        return QColor(0, 0, 0);
    // Log: a count of 1 is the first step above black, the largest count the top of the ramp.
    const double t = m_log ? (max > 1 ? 0.08 + 0.92 * std::log(count) / std::log(max) : 1.0) : count / max;
    return ramp(t);
}

QRectF Histogram2DView::plotRect() const
{
    return QRectF(kLeft, kTop, std::max(1, width() - kLeft - kRight), std::max(1, height() - kTop - kBottom));
}

QRectF Histogram2DView::colorBarRect() const
{
    const QRectF p = plotRect();
    return QRectF(p.right() + 12, p.top(), 14, p.height());
}

QRectF Histogram2DView::cellRect(int x, int y) const
{
    const QRectF p = plotRect();
    if (m_display.grids.isEmpty() || !m_display.grids[0].isValid())
        return {};
    const ScopeGrid& g = m_display.grids[0];
    const double w = p.width() / g.xBins, h = p.height() / g.yBins;
    return QRectF(p.left() + x * w, p.bottom() - (y + 1) * h, w, h);
}

void Histogram2DView::rebuild()
{
    m_image = QImage();
    if (!m_display.grids.isEmpty() && m_display.grids[0].isValid()) {
        const ScopeGrid& g = m_display.grids[0];
        m_image = QImage(g.xBins, g.yBins, QImage::Format_RGB32);
        for (int y = 0; y < g.yBins; ++y) {
            QRgb* line = reinterpret_cast<QRgb*>(m_image.scanLine(g.yBins - 1 - y));
            for (int x = 0; x < g.xBins; ++x)
                line[x] = colorFor(g.at(x, y)).rgb();
        }
    }
    update();
}

QStringList Histogram2DView::colorBarLabels() const
{
    QStringList labels;
    const double max = maxCount();
    if (max <= 0)
        return labels;
    if (m_log) {
        for (double d = 1; d <= max; d *= 10)
            labels << QString::number(qint64(d));
    } else {
        for (int k = 0; k <= 4; ++k)
            labels << tick(max * k / 4);
    }
    return labels;
}

void Histogram2DView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().window());
    const QRectF plot = plotRect();
    p.fillRect(plot, Qt::black);
    if (m_image.isNull()) {
        p.setPen(palette().text().color());
        p.drawText(plot, Qt::AlignCenter, tr("No 2-D histogram"));
        return;
    }
    const ScopeGrid& g = m_display.grids[0];
    p.setRenderHint(QPainter::SmoothPixmapTransform, false);
    p.drawImage(plot, m_image);
    p.setPen(palette().text().color());
    p.drawRect(plot);
    // Axes: the range ends and the middle, and each axis's title.
    const QFontMetrics fm = p.fontMetrics();
    for (int k = 0; k <= 2; ++k) {
        const double fx = k / 2.0;
        const double x = plot.left() + fx * plot.width();
        p.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + 4));
        p.drawText(QRectF(x - 40, plot.bottom() + 4, 80, fm.height()), Qt::AlignHCenter | Qt::AlignTop,
                   tick(g.xLo + (g.xHi - g.xLo) * fx));
        const double y = plot.bottom() - fx * plot.height();
        p.drawLine(QPointF(plot.left() - 4, y), QPointF(plot.left(), y));
        p.drawText(QRectF(0, y - fm.height() / 2.0, kLeft - 6, fm.height()), Qt::AlignRight | Qt::AlignVCenter,
                   tick(g.yLo + (g.yHi - g.yLo) * fx));
    }
    p.drawText(QRectF(plot.left(), plot.bottom() + 4 + fm.height(), plot.width(), fm.height()), Qt::AlignHCenter, g.xName);
    p.save();
    p.translate(12, plot.center().y());
    p.rotate(-90);
    p.drawText(QRectF(-plot.height() / 2, -fm.height() / 2.0, plot.height(), fm.height()), Qt::AlignCenter, g.yName);
    p.restore();
    // Colour bar with its labels: decades on the log scale.
    const QRectF bar = colorBarRect();
    for (int i = 0; i < int(bar.height()); ++i) {
        const double t = 1.0 - double(i) / std::max(1.0, bar.height() - 1);
        p.setPen(ramp(m_log ? 0.08 + 0.92 * t : t));
        p.drawLine(QPointF(bar.left(), bar.top() + i), QPointF(bar.right(), bar.top() + i));
    }
    p.setPen(palette().text().color());
    p.drawRect(bar);
    const double max = maxCount();
    const QStringList labels = colorBarLabels();
    for (int k = 0; k < labels.size(); ++k) {
        const double v = labels[k].toDouble();
        double f = 0;
        if (m_log)
            f = max > 1 ? std::log(std::max(1.0, v)) / std::log(max) : 1.0;
        else
            f = max > 0 ? v / max : 0;
        const double y = bar.bottom() - f * bar.height();
        p.drawText(QRectF(bar.right() + 3, y - fm.height() / 2.0, kRight - 30, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                   labels[k]);
    }
    p.drawText(QRectF(bar.left() - 10, plot.bottom() + 4, kRight, fm.height()), Qt::AlignLeft,
               m_log ? tr("count, log") : tr("count"));
}

QString Histogram2DView::readoutAt(const QPoint& position) const
{
    if (m_display.grids.isEmpty() || !m_display.grids[0].isValid())
        return {};
    const QRectF plot = plotRect();
    if (!plot.contains(position))
        return {};
    const ScopeGrid& g = m_display.grids[0];
    const int x = std::clamp(int((position.x() - plot.left()) / plot.width() * g.xBins), 0, g.xBins - 1);
    const int y = std::clamp(int((plot.bottom() - position.y()) / plot.height() * g.yBins), 0, g.yBins - 1);
    const double xw = (g.xHi - g.xLo) / g.xBins, yw = (g.yHi - g.yLo) / g.yBins;
    return QStringLiteral("%1 [%2, %3)  %4 [%5, %6)  count %7")
        .arg(g.xName, tick(g.xLo + x * xw), tick(g.xLo + (x + 1) * xw), g.yName, tick(g.yLo + y * yw),
             tick(g.yLo + (y + 1) * yw))
        .arg(g.at(x, y));
}

void Histogram2DView::mouseMoveEvent(QMouseEvent* event)
{
    const QString text = readoutAt(event->position().toPoint());
    if (text != m_hover) {
        m_hover = text;
        emit hovered(text);
    }
}

void Histogram2DView::leaveEvent(QEvent*)
{
    if (!m_hover.isEmpty()) {
        m_hover.clear();
        emit hovered(QString());
    }
}
