#include "widgets/ScopeView.h"

#include <QMouseEvent>

#include <algorithm>
#include <cmath>

ScopeView::ScopeView(bool logIntensity, QWidget* parent) : QWidget(parent), m_log(logIntensity)
{
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void ScopeView::setDisplay(const ScopeDisplay& display)
{
    m_display = display;
    rebuild();
}

void ScopeView::setGain(double gain)
{
    gain = std::clamp(gain, 0.01, 100.0);
    if (gain == m_gain)
        return;
    m_gain = gain;
    rebuild();
}

void ScopeView::setLogIntensity(bool on)
{
    if (on == m_log)
        return;
    m_log = on;
    rebuild();
}

const ScopeGrid* ScopeView::singleGrid() const
{
    return !m_display.grids.isEmpty() && m_display.grids[0].isValid() ? &m_display.grids[0] : nullptr;
}

ScopeView::Response ScopeView::responseOf(const ScopeGrid& grid)
{
    Response r;
    double sum = 0;
    qsizetype populated = 0;
    for (double c : grid.counts) {
        if (c > 0) {
            sum += c;
            ++populated;
            r.max = std::max(r.max, c);
        }
    }
    m_cellsVisited += quint64(grid.counts.size());
    r.reference = populated ? sum / double(populated) : 0;
    // Counts are whole numbers, most of them small: their brightness once, not once per cell.
    r.table.resize(qsizetype(std::min(1024.0, r.max + 1)));
    for (qsizetype c = 0; c < r.table.size(); ++c)
        r.table[c] = float(computeIntensity(double(c), r));
    return r;
}

double ScopeView::intensity(double count, const Response& response) const
{
    if (count >= 0 && count < double(response.table.size()) && count == std::floor(count))
        return response.table[qsizetype(count)];
    return computeIntensity(count, response);
}

double ScopeView::computeIntensity(double count, const Response& response) const
{
    if (count <= 0 || response.reference <= 0)
        return 0;
    // The least a lit cell shows: kFloor at gain 1, brighter (to half) or dimmer with the gain.
    const double floor = std::min(0.5, kFloor * std::sqrt(m_gain));
    double t;
    if (m_log) {
        t = response.max > 0 ? std::min(1.0, std::log1p(m_gain * count) / std::log1p(response.max)) : 1.0;
    } else {
        // The phosphor: the typical populated cell is exposed to 1/2, a cell of five times it is
        // nearly saturated, one of a tenth still glows; gamma 2.2 spreads the dim end.
        const double exposure = m_gain * count / (2 * response.reference);
        t = std::pow(1 - std::exp(-exposure), 1 / 2.2);
    }
    return std::min(1.0, floor + (1 - floor) * t);
}

QVector<float> ScopeView::poolMax(const QVector<float>& cells, int channels, int w, int h, QSize out)
{
    const int W = std::max(1, out.width()), H = std::max(1, out.height());
    QVector<float> pooled(qsizetype(W) * H * channels, 0.f);
    if (w <= 0 || h <= 0 || cells.size() < qsizetype(w) * h * channels)
        return pooled;
    // Each cell's span of pixels on one axis: its own extent, at least one pixel.
    auto spans = [](int n, int size) {
        QVector<std::pair<int, int>> s(n);
        for (int i = 0; i < n; ++i) {
            // The extent's ends rounded to the nearest pixel edge, so a cell's pixels are the
            // ones its area covers most and its centre lies in them.
            int a = int((2 * qint64(i) * size + n) / (2 * qint64(n)));
            int b = int((2 * qint64(i + 1) * size + n) / (2 * qint64(n)));
            if (b <= a) {   // a cell within one pixel: the pixel that holds its centre
                a = int((2 * qint64(i) + 1) * size / (2 * qint64(n)));
                b = a + 1;
            }
            s[i] = {std::min(a, size - 1), std::min(b, size)};
        }
        return s;
    };
    const auto xs = spans(w, W), ys = spans(h, H);
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            const float* c = &cells[(qsizetype(y) * w + x) * channels];
            bool any = false;
            for (int k = 0; k < channels; ++k)
                any = any || c[k] > 0;
            if (!any)
                continue;
            for (int py = ys[y].first; py < ys[y].second; ++py)
                for (int px = xs[x].first; px < xs[x].second; ++px) {
                    float* o = &pooled[(qsizetype(py) * W + px) * channels];
                    for (int k = 0; k < channels; ++k)
                        o[k] = std::max(o[k], c[k]);
                }
        }
    }
    return pooled;
}

void ScopeView::dilateMax(QVector<float>& image, int channels, QSize size, int rx, int ry)
{
    const int W = size.width(), H = size.height();
    if (image.size() < qsizetype(W) * H * channels)
        return;
    // Separable: along rows, then along columns, each through a copy of the line.
    auto pass = [&](bool horizontal, int r) {
        if (r <= 0)
            return;
        const int n = horizontal ? W : H, lines = horizontal ? H : W;
        const qsizetype step = horizontal ? channels : qsizetype(W) * channels;
        QVector<float> line(qsizetype(n) * channels);
        for (int l = 0; l < lines; ++l) {
            float* base = image.data() + (horizontal ? qsizetype(l) * W * channels : qsizetype(l) * channels);
            for (int i = 0; i < n; ++i)
                for (int k = 0; k < channels; ++k)
                    line[qsizetype(i) * channels + k] = base[i * step + k];
            for (int i = 0; i < n; ++i) {
                bool lit = false;
                for (int k = 0; k < channels; ++k)
                    lit = lit || line[qsizetype(i) * channels + k] > 0;
                if (lit)
                    continue;
                for (int k = 0; k < channels; ++k) {
                    float m = 0;
                    for (int j = std::max(0, i - r); j <= std::min(n - 1, i + r); ++j)
                        m = std::max(m, line[qsizetype(j) * channels + k]);
                    base[i * step + k] = m;
                }
            }
        }
    };
    pass(true, rx);
    pass(false, ry);
}

void ScopeView::mouseMoveEvent(QMouseEvent* event)
{
    const QString text = readoutAt(event->position().toPoint());
    if (text != m_hover) {
        m_hover = text;
        emit hovered(text);
    }
}

void ScopeView::leaveEvent(QEvent*)
{
    if (!m_hover.isEmpty()) {
        m_hover.clear();
        emit hovered(QString());
    }
}
