#include "widgets/HistogramView.h"

#include "widgets/PercentileLabelLayout.h"

#include <QContextMenuEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace {

const QColor kBackground(32, 33, 36);
const QColor kGrid(52, 54, 60);
const QColor kAxis(110, 112, 118);
const QColor kText(200, 200, 200);
// Under percentile labels: opaque, so no fill or curve shows through the digits.
const QColor kLabelBackground(18, 18, 20);

// 1, 2 or 5 times a power of ten, at least `raw`.
double niceStep(double raw)
{
    if (!(raw > 0) || !std::isfinite(raw))
        return 1;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    const double norm = raw / magnitude;
    return (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * magnitude;
}

// 1, 2 or 5 times a power of ten, at most `raw`.
double niceFloor(double raw)
{
    if (!(raw >= 1) || !std::isfinite(raw))
        return 1;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    const double norm = raw / magnitude;
    return (norm >= 5 ? 5 : norm >= 2 ? 2 : 1) * magnitude;
}

bool isPowerOfTwo(double v)
{
    if (v < 1 || v > 9.007e15 || v != std::floor(v))
        return false;
    const auto i = std::uint64_t(v);
    return (i & (i - 1)) == 0;
}

// A value label: integers as integers, other values with as many decimals as the step needs.
QString formatValue(double v, double step, bool integer)
{
    if (integer || (v == std::floor(v) && std::abs(v) < 1e15 && step >= 1))
        return QString::number(qint64(std::llround(v)));
    if (std::abs(v) >= 1e6 || (step < 1e-4 && v != 0))
        return QString::number(v, 'g', 4);
    const int decimals = std::clamp(int(std::ceil(-std::log10(step) - 1e-9)), 0, 6);
    QString s = QString::number(v, 'f', decimals);
    if (s.contains(QLatin1Char('.'))) {
        while (s.endsWith(QLatin1Char('0')))
            s.chop(1);
        if (s.endsWith(QLatin1Char('.')))
            s.chop(1);
    }
    if (s.startsWith(QLatin1Char('-')) && s.toDouble() == 0)
        s.remove(0, 1);
    return s;
}

// A count label: 950, 2k, 2.5k, 1.5M. From 1000 up every label takes a suffix, so one axis never
// mixes "2500" with "3k". Ticks from 1000 up are multiples of a step of at least 100 (a tenth of
// the peak), so one decimal is exact.
QString formatCount(double c)
{
    const double a = std::abs(c);
    auto trimmed = [](double v, const char* suffix) {
        QString s = QString::number(v, 'f', v < 10 && v != std::floor(v) ? 1 : 0);
        return s + QLatin1String(suffix);
    };
    if (a >= 1e9)
        return trimmed(c / 1e9, "G");
    if (a >= 1e6)
        return trimmed(c / 1e6, "M");
    if (a >= 1e3)
        return trimmed(c / 1e3, "k");
    return QString::number(qint64(std::llround(c)));
}

struct Margins {
    double left, top, right, bottom;
};

// What the plot paints from: the worker's envelope when the display has one (bounded, whatever
// the bins), else the counts themselves (a display built by hand, as the tests build them).
const QVector<double>& envelopeOf(const HistogramSeries& s) { return s.peaks.isEmpty() ? s.counts : s.peaks; }
int binsPerGroup(const HistogramSeries& s) { return s.peaks.isEmpty() ? 1 : std::max(1, s.binsPerPeak); }

// The count through the end of each envelope group.
QVector<double> cumulativeOf(const HistogramSeries& s)
{
    if (!s.cumulative.isEmpty())
        return s.cumulative;
    QVector<double> run;
    run.reserve(s.counts.size());
    double sum = 0;
    for (double c : s.counts)
        run.append(sum += c);
    return run;
}

}  // namespace

HistogramView::HistogramView(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setMinimumSize(280, 160);
    setAttribute(Qt::WA_OpaquePaintEvent);
    m_placeholder = tr("Open an image, a video or a camera");
}

void HistogramView::setDisplay(const HistogramDisplay& display)
{
    m_display = display;
    if (m_hoverX >= 0) {
        m_hoverText = readoutAt(m_hoverX);
        emit hovered(m_hoverText);
    }
    update();
    emit displayChanged();
}

