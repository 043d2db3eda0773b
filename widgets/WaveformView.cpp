#include "widgets/WaveformView.h"

#include <QPainter>

#include <algorithm>
#include <cmath>

namespace {

constexpr int kMargin = 8;
constexpr int kPanelGap = 6;
constexpr int kStrip = 3;   // height of a clip mark, pixels
const QColor kBackground(12, 12, 14);
const QColor kGraticule(110, 110, 70);

// A step of 1, 2, 2.5 or 5 times a power of ten giving at most `count` steps over `span`.
double niceStep(double span, int count)
{
    const double raw = span / std::max(1, count);
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 2.5, 5.0})
        if (m * magnitude >= raw)
            return m * magnitude;
    return 10 * magnitude;
}

// `cells` holds `channels` values per pixel: three (r, g, b), or one brightness of `tint`.
QImage toImage(const QVector<float>& cells, int channels, const QColor& tint, QSize size)
{
    QImage image(size, QImage::Format_RGB32);
    const float tr = float(tint.redF()), tg = float(tint.greenF()), tb = float(tint.blueF());
    auto level = [](float v) { return int(std::min(1.f, v) * 255.f + 0.5f); };
    for (int y = 0; y < size.height(); ++y) {
        QRgb* line = reinterpret_cast<QRgb*>(image.scanLine(y));
        const float* o = &cells[qsizetype(y) * size.width() * channels];
        for (int x = 0; x < size.width(); ++x, o += channels)
            line[x] = channels == 3 ? qRgb(level(o[0]), level(o[1]), level(o[2]))
                                    : qRgb(level(o[0] * tr), level(o[0] * tg), level(o[0] * tb));
    }
    return image;
}

// A clip strip: the mark's colour, its opacity the pooled brightness of the clipped counts.
QImage stripImage(const QVector<float>& marks, int width)
{
    QImage image(std::max(1, width), 1, QImage::Format_ARGB32);
    QRgb* line = reinterpret_cast<QRgb*>(image.scanLine(0));
    const QColor c = WaveformView::clipColor();
    for (int x = 0; x < image.width(); ++x) {
        const float t = marks.value(x);
        line[x] = t > 0 ? qRgba(c.red(), c.green(), c.blue(), int(std::lround((0.45 + 0.55 * std::min(1.f, t)) * 255))) : 0;
    }
    return image;
}

QSize deviceSize(const QRectF& r, qreal dpr) { return QSize(std::max(1, int(std::lround(r.width() * dpr))), std::max(1, int(std::lround(r.height() * dpr)))); }

}  // namespace

WaveformView::WaveformView(QWidget* parent) : ScopeView(false, parent) {}

void WaveformView::setScale(Scale scale)
{
    if (m_scale == scale)
        return;
    m_scale = scale;
    update();
}

void WaveformView::setRange(Range range)
{
    if (m_range == range)
        return;
    m_range = range;
    update();
}

const ScopeGrid* WaveformView::panelGrid(int panel) const
{
    const int i = m_display.kind == ScopeDisplay::Kind::Parade ? panel : 0;
    return i >= 0 && i < m_display.grids.size() && m_display.grids[i].isValid() ? &m_display.grids[i] : nullptr;
}

QString WaveformView::valueText(double value) const
{
    const bool legal = m_range == Range::Legal;
    const double zero = legal ? m_display.legalLo() : 0.0;
    const double full = legal ? m_display.legalHi() : m_display.codeMax;
    if (m_scale == Scale::Percent)
        return QString::number(std::round(1000.0 * (value - zero) / (full - zero)) / 10.0, 'g', 4) + QLatin1Char('%');
    if (!m_display.floatValues)
        return QString::number(std::lround(value));
    return QString::number(value, 'g', 3);
}

QVector<WaveformView::Tick> WaveformView::ticks() const
{
    QVector<Tick> out;
    const bool legal = m_range == Range::Legal;
    const double zero = legal ? m_display.legalLo() : 0.0;
    const double full = legal ? m_display.legalHi() : m_display.codeMax;
    const ScopeGrid* g = panelGrid(0);
    const double lo = g ? g->yLo : 0.0;
    const double hi = g ? g->yHi : m_display.codeMax;
    // A float axis that holds more than 0..1 (HDR data, negatives): round steps over the whole
    // axis in its units, 0 % and 100 % among them. Otherwise quarters of the chosen range.
    const bool beyond = m_display.floatValues && (lo < -1e-9 * m_display.codeMax || hi > m_display.codeMax * 1.0001);
    if (!beyond) {
        if (legal)
            out << Tick{0.0, QString(), false};
        for (int k = 0; k <= 4; ++k) {
            const double v = zero + (full - zero) * k / 4.0;
            out << Tick{v, valueText(v), k == 0 || k == 4};
        }
        if (legal)
            out << Tick{m_display.codeMax, QString(), false};
        return out;
    }
    const bool percent = m_scale == Scale::Percent;
    auto toUnits = [&](double v) { return percent ? 100.0 * (v - zero) / (full - zero) : v; };
    auto fromUnits = [&](double u) { return percent ? zero + u / 100.0 * (full - zero) : u; };
    const double step = niceStep(toUnits(hi) - toUnits(lo), 5);
    for (double u = std::ceil(toUnits(lo) / step) * step; u <= toUnits(hi) + 1e-9 * step; u += step) {
        const double v = fromUnits(u);
        // 0 % and 100 % are drawn solid below; a round step too close to them gives way.
        if (std::abs(u - toUnits(zero)) < 0.4 * step || std::abs(u - toUnits(full)) < 0.4 * step)
            continue;
        out << Tick{v, valueText(v), false};
    }
    out << Tick{zero, valueText(zero), true} << Tick{full, valueText(full), true};
    std::sort(out.begin(), out.end(), [](const Tick& a, const Tick& b) { return a.value < b.value; });
    return out;
}

