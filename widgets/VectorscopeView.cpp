#include "widgets/VectorscopeView.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <utility>

namespace {

constexpr double kPi = 3.14159265358979323846;
const QColor kGraticule(120, 120, 80);

}  // namespace

QVector<VectorscopeView::Target> VectorscopeView::colourTargets(bool bt709, double a)
{
    const double kr = bt709 ? 0.2126 : 0.299;
    const double kb = bt709 ? 0.0722 : 0.114;
    const double kg = 1 - kr - kb;
    auto chroma = [&](double r, double g, double b, const QString& name, QColor color) {
        const double y = kr * r + kg * g + kb * b;
        return Target{name, color, (b - y) / (2 * (1 - kb)), (r - y) / (2 * (1 - kr))};
    };
    return {chroma(a, 0, 0, QStringLiteral("R"), QColor(255, 60, 60)),
            chroma(a, 0, a, QStringLiteral("Mg"), QColor(255, 60, 255)),
            chroma(0, 0, a, QStringLiteral("B"), QColor(80, 80, 255)),
            chroma(0, a, a, QStringLiteral("Cy"), QColor(60, 255, 255)),
            chroma(0, a, 0, QStringLiteral("G"), QColor(60, 255, 60)),
            chroma(a, a, 0, QStringLiteral("Yl"), QColor(255, 255, 60))};
}

VectorscopeView::VectorscopeView(QWidget* parent) : ScopeView(true, parent) {}

void VectorscopeView::setSkinToneLine(bool on)
{
    if (on == m_skin)
        return;
    m_skin = on;
    update();
}

QRectF VectorscopeView::scopeRect() const
{
    const double side = std::max(10, std::min(width(), height()) - 16);
    return QRectF((width() - side) / 2.0, (height() - side) / 2.0, side, side);
}

QPointF VectorscopeView::positionOfChroma(double cb, double cr) const
{
    const QRectF r = scopeRect();
    return QPointF(r.center().x() + cb * r.width(), r.center().y() - cr * r.height());
}

QPointF VectorscopeView::targetPosition(const QString& name) const
{
    for (const Target& t : colourTargets(m_display.bt709))
        if (t.name == name)
            return positionOfChroma(t.cb, t.cr);
    return scopeRect().center();
}

QRectF VectorscopeView::traceRect() const
{
    const ScopeGrid* grid = singleGrid();
    if (!grid)
        return {};
    // The trace covers the codes [lo, hi) of each axis; full scale spans the square.
    const double full = std::max(1e-9, m_display.codeMax + (m_display.codeMax >= 16 ? 1 : 0));
    const double centre = (m_display.codeMax >= 16 ? m_display.codeMax + 1 : m_display.codeMax) / 2.0;
    const QPointF a = positionOfChroma((grid->xLo - centre) / full, (grid->yHi - centre) / full);
    const QPointF b = positionOfChroma((grid->xHi - centre) / full, (grid->yLo - centre) / full);
    return QRectF(a, b);
}

// The trace: one image pixel per (Cb, Cr) cell, Cr upwards, tinted by where it lies.
void VectorscopeView::rebuild()
{
    m_trace = QImage();
    m_dots = QImage();
    const ScopeGrid* grid = singleGrid();
    if (!grid) {
        update();
        return;
    }
    const ScopeGrid& g = *grid;
    const double max = g.maxCount();
    m_trace = QImage(g.xBins, g.yBins, QImage::Format_ARGB32);
    m_trace.fill(Qt::transparent);
    for (int x = 0; x < g.xBins; ++x)
        for (int y = 0; y < g.yBins; ++y) {
            const double t = intensity(g.at(x, y), max);
            if (t <= 0)
                continue;
            const int v = int(std::lround(80 + 175 * t));
            m_trace.setPixel(x, g.yBins - 1 - y, qRgba(int(v * 0.75), v, int(v * 0.8), int(std::lround(60 + 195 * t))));
        }
    update();
}