void HistogramView::setArrangement(Arrangement arrangement)
{
    m_arrangement = arrangement;
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

void HistogramView::setHiddenSeries(const QStringList& names)
{
    m_hidden = names;
    if (m_hoverX >= 0)
        m_hoverText = readoutAt(m_hoverX);
    update();
}

void HistogramView::setPlaceholderText(const QString& text)
{
    m_placeholder = text;
    update();
}

void HistogramView::toggleSeries(const QString& name)
{
    if (m_hidden.contains(name))
        m_hidden.removeAll(name);
    else
        m_hidden.append(name);
    if (m_hoverX >= 0)
        m_hoverText = readoutAt(m_hoverX);
    update();
    emit hiddenSeriesChanged(m_hidden);
}

HistogramView::Layout HistogramView::layout(const QSize& size, const QString& title) const
{
    Layout out;
    const QFontMetricsF fm(font());
    const double line = fm.height();
    const double left = line + 8 + fm.horizontalAdvance(QStringLiteral("888.8k"));
    const double right = m_cumulative ? line + 8 + fm.horizontalAdvance(QStringLiteral("100%")) : 12;
    const double width = std::max(10.0, size.width() - left - right);
    // An export's title is a row of its own above everything, across the whole picture.
    double stripTop = 0;
    if (!title.isEmpty()) {
        out.title = QRectF(8, 4, std::max(10.0, size.width() - 16.0), std::ceil(line) + 4);   // whole pixels: the rest moves by a whole row
        stripTop = out.title.bottom();
    }
    // The legend gets a strip of its own above the plot, as ImageJ and darktable keep their
    // annotations off the curves: a legend over the plot dims whatever peak lies under it.
    double stripBottom = stripTop;
    if (!m_display.isEmpty()) {
        const double h = line + 4, swatch = line * 0.8, gap = 4;
        QVector<QPair<QString, double>> items;
        for (const HistogramSeries& s : m_display.series)
            items.append({s.name, swatch + 4 + fm.horizontalAdvance(s.name) + 10});
        // Rows aligned right, wrapped where the plot's width ends; a narrow plot gets more rows.
        QVector<QVector<QPair<QString, double>>> rows(1);
        double rowWidth = 0;
        for (const auto& item : items) {
            if (!rows.last().isEmpty() && rowWidth + item.second > width) {
                rows.emplaceBack();
                rowWidth = 0;
            }
            rows.last().append(item);
            rowWidth += item.second;
        }
        double y = stripTop + gap;
        for (const auto& row : rows) {
            double total = 0;
            for (const auto& item : row)
                total += item.second;
            double x = left + std::max(0.0, width - total);
            for (const auto& [name, w] : row) {
                out.legend.append({name, QRectF(x, y, std::min(w, width), h)});
                x += w;
            }
            y += h;
        }
        stripBottom = y;
        if (!m_display.reference.isEmpty() && !m_display.referenceTitle.isEmpty()) {
            const double w = std::min(width, fm.horizontalAdvance(m_display.referenceTitle) + swatch + 14);
            double firstRow = 0;
            for (const auto& item : rows.first())
                firstRow += item.second;
            // Left of the legend's first row when both fit, else a row of its own under it.
            if (w + 2 * gap + firstRow <= width) {
                out.referenceTitle = QRectF(left, stripTop + gap, w, h);
            } else {
                out.referenceTitle = QRectF(left + width - w, stripBottom, w, h);
                stripBottom += h;
            }
        }
    }
    // Half a line above the plot for the top tick labels, which are centred on their ticks.
    const double top = stripBottom + line / 2 + 6;
    const double bottom = 2 * line + 12;
    out.plot = QRectF(left, top, width, std::max(10.0, size.height() - top - bottom));

    // Overlaid: one band, every visible channel. Separate: a band per visible channel, in the
    // legend's order, with a gap that holds the half lines of tick labels centred on the edges.
    QStringList visible;
    for (const HistogramSeries& s : m_display.series)
        if (isSeriesVisible(s.name))
            visible << s.name;
    if (m_arrangement == Arrangement::Overlay || visible.size() < 2) {
        out.bands.append({out.plot, visible, peakOf(visible)});
    } else {
        const double gap = std::round(line / 2 + 2);
        const double h = (out.plot.height() - gap * double(visible.size() - 1)) / double(visible.size());
        for (int i = 0; i < visible.size(); ++i) {
            const QRectF rect(out.plot.left(), out.plot.top() + i * (h + gap), out.plot.width(), std::max(1.0, h));
            out.bands.append({rect, {visible[i]}, peakOf({visible[i]})});
        }
    }
    return out;
}

QRectF HistogramView::plotRect(const QSize& size) const { return layout(size).plot; }

QVector<HistogramView::Band> HistogramView::bands(const QSize& size) const { return layout(size).bands; }

QVector<QPair<QString, QRectF>> HistogramView::legendEntries(const QSize& size) const { return layout(size).legend; }

QRectF HistogramView::referenceTitleRect(const QSize& size) const { return layout(size).referenceTitle; }

QRectF HistogramView::titleRect(const QSize& size, const QString& title) const { return layout(size, title).title; }

double HistogramView::peakOf(const QStringList& series) const
{
    double peak = 1;
    for (const HistogramSeries& s : m_display.series)
        if (series.contains(s.name))
            for (double c : envelopeOf(s))
                peak = std::max(peak, c);
    for (const HistogramSeries& s : m_display.reference)
        if (series.contains(s.name))
            for (double c : envelopeOf(s))
                peak = std::max(peak, c * s.scale);
    return peak;
}

double HistogramView::countToUnit(double count, double peak) const
{
    if (count <= 0)
        return 0;
    if (!m_log)
        return std::min(1.0, count / peak);
    // Decades evenly spaced, a count of 1 one decade above the axis (0 sits on the axis).
    const double decades = std::log10(std::max(1.0, peak)) + 1;
    const double u = count < 1 ? count / decades : (std::log10(count) + 1) / decades;
    return std::min(1.0, u);
}

QVector<HistogramView::Tick> HistogramView::valueTicks(const QSize& size) const
{
    QVector<Tick> ticks;
    const double lo = m_display.lo, hi = m_display.hi;
    if (!(hi > lo))
        return ticks;
    const QRectF r = plotRect(size);
    const QFontMetricsF fm(font());
    const double labelWidth = std::max(64.0, fm.horizontalAdvance(formatValue(hi, 1, m_display.integerValues)) + 24);
    const int maxTicks = std::clamp(int(r.width() / labelWidth), 2, 10);
    auto at = [&](double v) { return r.left() + (v - lo) / (hi - lo) * r.width(); };
    const double range = hi - lo;
    if (m_display.integerValues && isPowerOfTwo(range) && range >= 4 && lo == std::floor(lo)) {
        // Integer data over a power-of-two range (8, 10, 12, 16 bits): quarters, eighths...,
        // the last tick on the largest value (255, 65535) rather than the edge after it.
        int parts = 2;
        while (parts * 2 <= maxTicks && range / (parts * 2) >= 1)
            parts *= 2;
        for (int i = 0; i <= parts; ++i) {
            const double v = i == parts ? hi - 1 : lo + range * i / parts;
            ticks.append({at(v), formatValue(v, 1, true)});
        }
        return ticks;
    }
    double step = niceStep(range / maxTicks);
    if (m_display.integerValues)
        step = std::max(1.0, std::round(step));
    const double first = std::ceil(lo / step - 1e-9) * step;
    for (int i = 0; i < 64; ++i) {
        const double v = first + i * step;
        if (v > hi + step * 1e-9)
            break;
        ticks.append({at(v), formatValue(std::abs(v) < step * 1e-9 ? 0.0 : v, step, m_display.integerValues)});
    }
    return ticks;
}

QVector<HistogramView::Tick> HistogramView::countTicks(const QSize& size, int band) const
{
    const QVector<Band> all = bands(size);
    return band >= 0 && band < all.size() ? countTicksOf(all[band], all.size() > 1) : QVector<Tick>();
}

QVector<HistogramView::Tick> HistogramView::countTicksOf(const Band& band, bool stacked) const
{
    QVector<Tick> ticks;
    const QRectF r = band.rect;
    const double top = band.peak;
    auto at = [&](double c) { return r.bottom() - countToUnit(c, top) * r.height(); };
    const QFontMetricsF fm(font());
    // Stacked bands are a small gap apart: a band's 0 would sit on the label at the top of the
    // band under it, and every band starts at 0, so only the overlaid plot labels it.
    const int maxTicks = std::clamp(int(r.height() / (fm.height() * 2)), stacked ? 1 : 2, 10);
    if (!stacked)
        ticks.append({r.bottom(), QStringLiteral("0")});
    if (m_log) {
        // Decades: 1, 10, 100, 1k...; every other one when they would crowd.
        int decades = int(std::floor(std::log10(top))) + 1;
        const int every = decades > maxTicks ? (decades + maxTicks - 1) / maxTicks : 1;
        // A short stacked band names its top decade rather than 1.
        for (int k = stacked ? (decades - 1) % every : 0; k < decades; k += every)
            ticks.append({at(std::pow(10.0, k)), formatCount(std::pow(10.0, k))});
        return ticks;
    }
    double step = std::max(1.0, niceStep(top / maxTicks));
    if (step > top)
        step = niceFloor(top / 2);   // a short band: still a labelled tick or two under its top
    for (double c = step; c <= top * (1 + 1e-12); c += step)
        ticks.append({at(c), formatCount(c)});
    return ticks;
}

QVector<HistogramView::Tick> HistogramView::percentTicks(const QSize& size, int band) const
{
    const QVector<Band> all = bands(size);
    return band >= 0 && band < all.size() ? percentTicksOf(all[band]) : QVector<Tick>();
}

QVector<HistogramView::Tick> HistogramView::percentTicksOf(const Band& band) const
{
    QVector<Tick> ticks;
    if (!m_cumulative)
        return ticks;
    const QRectF r = band.rect;
    const QFontMetricsF fm(font());
    // A band too short for five labels gets 0, 50 and 100 %.
    const int step = r.height() >= 5 * fm.height() ? 25 : 50;
    for (int p = 0; p <= 100; p += step)
        ticks.append({r.bottom() - p / 100.0 * r.height(), QStringLiteral("%1%").arg(p)});
    return ticks;
}

QVector<HistogramView::PercentileLabel> HistogramView::percentileLabels(const QSize& size) const
{
    return annotate(bands(size)).labels;
}

QVector<QPair<QString, QRectF>> HistogramView::guideLabels(const QSize& size) const { return annotate(bands(size)).guides; }

QColor HistogramView::labelBackground() { return kLabelBackground; }

HistogramView::Annotations HistogramView::annotate(const QVector<Band>& bands) const
{
    Annotations out;
    if (!m_cumulative || m_display.isEmpty())
        return out;
    const QFontMetricsF fm(font());
    const double th = std::ceil(fm.height());
    for (const Band& band : bands) {
        // Labels stay inside their band, so the legend, the title and the other bands are clear.
        const QRectF r = band.rect;
        // Where each channel's CDF crosses each guide, and the value there.
        QVector<PercentileLabel> labels;
        for (double p : m_marks) {
            const double guideY = r.bottom() - p / 100.0 * r.height();
            for (const HistogramSeries& s : m_display.series) {
                if (!band.series.contains(s.name))
                    continue;
                const int bins = int(s.counts.size());
                const QVector<double> cumulative = cumulativeOf(s);
                const double total = cumulative.isEmpty() ? 0 : cumulative.last();
                if (total <= 0 || bins == 0)
                    continue;
                const double w = (m_display.hi - m_display.lo) / bins;
                const int group = binsPerGroup(s);
                // The inverted-CDF bin: the first whose cumulative share reaches p. Found in the
                // envelope's groups, then among the one group's bins.
                const auto reached = std::find_if(cumulative.begin(), cumulative.end(), [&](double c) { return c * 100 >= p * total; });
                const int g = reached == cumulative.end() ? int(cumulative.size()) - 1 : int(reached - cumulative.begin());
                double run = g > 0 ? cumulative[g - 1] : 0, before = run;
                int bin = std::min(bins, (g + 1) * group) - 1;
                for (int b = g * group; b < std::min(bins, (g + 1) * group); ++b) {
                    before = run;
                    run += s.counts[b];
                    if (run * 100 >= p * total) {
                        bin = b;
                        break;
                    }
                }
                const double value = m_display.lo + bin * w;
                const double f = run > before ? (p * total / 100 - before) / (run - before) : 1;
                const QPointF anchor(r.left() + (bin + std::clamp(f, 0.0, 1.0)) * r.width() / bins, guideY);
                labels.append({s.name, p, value, QRectF(), formatValue(value, w, m_display.integerValues), anchor});
            }
        }
        QVector<PercentileLabelLayout::Guide> guides;
        for (double p : m_marks)
            guides.append({r.bottom() - p / 100.0 * r.height(), std::ceil(fm.horizontalAdvance(QStringLiteral("p%1").arg(p)) + 4)});
        QVector<PercentileLabelLayout::Value> values;
        for (const PercentileLabel& l : labels)
            values.append({int(m_marks.indexOf(l.percent)), l.anchor, std::ceil(fm.horizontalAdvance(l.text) + 8)});
        const PercentileLabelLayout::Placed boxes = PercentileLabelLayout::place(r, th, guides, values);
        for (int g = 0; g < m_marks.size(); ++g)
            out.guides.append({QStringLiteral("p%1").arg(m_marks[g]), boxes.guides[g]});
        for (int i = 0; i < labels.size(); ++i) {
            labels[i].rect = boxes.values[i];
            out.labels.append(labels[i]);
        }
    }
    return out;
}

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
    const double a = m_display.lo + bin * w, b = m_display.lo + (bin + 1) * w;
    QString text;
    if (m_display.integerValues) {
        const auto first = qint64(std::ceil(a - 1e-9)), last = qint64(std::ceil(b - 1e-9)) - 1;
        text = first >= last ? QStringLiteral("value %1").arg(first) : QStringLiteral("values %1–%2").arg(first).arg(last);
    } else {
        text = QStringLiteral("[%1, %2)").arg(a, 0, 'g', 6).arg(b, 0, 'g', 6);
    }
    for (const HistogramSeries& s : m_display.series)
        if (isSeriesVisible(s.name))
            text += QStringLiteral("  %1 %2").arg(s.name).arg(qulonglong(s.counts.value(bin)));
    return text;
}