QStringList WaveformView::scaleLabels() const
{
    QStringList labels;
    for (const Tick& t : ticks())
        if (!t.label.isEmpty())
            labels << t.label;
    return labels;
}

int WaveformView::panelCount() const
{
    if (m_display.grids.isEmpty())
        return 0;
    return m_display.kind == ScopeDisplay::Kind::Parade ? int(m_display.grids.size()) : 1;
}

int WaveformView::leftMargin() const
{
    int widest = 0;
    const QFontMetrics fm(font());
    for (const QString& label : scaleLabels())
        widest = std::max(widest, fm.horizontalAdvance(label));
    return std::max(36, widest + 10);
}

QRectF WaveformView::tracesRect() const
{
    const int left = leftMargin();
    return QRectF(left, kMargin, std::max(1, width() - left - kMargin), std::max(1, height() - 2 * kMargin));
}

QRectF WaveformView::panelRect(int panel) const
{
    // Whole pixels: the trace is drawn one device pixel per cell at most, and positionOf must
    // land on the pixel its cell lights.
    const int n = std::max(1, panelCount());
    const QRectF all = tracesRect();
    const double w = (all.width() - kPanelGap * (n - 1)) / n;
    const int left = int(std::lround(all.left() + panel * (w + kPanelGap)));
    const int right = int(std::lround(all.left() + panel * (w + kPanelGap) + w));
    return QRectF(left, all.top(), std::max(1, right - left), all.height());
}

QRectF WaveformView::plotRect(int panel) const
{
    const QRectF r = panelRect(panel);
    // The margin holds the clip marks and keeps code 0 and full scale off the border.
    const int m = std::max(kStrip + 5, int(std::lround(r.height() * 0.045)));
    return QRectF(r.left(), r.top() + m, r.width(), std::max(1.0, r.height() - 2 * m));
}

QRectF WaveformView::clipStripRect(int panel, bool high) const
{
    const QRectF p = plotRect(panel);
    return high ? QRectF(p.left(), p.top() - kStrip - 1, p.width(), kStrip) : QRectF(p.left(), p.bottom() + 1, p.width(), kStrip);
}

QPointF WaveformView::positionOf(int panel, double x, double value) const
{
    const QRectF r = plotRect(panel);
    const ScopeGrid* g = panelGrid(panel);
    if (!g)
        return r.center();
    const double fx = (x + 0.5) / std::max(1, g->xBins);
    const double fy = (value - g->yLo) / (g->yHi - g->yLo);
    return QPointF(r.left() + fx * r.width(), r.bottom() - fy * r.height());
}

// One panel's traces: the grids listed, added colour by colour (additive blending), each cell's
// brightness the phosphor response of its count; the top row the highest value.
WaveformView::PanelCells WaveformView::renderPanel(const QVector<int>& grids)
{
    PanelCells cells;
    int w = 1, h = 1;
    for (int i : grids) {
        w = std::max(w, m_display.grids[i].xBins);
        h = std::max(h, m_display.grids[i].yBins);
    }
    cells.width = w;
    cells.height = h;
    // One grid (a parade's panel, the luma waveform) is drawn in its one colour: a brightness per
    // cell, tinted when the image is made, a third of the memory to fill, add into and pool. The
    // pixels are the same: the tint scales every cell alike, so the pooled maximum commutes with it.
    cells.channels = grids.size() == 1 ? 1 : 3;
    if (cells.channels == 1 && m_display.grids[grids[0]].isValid())
        cells.tint = m_display.grids[grids[0]].color;
    cells.rgb.fill(0.f, qsizetype(w) * h * cells.channels);
    cells.high.fill(0.f, w);
    cells.low.fill(0.f, w);
    for (int i : grids) {
        const ScopeGrid& g = m_display.grids[i];
        if (!g.isValid())
            continue;
        const Response response = responseOf(g);
        const float cr = float(g.color.redF()), cg = float(g.color.greenF()), cb = float(g.color.blueF());
        for (int x = 0; x < g.xBins; ++x) {
            const int px = int(qint64(x) * w / g.xBins);
            const double* column = g.counts.constData() + qsizetype(x) * g.yBins;
            for (int y = 0; y < g.yBins; ++y) {
                if (column[y] <= 0)
                    continue;   // most cells of a scope are empty: no response to look up
                const float t = float(intensity(column[y], response));
                if (t <= 0)
                    continue;
                const int py = h - 1 - int(qint64(y) * h / g.yBins);
                float* o = &cells.rgb[(qsizetype(py) * w + px) * cells.channels];
                if (cells.channels == 1) {
                    o[0] += t;
                    continue;
                }
                o[0] += t * cr;
                o[1] += t * cg;
                o[2] += t * cb;
            }
            cells.high[px] = std::max(cells.high[px], float(intensity(g.clippedHigh(x), response)));
            cells.low[px] = std::max(cells.low[px], float(intensity(g.clippedLow(x), response)));
        }
        m_cellsVisited += quint64(g.counts.size());
    }
    return cells;
}

