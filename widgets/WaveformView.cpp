#include "widgets/WaveformView.h"

#include <QMouseEvent>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace {

constexpr int kLeftMargin = 46;
constexpr int kMargin = 8;
constexpr int kPanelGap = 6;
const QColor kBackground(12, 12, 14);
const QColor kGraticule(110, 110, 70);

}  // namespace

WaveformView::WaveformView(QWidget* parent) : ScopeView(false, parent) {}

void WaveformView::setScale(Scale scale)
{
    if (m_scale == scale)
        return;
    m_scale = scale;
    update();
}

QStringList WaveformView::scaleLabels() const
{
    QStringList labels;
    for (int k = 0; k <= 4; ++k) {
        if (m_scale == Scale::Percent) {
            labels << QStringLiteral("%1%").arg(k * 25);
        } else {
            const double code = m_display.codeMax * k / 4.0;
            labels << (m_display.codeMax >= 16 ? QString::number(std::lround(code)) : QString::number(code, 'g', 3));
        }
    }
    return labels;
}

int WaveformView::panelCount() const
{
    if (m_display.grids.isEmpty())
        return 0;
    return m_display.kind == ScopeDisplay::Kind::Parade ? int(m_display.grids.size()) : 1;
}

QRectF WaveformView::tracesRect() const
{
    return QRectF(kLeftMargin, kMargin, std::max(1, width() - kLeftMargin - kMargin), std::max(1, height() - 2 * kMargin));
}

QRectF WaveformView::panelRect(int panel) const
{
    const int n = std::max(1, panelCount());
    const QRectF all = tracesRect();
    const double w = (all.width() - kPanelGap * (n - 1)) / n;
    return QRectF(all.left() + panel * (w + kPanelGap), all.top(), std::max(1.0, w), all.height());
}

QPointF WaveformView::positionOf(int panel, double x, double value) const
{
    const QRectF r = panelRect(panel);
    const int grid = m_display.kind == ScopeDisplay::Kind::Parade ? panel : 0;
    if (grid >= m_display.grids.size())
        return r.center();
    const ScopeGrid& g = m_display.grids[grid];
    const double fx = (x + 0.5) / std::max(1, g.xBins);
    const double fy = (value - g.yLo) / (g.yHi - g.yLo);
    return QPointF(r.left() + fx * r.width(), r.bottom() - fy * r.height());
}

// One panel's traces: the grids listed, added colour by colour (additive blending), one image
// pixel per cell, the top row the highest value.
QImage WaveformView::renderPanel(const QVector<int>& grids) const
{
    int w = 1, h = 1;
    for (int i : grids) {
        w = std::max(w, m_display.grids[i].xBins);
        h = std::max(h, m_display.grids[i].yBins);
    }
    QVector<float> rgb(qsizetype(w) * h * 3, 0.f);
    for (int i : grids) {
        const ScopeGrid& g = m_display.grids[i];
        if (!g.isValid())
            continue;
        const double max = g.maxCount();
        const float cr = float(g.color.redF()), cg = float(g.color.greenF()), cb = float(g.color.blueF());
        for (int x = 0; x < g.xBins; ++x)
            for (int y = 0; y < g.yBins; ++y) {
                const float t = float(intensity(g.at(x, y), max));
                if (t <= 0)
                    continue;
                const int px = int(qint64(x) * w / g.xBins), py = h - 1 - int(qint64(y) * h / g.yBins);
                float* o = &rgb[(qsizetype(py) * w + px) * 3];
                o[0] += t * cr;
                o[1] += t * cg;
                o[2] += t * cb;
            }
    }
    QImage image(w, h, QImage::Format_ARGB32);
    for (int y = 0; y < h; ++y) {
        QRgb* line = reinterpret_cast<QRgb*>(image.scanLine(y));
        for (int x = 0; x < w; ++x) {
            const float* o = &rgb[(qsizetype(y) * w + x) * 3];
            if (o[0] <= 0 && o[1] <= 0 && o[2] <= 0) {
                line[x] = qRgba(0, 0, 0, 0);
                continue;
            }
            line[x] = qRgb(int(std::min(1.f, o[0]) * 255), int(std::min(1.f, o[1]) * 255), int(std::min(1.f, o[2]) * 255));
        }
    }
    return image;
}