QImage HistogramView::render(const QSize& size, const QString& title) const
{
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    image.fill(kBackground);
    QPainter p(&image);
    p.setFont(font());
    paint(p, size, false, title);
    return image;
}

void HistogramView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    paint(p, size(), true, QString());
}

void HistogramView::paint(QPainter& p, const QSize& size, bool withHover, const QString& title) const
{
    p.setRenderHint(QPainter::Antialiasing, false);
    p.fillRect(QRect(QPoint(0, 0), size), kBackground);
    const Layout placed = layout(size, title);
    const QRectF r = placed.plot;
    const QFontMetricsF fm(p.font());
    if (!placed.title.isEmpty()) {
        QFont bold = p.font();
        bold.setBold(true);
        p.save();
        p.setFont(bold);
        p.setPen(kText);
        p.drawText(placed.title, Qt::AlignCenter,
                   QFontMetricsF(bold).elidedText(title, Qt::ElideMiddle, placed.title.width()));
        p.restore();
    }
    if (m_display.isEmpty()) {
        p.setPen(QColor(160, 160, 160));
        p.drawText(QRectF(QPointF(0, 0), QSizeF(size)), Qt::AlignCenter, m_placeholder);
        return;
    }
    const QVector<Tick> xTicks = valueTicks(size);
    const bool stacked = placed.bands.size() > 1;
    for (const Band& band : placed.bands)
        paintBand(p, band, xTicks, stacked);
    // The percentiles last, over every fill and curve of their band, on opaque labels: the
    // guides' names, a dot where each channel's CDF crosses a guide, a leader to its label when
    // the label had to move off the dot, and the value.
    const Annotations notes = annotate(placed.bands);
    p.setRenderHint(QPainter::Antialiasing, false);
    for (const auto& [text, rect] : notes.guides) {
        p.fillRect(rect, kLabelBackground);
        p.setPen(QColor(170, 170, 170));
        p.drawText(rect, Qt::AlignCenter, text);
    }
    auto colourOf = [&](const QString& name) {
        for (const HistogramSeries& s : m_display.series)
            if (s.name == name)
                return s.color;
        return QColor(Qt::white);
    };
    p.setRenderHint(QPainter::Antialiasing, true);
    for (const PercentileLabel& label : notes.labels) {
        const QPointF joint(std::clamp(label.anchor.x(), label.rect.left(), label.rect.right()),
                            std::clamp(label.anchor.y(), label.rect.top(), label.rect.bottom()));
        if (QLineF(label.anchor, joint).length() > 6) {
            p.setPen(QPen(colourOf(label.series).lighter(130), 1));
            p.drawLine(label.anchor, joint);
        }
    }
    for (const PercentileLabel& label : notes.labels) {
        p.setPen(QPen(kBackground, 1));
        p.setBrush(colourOf(label.series).lighter(130));
        p.drawEllipse(label.anchor, 3, 3);
    }
    p.setBrush(Qt::NoBrush);
    p.setRenderHint(QPainter::Antialiasing, false);
    for (const PercentileLabel& label : notes.labels) {
        const QColor c = colourOf(label.series);
        p.fillRect(label.rect, kLabelBackground);
        p.setPen(c);
        p.drawRect(label.rect.adjusted(0, 0, -1, -1));
        p.setPen(c.lighter(150));
        p.drawText(label.rect, Qt::AlignCenter, label.text);
    }

    // The value axis under the last band (the frames are under the data, so edge bins stay visible).
    p.setRenderHint(QPainter::Antialiasing, false);
    for (const Tick& t : xTicks) {
        p.setPen(kAxis);
        p.drawLine(QPointF(t.position, r.bottom()), QPointF(t.position, r.bottom() + 4));
        p.setPen(kText);
        const double w = fm.horizontalAdvance(t.label);
        // The first and last labels stay inside the plot's width.
        const double x = std::clamp(t.position - w / 2, r.left() - 4 - fm.horizontalAdvance(QStringLiteral("8")),
                                    std::max(r.left(), r.right() + 10 - w));
        p.drawText(QPointF(x, r.bottom() + 5 + fm.ascent()), t.label);
    }
    p.setPen(QColor(170, 170, 170));
    p.drawText(QRectF(r.left(), size.height() - fm.height() - 2, r.width(), fm.height()), Qt::AlignHCenter,
               m_display.valueTitle);
    // The count axis' title; stacked bands are each titled with their channel, in its colour.
    auto verticalTitle = [&](const QRectF& band, double x, double angle, const QString& text, const QColor& colour) {
        p.save();
        p.setPen(colour);
        p.translate(x, band.center().y());
        p.rotate(angle);
        p.drawText(QRectF(-band.height() / 2, 0, band.height(), fm.height()), Qt::AlignHCenter,
                   fm.elidedText(text, Qt::ElideRight, band.height()));
        p.restore();
    };
    const QString countTitle = m_log ? tr("count (log)") : tr("count");
    for (const Band& band : placed.bands) {
        if (!stacked) {
            verticalTitle(band.rect, 2, -90, countTitle, QColor(170, 170, 170));
            continue;
        }
        QColor c(170, 170, 170);
        for (const HistogramSeries& s : m_display.series)
            if (band.series.contains(s.name))
                c = s.color.lighter(120);
        verticalTitle(band.rect, 2, -90, band.series.join(' '), c);
    }
    if (m_cumulative)
        verticalTitle(r, size.width() - 2, 90, tr("cumulative"), QColor(170, 170, 170));

    // Legend: click an entry to hide or show its channel.
    const double swatch = fm.height() * 0.8;
    for (const auto& [name, rect] : placed.legend) {
        QColor c = Qt::white;
        bool outline = false;
        for (const HistogramSeries& s : m_display.series)
            if (s.name == name) {
                c = s.color;
                outline = s.outline;
            }
        const bool visible = isSeriesVisible(name);
        p.fillRect(rect, QColor(0, 0, 0, 130));
        const QRectF box(rect.left() + 4, rect.center().y() - swatch / 2, swatch, swatch);
        if (visible && !outline)
            p.fillRect(box, c);
        p.setPen(QPen(c, outline ? 2 : 1));
        p.drawRect(box);
        p.setPen(visible ? kText : QColor(110, 110, 110));
        QFont f = p.font();
        f.setStrikeOut(!visible);
        p.save();
        p.setFont(f);
        p.drawText(QRectF(box.right() + 4, rect.top(), rect.width() - swatch - 8, rect.height()), Qt::AlignVCenter, name);
        p.restore();
    }
    const QRectF titleRect = placed.referenceTitle;
    if (!titleRect.isEmpty()) {
        p.fillRect(titleRect, QColor(0, 0, 0, 130));
        p.setPen(QPen(QColor(200, 200, 200), 1, Qt::DashLine));
        const double y = titleRect.center().y();
        p.drawLine(QPointF(titleRect.left() + 4, y), QPointF(titleRect.left() + 4 + swatch, y));
        p.setPen(QColor(200, 200, 200));
        p.drawText(titleRect.adjusted(swatch + 8, 0, -4, 0), Qt::AlignVCenter | Qt::AlignLeft,
                   fm.elidedText(m_display.referenceTitle, Qt::ElideMiddle, titleRect.width() - swatch - 12));
    }

    if (withHover && m_hoverX >= 0 && !m_hoverText.isEmpty()) {
        p.setPen(QColor(255, 255, 255, 120));
        p.drawLine(QPointF(m_hoverX, r.top()), QPointF(m_hoverX, r.bottom()));
        const double w = fm.horizontalAdvance(m_hoverText) + 12, h = fm.height() + 6;
        double x = m_hoverX + 10;
        if (x + w > r.right())
            x = std::max(r.left(), m_hoverX - 10 - w);
        const QRectF box(x, r.top() + 6, w, h);
        p.fillRect(box, QColor(0, 0, 0, 190));
        p.setPen(Qt::white);
        p.drawText(box, Qt::AlignCenter, m_hoverText);
    }
}