// Each populated cell becomes a block of device pixels: its own extent, widened about its centre
// to kMinDotPixels when that is smaller. Where blocks overlap the brighter cell wins, so a dense
// trace reads as it did and only isolated cells grow. The counts are not touched.
void VectorscopeView::renderDots(const QRect& deviceRect, qreal dpr)
{
    m_dotsRect = deviceRect;
    m_dots = QImage(deviceRect.size(), QImage::Format_ARGB32);
    m_dots.fill(Qt::transparent);
    m_dots.setDevicePixelRatio(dpr);
    const QRectF cells = traceRect();
    const double sx = cells.width() * dpr / m_trace.width(), sy = cells.height() * dpr / m_trace.height();
    const double x0 = cells.left() * dpr - deviceRect.left(), y0 = cells.top() * dpr - deviceRect.top();
    auto span = [](double a, double b) {
        int lo = int(std::lround(a)), hi = int(std::lround(b));
        if (hi - lo < kMinDotPixels) {
            lo = int(std::lround((a + b) / 2 - kMinDotPixels / 2.0));
            hi = lo + kMinDotPixels;
        }
        return std::pair(lo, hi);
    };
    for (int cy = 0; cy < m_trace.height(); ++cy) {
        const auto* row = reinterpret_cast<const QRgb*>(m_trace.constScanLine(cy));
        const auto [top, bottom] = span(y0 + cy * sy, y0 + (cy + 1) * sy);
        for (int cx = 0; cx < m_trace.width(); ++cx) {
            const QRgb cell = row[cx];
            if (qAlpha(cell) == 0)
                continue;
            const auto [left, right] = span(x0 + cx * sx, x0 + (cx + 1) * sx);
            for (int y = std::max(0, top); y < std::min(m_dots.height(), bottom); ++y) {
                auto* out = reinterpret_cast<QRgb*>(m_dots.scanLine(y));
                for (int x = std::max(0, left); x < std::min(m_dots.width(), right); ++x)
                    if (qAlpha(out[x]) < qAlpha(cell))   // alpha rises with the count, as brightness does
                        out[x] = cell;
            }
        }
    }
}

void VectorscopeView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().window());
    const QRectF r = scopeRect();
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setPen(Qt::NoPen);
    p.setBrush(Qt::black);
    p.drawEllipse(r);
    if (!m_trace.isNull()) {
        const qreal dpr = devicePixelRatioF();
        const QRectF t = traceRect();
        // A margin for the dots of edge cells, which may reach past the cells' extent.
        const QRect device = QRectF(t.topLeft() * dpr, t.bottomRight() * dpr)
                                 .toAlignedRect()
                                 .adjusted(-kMinDotPixels, -kMinDotPixels, kMinDotPixels, kMinDotPixels);
        if (m_dots.isNull() || device != m_dotsRect || m_dots.devicePixelRatio() != dpr)
            renderDots(device, dpr);
        p.drawImage(QPointF(device.topLeft()) / dpr, m_dots);
    }
    // Graticule: the outer circle, the axes, a 75 % ring.
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(kGraticule, 1));
    p.drawEllipse(r);
    const QPointF c = r.center();
    p.drawLine(QPointF(r.left(), c.y()), QPointF(r.right(), c.y()));
    p.drawLine(QPointF(c.x(), r.top()), QPointF(c.x(), r.bottom()));
    // Skin tone: from the centre towards 123 degrees, where faces of every complexion fall.
    if (m_skin) {
        const double a = kSkinToneDegrees * kPi / 180.0;
        p.setPen(QPen(QColor(230, 180, 140), 1, Qt::DashLine));
        p.drawLine(c, positionOfChroma(0.5 * std::cos(a), 0.5 * std::sin(a)));
    }
    // 75 % colour targets: a small box each, labelled outside.
    const double box = std::max(6.0, r.width() * 0.035);
    const QFontMetricsF fm(font());
    for (const Target& t : colourTargets(m_display.bt709)) {
        const QPointF pos = positionOfChroma(t.cb, t.cr);
        p.setPen(QPen(t.color, 1.5));
        p.drawRect(QRectF(pos.x() - box / 2, pos.y() - box / 2, box, box));
        // Far enough out along the radius that the name clears its box in every direction.
        const double gap = box / 2 + fm.height();
        const QPointF out = pos + (pos - c) * (gap / std::max(1.0, std::hypot(pos.x() - c.x(), pos.y() - c.y())));
        p.drawText(QRectF(out.x() - 16, out.y() - fm.height() / 2.0, 32, fm.height()), Qt::AlignCenter, t.name);
    }
    if (m_display.isEmpty()) {
        p.setPen(palette().text().color());
        p.drawText(r, Qt::AlignCenter, tr("No vectorscope"));
    }
}

QString VectorscopeView::readoutAt(const QPoint& position) const
{
    const ScopeGrid* grid = singleGrid();
    const QRectF r = scopeRect();
    if (!grid || !r.contains(position))
        return {};
    const ScopeGrid& g = *grid;
    const double full = m_display.codeMax >= 16 ? m_display.codeMax + 1 : m_display.codeMax;
    const double cb = full / 2 + (position.x() - r.center().x()) / r.width() * full;
    const double cr = full / 2 - (position.y() - r.center().y()) / r.height() * full;
    const int x = int(std::floor((cb - g.xLo) / (g.xHi - g.xLo) * g.xBins));
    const int y = int(std::floor((cr - g.yLo) / (g.yHi - g.yLo) * g.yBins));
    if (x < 0 || y < 0 || x >= g.xBins || y >= g.yBins)
        return {};
    return QStringLiteral("%1 %2  %3 %4  count %5")
        .arg(g.xName)
        .arg(g.xLo + (g.xHi - g.xLo) * x / g.xBins, 0, 'g', 6)
        .arg(g.yName)
        .arg(g.yLo + (g.yHi - g.yLo) * y / g.yBins, 0, 'g', 6)
        .arg(g.at(x, y));
}
