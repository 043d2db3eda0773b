#include "widgets/VectorscopeView.h"

#include <QPainter>

#include <algorithm>
#include <cmath>

namespace {

constexpr double kPi = 3.14159265358979323846;
const QColor kGraticule(120, 120, 80);
// The bloom's strength: a halo of about a third of the core's brightness next to it.
constexpr float kBloom = 1.5f;

// A box blur of radius r along one axis (running sums: work independent of r).
void blurAlong(QVector<float>& img, int W, int H, int r, bool horizontal)
{
    const int n = horizontal ? W : H, lines = horizontal ? H : W;
    const qsizetype step = horizontal ? 3 : qsizetype(W) * 3;
    QVector<float> line(qsizetype(n) * 3);
    const float scale = 1.f / float(2 * r + 1);
    for (int l = 0; l < lines; ++l) {
        float* base = img.data() + (horizontal ? qsizetype(l) * W * 3 : qsizetype(l) * 3);
        for (int i = 0; i < n; ++i)
            for (int k = 0; k < 3; ++k)
                line[qsizetype(i) * 3 + k] = base[i * step + k];
        for (int k = 0; k < 3; ++k) {
            float sum = 0;
            for (int j = 0; j <= std::min(n - 1, r); ++j)
                sum += line[qsizetype(j) * 3 + k];
            for (int i = 0; i < n; ++i) {
                base[i * step + k] = sum * scale;
                if (i + r + 1 < n)
                    sum += line[qsizetype(i + r + 1) * 3 + k];
                if (i - r >= 0)
                    sum -= line[qsizetype(i - r) * 3 + k];
            }
        }
    }
}

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

QColor VectorscopeView::chromaColour(double cb, double cr, bool bt709)
{
    const double kr = bt709 ? 0.2126 : 0.299;
    const double kb = bt709 ? 0.0722 : 0.114;
    const double kg = 1 - kr - kb;
    const double y = 0.5;
    double r = y + 2 * (1 - kr) * cr;
    double b = y + 2 * (1 - kb) * cb;
    double g = (y - kr * r - kb * b) / kg;
    r = std::max(0.0, r);
    g = std::max(0.0, g);
    b = std::max(0.0, b);
    const double m = std::max({r, g, b, 1e-9});
    return QColor::fromRgbF(float(r / m), float(g / m), float(b / m));
}

VectorscopeView::VectorscopeView(QWidget* parent) : ScopeView(false, parent) {}

void VectorscopeView::setSkinToneLine(bool on)
{
    if (on == m_skin)
        return;
    m_skin = on;
    update();
}

void VectorscopeView::setTargetAmplitude(double amplitude)
{
    if (amplitude == m_amplitude)
        return;
    m_amplitude = amplitude;
    update();
}

void VectorscopeView::setTrace(Trace trace)
{
    if (trace == m_traceMode)
        return;
    m_traceMode = trace;
    rebuild();
}

QRectF VectorscopeView::scopeRect() const
{
    const double side = std::max(10, std::min(width(), height()) - 16);
    return QRectF((width() - side) / 2.0, (height() - side) / 2.0, side, side);
}

QPointF VectorscopeView::positionOfChroma(double cb, double cr) const
{
    const QRectF r = scopeRect();
    const double scale = r.width() / (2 * kHalfSpan);
    return QPointF(r.center().x() + cb * scale, r.center().y() - cr * scale);
}

QPointF VectorscopeView::targetPosition(const QString& name) const
{
    for (const Target& t : colourTargets(m_display.bt709, m_amplitude))
        if (t.name == name)
            return positionOfChroma(t.cb, t.cr);
    return scopeRect().center();
}

QRectF VectorscopeView::traceRect() const
{
    const ScopeGrid* grid = singleGrid();
    if (!grid)
        return {};
    // The trace covers the codes [lo, hi) of each axis; full scale is 2^D codes about grey.
    const double full = std::max(1e-9, m_display.codeMax + (m_display.codeMax >= 16 ? 1 : 0));
    const double centre = full / 2.0;
    const QPointF a = positionOfChroma((grid->xLo - centre) / full, (grid->yHi - centre) / full);
    const QPointF b = positionOfChroma((grid->xHi - centre) / full, (grid->yLo - centre) / full);
    return QRectF(a, b);
}

int VectorscopeView::coreRadius() const
{
    return std::max(1, int(std::lround(scopeRect().width() * devicePixelRatioF() / 140.0)));
}

// The cells: one RGB value per (Cb, Cr) cell, Cr upwards, its brightness the response of its
// count, its colour the tint or its own chroma's.
void VectorscopeView::rebuild()
{
    m_cells.clear();
    m_trace = QImage();
    m_cellsVisited = 0;
    m_width = m_height = 0;
    const ScopeGrid* grid = singleGrid();
    if (!grid) {
        update();
        return;
    }
    const ScopeGrid& g = *grid;
    const Response response = responseOf(g);
    m_width = g.xBins;
    m_height = g.yBins;
    m_cells.fill(0.f, qsizetype(g.xBins) * g.yBins * 3);
    const double full = std::max(1e-9, m_display.codeMax + (m_display.codeMax >= 16 ? 1 : 0));
    const double xw = (g.xHi - g.xLo) / g.xBins, yw = (g.yHi - g.yLo) / g.yBins;
    const QColor tint = classicTint();
    for (int x = 0; x < g.xBins; ++x)
        for (int y = 0; y < g.yBins; ++y) {
            const float t = float(intensity(g.at(x, y), response));
            if (t <= 0)
                continue;
            QColor c = tint;
            if (m_traceMode == Trace::PixelColours)
                c = chromaColour((g.xLo + (x + 0.5) * xw) / full - 0.5, (g.yLo + (y + 0.5) * yw) / full - 0.5, m_display.bt709);
            float* o = &m_cells[(qsizetype(g.yBins - 1 - y) * g.xBins + x) * 3];
            o[0] = t * float(c.redF());
            o[1] = t * float(c.greenF());
            o[2] = t * float(c.blueF());
        }
    m_cellsVisited += quint64(g.counts.size());
    update();
}

// The cells at device resolution (each covering its own pixels, the brightest winning), each lit
// pixel widened to a core of (2r+1)^2 pixels, and a bloom: the core blurred over twice its
// radius, under it. Work: the cells plus a fixed number of passes over the pixels.
void VectorscopeView::renderTrace(const QRect& deviceRect, qreal dpr)
{
    m_traceRect = deviceRect;
    const int W = std::max(1, deviceRect.width()), H = std::max(1, deviceRect.height());
    // The cells' own extent, inside the margin left for the bloom.
    const int r = coreRadius();
    const int margin = 3 * r + 2;
    const int cw = std::max(1, W - 2 * margin), ch = std::max(1, H - 2 * margin);
    const QVector<float> cells = poolMax(m_cells, 3, m_width, m_height, QSize(cw, ch));
    QVector<float> core(qsizetype(W) * H * 3, 0.f);
    for (int y = 0; y < ch; ++y)
        std::copy_n(&cells[qsizetype(y) * cw * 3], qsizetype(cw) * 3, &core[(qsizetype(y + margin) * W + margin) * 3]);
    dilateMax(core, 3, QSize(W, H), r, r);
    QVector<float> bloom = core;
    for (int pass = 0; pass < 2; ++pass) {
        blurAlong(bloom, W, H, r + 1, true);
        blurAlong(bloom, W, H, r + 1, false);
    }
    m_trace = QImage(W, H, QImage::Format_ARGB32_Premultiplied);
    m_trace.setDevicePixelRatio(dpr);
    for (int y = 0; y < H; ++y) {
        QRgb* line = reinterpret_cast<QRgb*>(m_trace.scanLine(y));
        for (int x = 0; x < W; ++x) {
            const qsizetype i = (qsizetype(y) * W + x) * 3;
            const float rr = std::max(core[i], kBloom * bloom[i]), gg = std::max(core[i + 1], kBloom * bloom[i + 1]),
                        bb = std::max(core[i + 2], kBloom * bloom[i + 2]);
            const float a = std::min(1.f, std::max({rr, gg, bb}));
            // Premultiplied: the trace lies over the black scope and the graticule alike.
            line[x] = a <= 0.002f ? 0 : qRgba(int(std::min(1.f, rr) * 255), int(std::min(1.f, gg) * 255), int(std::min(1.f, bb) * 255), int(a * 255));
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
    // Graticule: the outer circle, the axes.
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(kGraticule, 1));
    const QPointF c = r.center();
    const double outer = r.width() / 2 * 0.96;
    p.drawEllipse(c, outer, outer);
    p.drawLine(QPointF(c.x() - outer, c.y()), QPointF(c.x() + outer, c.y()));
    p.drawLine(QPointF(c.x(), c.y() - outer), QPointF(c.x(), c.y() + outer));
    if (!m_cells.isEmpty()) {
        const qreal dpr = devicePixelRatioF();
        const QRectF t = traceRect();
        // A margin for the bloom of edge cells, which reaches past the cells' extent.
        const int margin = 3 * coreRadius() + 2;
        const QRect device = QRectF(t.topLeft() * dpr, t.bottomRight() * dpr).toAlignedRect().adjusted(-margin, -margin, margin, margin);
        if (m_trace.isNull() || device != m_traceRect || m_trace.devicePixelRatio() != dpr)
            renderTrace(device, dpr);
        p.drawImage(QPointF(device.topLeft()) / dpr, m_trace);
    }
    // Skin tone: from the centre towards 123 degrees, where faces of every complexion fall.
    if (m_skin) {
        const double a = kSkinToneDegrees * kPi / 180.0;
        p.setPen(QPen(QColor(230, 180, 140), 1, Qt::DashLine));
        p.drawLine(c, positionOfChroma(0.5 * std::cos(a), 0.5 * std::sin(a)));
    }
    // Colour targets: a small box each, labelled outside, and the amplitude they stand for.
    const double box = std::max(6.0, r.width() * 0.035);
    const QFontMetricsF fm(font());
    for (const Target& t : colourTargets(m_display.bt709, m_amplitude)) {
        const QPointF pos = positionOfChroma(t.cb, t.cr);
        p.setPen(QPen(t.color, 1.5));
        p.drawRect(QRectF(pos.x() - box / 2, pos.y() - box / 2, box, box));
        // Far enough out along the radius that the name clears its box in every direction.
        const double gap = box / 2 + fm.height();
        const QPointF out = pos + (pos - c) * (gap / std::max(1.0, std::hypot(pos.x() - c.x(), pos.y() - c.y())));
        p.drawText(QRectF(out.x() - 16, out.y() - fm.height() / 2.0, 32, fm.height()), Qt::AlignCenter, t.name);
    }
    p.setPen(palette().text().color());
    p.drawText(rect().adjusted(4, 2, -4, -2), Qt::AlignTop | Qt::AlignLeft, QStringLiteral("%1 %").arg(std::lround(m_amplitude * 100)));
    if (m_display.floatValues && m_display.exposure != 0 && !m_display.isEmpty())
        p.drawText(rect().adjusted(4, 2, -4, -2), Qt::AlignTop | Qt::AlignRight,
                   QStringLiteral("%1%2 EV").arg(m_display.exposure > 0 ? "+" : "").arg(m_display.exposure, 0, 'f', 1));
    if (m_display.isEmpty())
        p.drawText(r, Qt::AlignCenter, tr("No vectorscope"));
}

QString VectorscopeView::readoutAt(const QPoint& position) const
{
    const ScopeGrid* grid = singleGrid();
    const QRectF t = traceRect();
    if (!grid || !t.contains(position))
        return {};
    const ScopeGrid& g = *grid;
    const int x = std::clamp(int(std::floor((position.x() - t.left()) / t.width() * g.xBins)), 0, g.xBins - 1);
    const int y = std::clamp(int(std::floor((t.bottom() - position.y()) / t.height() * g.yBins)), 0, g.yBins - 1);
    return QStringLiteral("%1 %2  %3 %4  count %5")
        .arg(g.xName)
        .arg(g.xLo + (g.xHi - g.xLo) * x / g.xBins, 0, 'g', 6)
        .arg(g.yName)
        .arg(g.yLo + (g.yHi - g.yLo) * y / g.yBins, 0, 'g', 6)
        .arg(g.at(x, y));
}