void HistogramView::paintBand(QPainter& p, const Band& band, const QVector<Tick>& xTicks, bool stacked) const
{
    const QRectF r = band.rect;
    const double top = band.peak;
    const QFontMetricsF fm(p.font());
    const QVector<Tick> yTicks = countTicksOf(band, stacked);

    // Grid under everything.
    p.setRenderHint(QPainter::Antialiasing, false);
    p.setPen(kGrid);
    for (const Tick& t : xTicks)
        p.drawLine(QPointF(t.position, r.top()), QPointF(t.position, r.bottom()));
    for (const Tick& t : yTicks)
        p.drawLine(QPointF(r.left(), t.position), QPointF(r.right(), t.position));
    p.setPen(kAxis);
    p.drawRect(r);

    // One column per pixel: the fullest bin that falls into it, so narrow spikes stay visible.
    auto pathOf = [&](const HistogramSeries& series, double lo, double hiOfBins, bool closed, double scale = 1.0) {
        QPainterPath path;
        const QVector<double>& counts = envelopeOf(series);
        const int bins = int(counts.size());
        if (bins == 0 || !(hiOfBins > lo) || series.counts.isEmpty())
            return path;
        // The last group may hold fewer bins: the envelope spans whole groups (the clip trims it).
        const double hi = lo + (hiOfBins - lo) * double(bins) * binsPerGroup(series) / double(series.counts.size());
        // Map this series' [lo, hi) onto the axis (a reference may span another range).
        const double x0 = r.left() + (lo - m_display.lo) / (m_display.hi - m_display.lo) * r.width();
        const double span = (hi - lo) / (m_display.hi - m_display.lo) * r.width();
        const int cols = std::max(1, int(std::round(span)));
        const double colWidth = span / cols;
        for (int col = 0; col < cols; ++col) {
            const int b0 = int(std::int64_t(col) * bins / cols);
            const int b1 = std::max(b0 + 1, int(std::int64_t(col + 1) * bins / cols));
            double v = 0;
            for (int b = b0; b < b1 && b < bins; ++b)
                v = std::max(v, counts[b]);
            v *= scale;
            const double y = r.bottom() - countToUnit(v, top) * r.height();
            const double xa = x0 + col * colWidth, xb = x0 + (col + 1) * colWidth;
            if (col > 0) {
                path.lineTo(xa, y);
            } else if (closed) {
                path.moveTo(xa, r.bottom());
                path.lineTo(xa, y);
            } else {
                path.moveTo(xa, y);
            }
            path.lineTo(xb, y);
        }
        if (closed) {
            path.lineTo(x0 + span, r.bottom());
            path.closeSubpath();
        }
        return path;
    };
    p.save();
    p.setClipRect(r);
    // Fills add up where channels overlap (R + G + B reads as white), as on a colourist's scope.
    p.setCompositionMode(QPainter::CompositionMode_Plus);
    for (const HistogramSeries& s : m_display.series) {
        if (s.outline || !band.series.contains(s.name))
            continue;
        const QColor c = s.color;
        const QColor fill(int(c.red() * 0.62), int(c.green() * 0.62), int(c.blue() * 0.62));
        p.fillPath(pathOf(s, m_display.lo, m_display.hi, true), fill);
    }
    p.setCompositionMode(QPainter::CompositionMode_SourceOver);
    p.setRenderHint(QPainter::Antialiasing, true);
    for (const HistogramSeries& s : m_display.series) {
        if (!band.series.contains(s.name))
            continue;
        p.setPen(QPen(s.outline ? s.color : s.color.lighter(115), s.outline ? 1.6 : 1.0));
        p.drawPath(pathOf(s, m_display.lo, m_display.hi, false));
    }
    for (const HistogramSeries& s : m_display.reference) {
        if (!band.series.contains(s.name))
            continue;
        p.setPen(QPen(s.color, 1.2, Qt::DashLine));
        p.drawPath(pathOf(s, m_display.referenceLo, m_display.referenceHi, false, s.scale));
    }

    if (m_cumulative) {
        // Guides at the marked percentiles and one CDF per channel; their values are labelled
        // over everything once every band is drawn.
        for (double pct : m_marks) {
            const double y = r.bottom() - pct / 100.0 * r.height();
            p.setPen(QPen(QColor(150, 150, 150, 150), 1, Qt::DotLine));
            p.drawLine(QPointF(r.left(), y), QPointF(r.right(), y));
        }
        for (const HistogramSeries& s : m_display.series) {
            if (!band.series.contains(s.name))
                continue;
            const QVector<double> cumulative = cumulativeOf(s);
            const double total = cumulative.isEmpty() ? 0 : cumulative.last();
            const int bins = int(s.counts.size());
            if (total <= 0 || bins == 0)
                continue;
            const int group = binsPerGroup(s);
            QPainterPath cdf;
            cdf.moveTo(r.left(), r.bottom());
            for (int g = 0; g < cumulative.size(); ++g) {
                const int end = std::min(bins, (g + 1) * group);
                cdf.lineTo(r.left() + double(end) * r.width() / bins, r.bottom() - cumulative[g] / total * r.height());
            }
            p.setPen(QPen(s.color.lighter(150), 1.5));
            p.drawPath(cdf);
        }
    }
    p.restore();

    // This band's count ticks (left) and cumulative % ticks (right).
    p.setRenderHint(QPainter::Antialiasing, false);
    for (const Tick& t : yTicks) {
        p.setPen(kAxis);
        p.drawLine(QPointF(r.left() - 4, t.position), QPointF(r.left(), t.position));
        p.setPen(kText);
        const double w = fm.horizontalAdvance(t.label);
        p.drawText(QPointF(r.left() - 6 - w, t.position + fm.ascent() / 2 - 1), t.label);
    }
    for (const Tick& t : percentTicksOf(band)) {
        p.setPen(kAxis);
        p.drawLine(QPointF(r.right(), t.position), QPointF(r.right() + 4, t.position));
        p.setPen(kText);
        p.drawText(QPointF(r.right() + 6, t.position + fm.ascent() / 2 - 1), t.label);
    }
}

void HistogramView::mouseMoveEvent(QMouseEvent* event)
{
    m_hoverX = int(event->position().x());
    m_hoverText = readoutAt(m_hoverX);
    emit hovered(m_hoverText);
    update();
}

void HistogramView::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton)
        return QWidget::mousePressEvent(event);
    for (const auto& [name, rect] : legendEntries(size()))
        if (rect.contains(event->position())) {
            toggleSeries(name);
            return;
        }
}

void HistogramView::leaveEvent(QEvent*)
{
    m_hoverX = -1;
    m_hoverText.clear();
    emit hovered(QString());
    update();
}

void HistogramView::contextMenuEvent(QContextMenuEvent* event)
{
    if (m_display.isEmpty())
        return;
    QMenu menu(this);
    for (const HistogramSeries& s : m_display.series) {
        QAction* action = menu.addAction(tr("Show %1").arg(s.name));
        action->setCheckable(true);
        action->setChecked(isSeriesVisible(s.name));
        connect(action, &QAction::triggered, this, [this, name = s.name] { toggleSeries(name); });
    }
    menu.exec(event->globalPos());
}
