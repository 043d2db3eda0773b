#include "widgets/Histogram2DView.h"

#include <QPainter>

#include <algorithm>
#include <cmath>

namespace {

constexpr int kLeft = 56, kTop = 10, kBottom = 40;
constexpr int kBarGap = 12, kBarWidth = 14, kLabelGap = 3;
constexpr int kInset = 3;   // the cells' margin inside the plot, pixels

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

QString tick(double v) { return QString::number(std::abs(v) < 1e-12 ? 0.0 : v, 'g', 4); }

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

QColor Histogram2DView::rampColor(double f) const { return ramp(logIntensity() ? 0.08 + 0.92 * f : f); }

QColor Histogram2DView::colorFor(double count) const
{
    if (count <= 0 || maxCount() <= 0)
        return QColor(0, 0, 0);
    // Log: a count of 1 is the first step above black, the top of the bar the top of the ramp.
    return rampColor(barFraction(count));
}

QRectF Histogram2DView::plotRect() const
{
    return QRectF(kLeft, kTop, std::max(1, width() - kLeft - rightMargin()), std::max(1, height() - kTop - kBottom));
}

QRectF Histogram2DView::cellsRect() const { return plotRect().adjusted(kInset, kInset, -kInset, -kInset); }

QRectF Histogram2DView::colorBarRect() const
{
    const QRectF p = plotRect();
    return QRectF(p.right() + kBarGap, p.top(), kBarWidth, p.height());
}

QRectF Histogram2DView::colorBarLabelRect(int index) const
{
    const QStringList labels = colorBarLabels();
    if (index < 0 || index >= labels.size())
        return {};
    const QRectF bar = colorBarRect();
    const QFontMetricsF fm(font());
    const double y = bar.bottom() - barFraction(labels[index].toDouble()) * bar.height();
    return QRectF(bar.right() + kLabelGap, y - fm.height() / 2.0, fm.horizontalAdvance(labels[index]) + 2, fm.height());
}

QRectF Histogram2DView::cellRect(int x, int y) const
{
    const QRectF p = cellsRect();
    const ScopeGrid* g = singleGrid();
    if (!g)
        return {};
    const double w = p.width() / g->xBins, h = p.height() / g->yBins;
    return QRectF(p.left() + x * w, p.bottom() - (y + 1) * h, w, h);
}

QVector<double> Histogram2DView::axisTicks(double lo, double hi, bool hue)
{
    QVector<double> ticks;
    if (!(hi > lo))
        return ticks;
    double step = 60;
    if (!hue) {
        const double raw = (hi - lo) / 4;
        const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
        step = 10 * magnitude;
        for (double m : {1.0, 2.0, 2.5, 5.0})
            if (m * magnitude >= raw) {
                step = m * magnitude;
                break;
            }
    }
    for (double v = std::ceil(lo / step - 1e-9) * step; v <= hi + 1e-9 * step; v += step)
        ticks << v;
    return ticks;
}

void Histogram2DView::rebuild()
{
    // Linear in the cells: the largest count once, then one fraction per cell (the colour of a
    // cell used to scan the whole grid for the largest count, a 15 s freeze at 65,536 cells).
    m_fractions.clear();
    m_image = QImage();
    m_max = 0;
    m_cellsVisited = 0;
    if (const ScopeGrid* grid = singleGrid()) {
        const ScopeGrid& g = *grid;
        m_max = g.maxCount();
        m_cellsVisited += quint64(g.counts.size());
        m_fractions.fill(0.f, qsizetype(g.xBins) * g.yBins);
        for (int y = 0; y < g.yBins; ++y) {
            float* line = &m_fractions[qsizetype(g.yBins - 1 - y) * g.xBins];
            for (int x = 0; x < g.xBins; ++x) {
                const double c = g.at(x, y);
                line[x] = c > 0 ? float(1.0 + barFraction(c)) : 0.f;
            }
        }
        m_cellsVisited += quint64(g.counts.size());
    }
    // The colour bar's labels decide the right margin: the widest ("100000") must fit whole.
    const QFontMetrics fm(font());
    int widest = fm.horizontalAdvance(logIntensity() ? tr("count, log") : tr("count")) - kBarGap - kBarWidth + 10;
    for (const QString& label : colorBarLabels())
        widest = std::max(widest, fm.horizontalAdvance(label) + kLabelGap + 6);
    m_right = kBarGap + kBarWidth + std::max(30, widest);
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
    // The frame first, just outside the plot: the cells drawn after it are never covered.
    p.setPen(palette().text().color());
    p.drawRect(plot.adjusted(-1, -1, 0, 0));
    p.fillRect(plot, Qt::black);
    const ScopeGrid* grid = singleGrid();
    if (!grid) {
        p.setPen(palette().text().color());
        p.drawText(plot, Qt::AlignCenter, tr("No 2-D histogram"));
        return;
    }
    const ScopeGrid& g = *grid;
    const qreal dpr = devicePixelRatioF();
    const QRectF cells = cellsRect();
    const QSize device(std::max(1, int(std::lround(plot.width() * dpr))), std::max(1, int(std::lround(plot.height() * dpr))));
    if (m_image.size() != device) {
        const QSize inner(std::max(1, int(std::lround(cells.width() * dpr))), std::max(1, int(std::lround(cells.height() * dpr))));
        const QVector<float> pooled = poolMax(m_fractions, 1, g.xBins, g.yBins, inner);
        const int inset = int(std::lround((cells.left() - plot.left()) * dpr));
        QVector<float> image(qsizetype(device.width()) * device.height(), 0.f);
        for (int y = 0; y < inner.height() && y + inset < device.height(); ++y)
            for (int x = 0; x < inner.width() && x + inset < device.width(); ++x)
                image[qsizetype(y + inset) * device.width() + x + inset] = pooled[qsizetype(y) * inner.width() + x];
        // Cells of a pixel or two: each lit one widened to a spot (the brightest winning), so a
        // flat colour, one cell, reads as a dot one can see and not a pixel.
        auto radius = [](double cellPixels) { return cellPixels < 2 ? 2 : cellPixels < 4 ? 1 : 0; };
        dilateMax(image, 1, device, radius(double(inner.width()) / g.xBins), radius(double(inner.height()) / g.yBins));
        m_image = QImage(device, QImage::Format_RGB32);
        for (int y = 0; y < device.height(); ++y) {
            QRgb* line = reinterpret_cast<QRgb*>(m_image.scanLine(y));
            for (int x = 0; x < device.width(); ++x) {
                const float v = image[qsizetype(y) * device.width() + x];
                line[x] = v > 0 ? rampColor(v - 1).rgb() : qRgb(0, 0, 0);
            }
        }
    }
    p.setRenderHint(QPainter::SmoothPixmapTransform, false);
    p.drawImage(plot, m_image);
    p.setPen(palette().text().color());
    // Axes: round values of each axis, and each axis's title.
    const QFontMetrics fm = p.fontMetrics();
    for (double v : axisTicks(g.xLo, g.xHi, g.xName == QStringLiteral("hue"))) {
        const double x = cells.left() + (v - g.xLo) / (g.xHi - g.xLo) * cells.width();
        p.drawLine(QPointF(x, plot.bottom() + 1), QPointF(x, plot.bottom() + 5));
        p.drawText(QRectF(x - 40, plot.bottom() + 5, 80, fm.height()), Qt::AlignHCenter | Qt::AlignTop, tick(v));
    }
    for (double v : axisTicks(g.yLo, g.yHi, g.yName == QStringLiteral("hue"))) {
        const double y = cells.bottom() - (v - g.yLo) / (g.yHi - g.yLo) * cells.height();
        p.drawLine(QPointF(plot.left() - 5, y), QPointF(plot.left() - 1, y));
        p.drawText(QRectF(0, y - fm.height() / 2.0, kLeft - 7, fm.height()), Qt::AlignRight | Qt::AlignVCenter, tick(v));
    }
    p.drawText(QRectF(plot.left(), plot.bottom() + 5 + fm.height(), plot.width(), fm.height()), Qt::AlignHCenter, g.xName);
    p.save();
    p.translate(12, plot.center().y());
    p.rotate(-90);
    p.drawText(QRectF(-plot.height() / 2, -fm.height() / 2.0, plot.height(), fm.height()), Qt::AlignCenter, g.yName);
    p.restore();
    // Colour bar with its labels: decades on the log scale.
    const QRectF bar = colorBarRect();
    for (int i = 0; i < int(bar.height()); ++i) {
        const double t = 1.0 - double(i) / std::max(1.0, bar.height() - 1);
        p.setPen(rampColor(t));
        p.drawLine(QPointF(bar.left(), bar.top() + i), QPointF(bar.right(), bar.top() + i));
    }
    p.setPen(palette().text().color());
    p.drawRect(bar);
    const QStringList labels = colorBarLabels();
    for (int i = 0; i < labels.size(); ++i)
        p.drawText(colorBarLabelRect(i), Qt::AlignLeft | Qt::AlignVCenter, labels[i]);
    // On the x title's row, which is centred under the plot: the tick row's last label reaches
    // under the bar.
    p.drawText(QRectF(bar.left() - 10, plot.bottom() + 5 + fm.height(), width() - bar.left() + 10, fm.height()), Qt::AlignLeft,
               logIntensity() ? tr("count, log") : tr("count"));
}

QString Histogram2DView::readoutAt(const QPoint& position) const
{
    const ScopeGrid* grid = singleGrid();
    const QRectF plot = cellsRect();
    if (!grid || !plotRect().contains(position))
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