void WaveformView::rebuild()
{
    m_panels.clear();
    const int n = panelCount();
    for (int p = 0; p < n; ++p) {
        QVector<int> grids;
        if (m_display.kind == ScopeDisplay::Kind::Parade)
            grids << p;
        else
            for (int i = 0; i < m_display.grids.size(); ++i)
                grids << i;
        m_panels << renderPanel(grids);
    }
    update();
}

void WaveformView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().window());
    const QRectF traces = tracesRect();
    p.fillRect(traces, kBackground);
    const QStringList labels = scaleLabels();
    for (int panel = 0; panel < std::max(1, panelCount()); ++panel) {
        const QRectF r = panelRect(panel);
        p.fillRect(r, Qt::black);
        if (panel < m_panels.size()) {
            p.setRenderHint(QPainter::SmoothPixmapTransform, false);
            p.drawImage(r, m_panels[panel]);
        }
        // Graticule: five levels of full scale, dashed between the ends.
        for (int k = 0; k <= 4; ++k) {
            const ScopeGrid* g = m_display.grids.isEmpty() ? nullptr : &m_display.grids[m_display.kind == ScopeDisplay::Kind::Parade ? panel : 0];
            const double value = m_display.codeMax * k / 4.0;
            const double fy = g ? (value - g->yLo) / (g->yHi - g->yLo) : k / 4.0;
            const double y = r.bottom() - fy * r.height();
            QPen pen(kGraticule, 1, (k == 0 || k == 4) ? Qt::SolidLine : Qt::DashLine);
            p.setPen(pen);
            p.drawLine(QPointF(r.left(), y), QPointF(r.right(), y));
            if (panel == 0) {
                p.setPen(palette().text().color());
                p.drawText(QRectF(0, y - 8, kLeftMargin - 4, 16), Qt::AlignRight | Qt::AlignVCenter, labels[k]);
            }
        }
        if (m_display.kind == ScopeDisplay::Kind::Parade && panel < m_display.grids.size()) {
            p.setPen(m_display.grids[panel].color);
            p.drawText(r.adjusted(4, 2, -4, -2), Qt::AlignTop | Qt::AlignLeft, m_display.grids[panel].name);
        }
    }
    if (m_display.isEmpty()) {
        p.setPen(palette().text().color());
        p.drawText(traces, Qt::AlignCenter, tr("No waveform"));
    }
}

QString WaveformView::readoutAt(const QPoint& position) const
{
    for (int panel = 0; panel < panelCount(); ++panel) {
        const QRectF r = panelRect(panel);
        if (!r.contains(position))
            continue;
        const double fx = (position.x() - r.left()) / r.width();
        const double fy = (r.bottom() - position.y()) / r.height();
        QStringList parts;
        const bool parade = m_display.kind == ScopeDisplay::Kind::Parade;
        for (int i = 0; i < m_display.grids.size(); ++i) {
            if (parade && i != panel)
                continue;
            const ScopeGrid& g = m_display.grids[i];
            if (!g.isValid())
                continue;
            const int x = std::clamp(int(fx * g.xBins), 0, g.xBins - 1);
            const int y = std::clamp(int(fy * g.yBins), 0, g.yBins - 1);
            const double value = g.yLo + (g.yHi - g.yLo) * y / g.yBins;
            const QString v = m_scale == Scale::Percent ? QStringLiteral("%1%").arg(100.0 * value / m_display.codeMax, 0, 'f', 1)
                                                        : QString::number(value, 'g', 6);
            if (parts.isEmpty())
                parts << QStringLiteral("%1 %2").arg(g.xName).arg(x);
            parts << QStringLiteral("%1 %2: %3").arg(g.name, v).arg(g.at(x, y));
        }
        return parts.join(QStringLiteral("  "));
    }
    return {};
}

void WaveformView::resizeEvent(QResizeEvent*) { update(); }