void WaveformView::ensureImages(PanelCells& cells, QSize device) const
{
    if (cells.image.size() == device)
        return;
    cells.image = toImage(poolMax(cells.rgb, cells.channels, cells.width, cells.height, device), cells.channels,
                          cells.tint, device);
    cells.highStrip = stripImage(poolMax(cells.high, 1, cells.width, 1, QSize(device.width(), 1)), device.width());
    cells.lowStrip = stripImage(poolMax(cells.low, 1, cells.width, 1, QSize(device.width(), 1)), device.width());
}

void WaveformView::rebuild()
{
    m_panels.clear();
    m_cellsVisited = 0;
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
    const QVector<Tick> graticule = ticks();
    const qreal dpr = devicePixelRatioF();
    for (int panel = 0; panel < std::max(1, panelCount()); ++panel) {
        const QRectF r = panelRect(panel);
        const QRectF plot = plotRect(panel);
        p.fillRect(r, Qt::black);
        const ScopeGrid* g = panelGrid(panel);
        // Graticule first: the trace is added on top of it, so a trace on a line stays seen.
        for (const Tick& t : graticule) {
            // Integer codes: the line through the middle of the code's bin, where its trace is.
            double v = t.value;
            if (g && !m_display.floatValues) {
                const double bin = (g->yHi - g->yLo) / g->yBins;
                v = g->yLo + (std::floor((v - g->yLo) / bin) + 0.5) * bin;
            }
            const double y = g ? positionOf(panel, 0, v).y() : plot.bottom() - (t.value / m_display.codeMax) * plot.height();
            const Qt::PenStyle style = t.solid ? Qt::SolidLine : t.label.isEmpty() ? Qt::DotLine : Qt::DashLine;
            p.setPen(QPen(kGraticule, 1, style));
            p.drawLine(QPointF(r.left(), y), QPointF(r.right(), y));
            if (panel == 0 && !t.label.isEmpty()) {
                p.setPen(palette().text().color());
                p.drawText(QRectF(0, y - 8, traces.left() - 4, 16), Qt::AlignRight | Qt::AlignVCenter, t.label);
            }
        }
        if (panel < m_panels.size()) {
            PanelCells& cells = m_panels[panel];
            ensureImages(cells, deviceSize(plot, dpr));
            p.save();
            p.setCompositionMode(QPainter::CompositionMode_Plus);
            p.drawImage(plot, cells.image);
            p.restore();
            p.drawImage(clipStripRect(panel, true), cells.highStrip);
            p.drawImage(clipStripRect(panel, false), cells.lowStrip);
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
        const QRectF plot = plotRect(panel);
        const double fx = std::clamp((position.x() - plot.left()) / plot.width(), 0.0, 1.0);
        const double fy = (plot.bottom() - position.y()) / plot.height();
        const bool above = fy >= 1, below = fy < 0;   // the margins: what is clipped there
        QStringList parts;
        const bool parade = m_display.kind == ScopeDisplay::Kind::Parade;
        for (int i = 0; i < m_display.grids.size(); ++i) {
            if (parade && i != panel)
                continue;
            const ScopeGrid& g = m_display.grids[i];
            if (!g.isValid())
                continue;
            const int x = std::clamp(int(fx * g.xBins), 0, g.xBins - 1);
            if (parts.isEmpty())
                parts << QStringLiteral("%1 %2").arg(g.xName).arg(x);
            if (above || below) {
                parts << QStringLiteral("%1 clipped %2: %3").arg(g.name, above ? tr("high") : tr("low")).arg(above ? g.clippedHigh(x) : g.clippedLow(x));
                continue;
            }
            const int y = std::clamp(int(fy * g.yBins), 0, g.yBins - 1);
            const double value = g.yLo + (g.yHi - g.yLo) * y / g.yBins;
            const QString v = m_scale == Scale::Percent || m_display.floatValues ? valueText(value) : QString::number(value, 'g', 6);
            parts << QStringLiteral("%1 %2: %3").arg(g.name, v).arg(g.at(x, y));
        }
        return parts.join(QStringLiteral("  "));
    }
    return {};
}

void WaveformView::resizeEvent(QResizeEvent*) { update(); }
