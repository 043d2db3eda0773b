#include "widgets/Histogram2DView.h"

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

Histogram2DView::Histogram2DView(QWidget* parent) : ScopeView(true, parent) {}

double Histogram2DView::maxCount() const { return m_max; }

double Histogram2DView::barFraction(double count) const
{
    const double max = maxCount();
    if (count <= 0 || max <= 0)
        return 0;
    if (logIntensity())
        return max > 1 ? std::min(1.0, std::log(count) / std::log(max) * gain()) : 1.0;
    return std::min(1.0, count / max * gain());
}

QColor Histogram2DView::colorFor(double count) const
{
    if (count <= 0 || maxCount() <= 0)
        return QColor(0, 0, 0);
    // Log: a count of 1 is the first step above black, the top of the bar the top of the ramp.
    const double f = barFraction(count);
    return ramp(logIntensity() ? 0.08 + 0.92 * f : f);
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
    const ScopeGrid* g = singleGrid();
    if (!g)
        return {};
    const double w = p.width() / g->xBins, h = p.height() / g->yBins;
    return QRectF(p.left() + x * w, p.bottom() - (y + 1) * h, w, h);
}

void Histogram2DView::rebuild()
{
    // Linear in the cells: the largest count once, then one colour per cell (the colour of a
    // cell used to scan the whole grid for the largest count, a 15 s freeze at 65,536 cells).
    m_image = QImage();
    m_max = 0;
    m_cellsVisited = 0;
    if (const ScopeGrid* grid = singleGrid()) {
        const ScopeGrid& g = *grid;
        m_max = g.maxCount();
        m_cellsVisited += quint64(g.counts.size());
        m_image = QImage(g.xBins, g.yBins, QImage::Format_RGB32);
        for (int y = 0; y < g.yBins; ++y) {
            QRgb* line = reinterpret_cast<QRgb*>(m_image.scanLine(g.yBins - 1 - y));
            for (int x = 0; x < g.xBins; ++x)
                line[x] = colorFor(g.at(x, y)).rgb();
        }
        m_cellsVisited += quint64(g.counts.size());
    }
    update();
}

QStringList Histogram2DView::colorBarLabels() const
{
    QStringList labels;
    const double max = maxCount();
    if (max <= 0)
        return labels;
    if (logIntensity()) {
        // Decades up to the top of the bar: d^gain <= max (pow with exponent 1 is exact).
        for (double d = 1; std::pow(d, gain()) <= max; d *= 10)
            labels << QString::number(qint64(d));
    } else {
        for (int k = 0; k <= 4; ++k)
            labels << tick(max / gain() * k / 4);
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
        p.setPen(ramp(logIntensity() ? 0.08 + 0.92 * t : t));
        p.drawLine(QPointF(bar.left(), bar.top() + i), QPointF(bar.right(), bar.top() + i));
    }
    p.setPen(palette().text().color());
    p.drawRect(bar);
    const QStringList labels = colorBarLabels();
    for (const QString& label : labels) {
        const double y = bar.bottom() - barFraction(label.toDouble()) * bar.height();
        p.drawText(QRectF(bar.right() + 3, y - fm.height() / 2.0, kRight - 30, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                   label);
    }
    // On the x title's row, which is centred under the plot: the tick row's last label reaches
    // under the bar.
    p.drawText(QRectF(bar.left() - 10, plot.bottom() + 4 + fm.height(), kRight, fm.height()), Qt::AlignLeft,
               logIntensity() ? tr("count, log") : tr("count"));
}

QString Histogram2DView::readoutAt(const QPoint& position) const
{
    const ScopeGrid* grid = singleGrid();
    const QRectF plot = plotRect();
    if (!grid || !plot.contains(position))
        return {};
    const ScopeGrid& g = *grid;
    const int x = std::clamp(int((position.x() - plot.left()) / plot.width() * g.xBins), 0, g.xBins - 1);
    const int y = std::clamp(int((plot.bottom() - position.y()) / plot.height() * g.yBins), 0, g.yBins - 1);
    const double xw = (g.xHi - g.xLo) / g.xBins, yw = (g.yHi - g.yLo) / g.yBins;
    return QStringLiteral("%1 [%2, %3)  %4 [%5, %6)  count %7")
        .arg(g.xName, tick(g.xLo + x * xw), tick(g.xLo + (x + 1) * xw), g.yName, tick(g.yLo + y * yw),
             tick(g.yLo + (y + 1) * yw))
        .arg(g.at(x, y));
}
