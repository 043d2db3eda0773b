#include "app/cli/HistogramPlotSvg.h"

#include "histoscope/HistogramStatistics.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>

namespace {

constexpr int kWidth = 640, kHeight = 300;
constexpr double kLeft = 64, kTop = 44, kPlotW = 540, kPlotH = 206;
constexpr double kRight = kLeft + kPlotW, kBottom = kTop + kPlotH;
constexpr double kLabelSize = 11;
// A long path would run past the legend and the edge: about what 12 px sans-serif fits across.
constexpr qsizetype kTitleChars = 92;

QString channelColor(const QString& name)
{
    // Darker than the app's fills (drawn on a dark background there): these also colour the
    // legend's text, which must read on white.
    if (name == QLatin1String("R")) return QStringLiteral("#d9453b");
    if (name == QLatin1String("G")) return QStringLiteral("#2f9e44");
    if (name == QLatin1String("B")) return QStringLiteral("#3d7ae0");
    if (name == QLatin1String("A")) return QStringLiteral("#9467bd");   // apart from gray in gray+alpha
    return QStringLiteral("#555555");
}

// For text and for attribute values quoted with '. A file name may hold characters XML 1.0
// cannot carry even as a reference (control characters, unpaired surrogates): those become
// U+FFFD, so the document stays well-formed.
QString xmlEscaped(const QString& text)
{
    QString out;
    out.reserve(text.size() + 16);
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (c.isHighSurrogate() && i + 1 < text.size() && text[i + 1].isLowSurrogate()) {
            out += c;
            out += text[++i];
            continue;
        }
        switch (c.unicode()) {
        case '&': out += QLatin1String("&amp;"); break;
        case '<': out += QLatin1String("&lt;"); break;
        case '>': out += QLatin1String("&gt;"); break;
        case '"': out += QLatin1String("&quot;"); break;
        case '\'': out += QLatin1String("&#39;"); break;
        default: {
            const bool allowed = (c.unicode() >= 0x20 || c == u'\t' || c == u'\n' || c == u'\r') && !c.isSurrogate()
                                 && c.unicode() < 0xFFFE;
            out += allowed ? c : QChar(QChar::ReplacementCharacter);
        }
        }
    }
    return out;
}

// Keeps the start and, longer, the end of a path: the file name is what tells plots apart.
QString elided(const QString& text, qsizetype maxChars)
{
    if (text.size() <= maxChars)
        return text;
    const qsizetype tail = maxChars * 2 / 3;
    return text.left(maxChars - tail - 1) + QChar(0x2026) + text.right(tail);
}

// Whole numbers exactly (8-, 16- and 32-bit edges), others to a float sample's 7 digits, or
// more where the range is narrow beside its magnitude, so its two edges never read the same.
QString valueLabel(double v, int digits)
{
    if (v == std::floor(v) && std::abs(v) < 1e15)
        return QString::number(qint64(v));
    return QString::number(v, 'g', digits);
}

int digitsFor(double lo, double hi)
{
    const double magnitude = std::max(std::abs(lo), std::abs(hi)) / (hi - lo);
    return std::clamp(int(std::ceil(std::log10(std::max(magnitude, 1.0)))) + 3, 7, 17);
}

// Exact below `exactBelow`, else 3 significant digits and an SI prefix. The prefix is chosen
// after rounding, so 999 999 reads 1M rather than 1e+03k.
QString countLabel(double v, double exactBelow)
{
    if (v < exactBelow)
        return QString::number(qulonglong(std::llround(v)));
    static const char prefixes[] = "kMGTPE";
    double scaled = v;
    int prefix = -1;
    while (prefix < 5 && QString::number(scaled, 'g', 3).toDouble() >= 1000) {
        scaled /= 1000;
        ++prefix;
    }
    return QString::number(scaled, 'g', 3) + (prefix >= 0 ? QString(QLatin1Char(prefixes[prefix])) : QString());
}

// The smallest 1, 2, 2.5 or 5 times a power of ten that splits `span` into at most `parts`;
// never a fraction where the axis holds whole numbers (counts, integer edges).
double roundStep(double span, int parts, bool wholeNumbers)
{
    const double raw = span / parts;
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
        const double step = m * power;
        if (step >= raw && (!wholeNumbers || step == std::floor(step)))
            return step;
    }
    return 1;   // whole numbers split less than 0.1 apart: 1 is the least step there
}

// Sans-serif digits are about 0.55 em wide: enough to keep labels from touching.
double textWidth(const QString& text, double size) { return double(text.size()) * size * 0.6; }

QString num(double v) { return QString::number(v, 'f', 1); }

struct Tick {
    double at;   // pixels along the axis
    QString text;
};

// Adds the tick unless its label would touch one already placed (the data's edges go first).
template <typename Extent>
void placeTick(QVector<Tick>& ticks, Tick tick, Extent extent)
{
    for (const Tick& t : ticks)
        if (std::abs(t.at - tick.at) < extent(t.text, tick.text))
            return;
    ticks.append(std::move(tick));
}

}  // namespace

QString histogramSvg(const QString& title, const QVector<NamedChannel>& channels)
{
    // One value axis across every channel's bin edges, never past them.
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    std::uint64_t peak = 0;
    QVector<NamedChannel> drawn;
    for (const NamedChannel& c : channels) {
        if (!c.histogram || c.histogram->counts.empty())
            continue;
        drawn.append(c);
        lo = std::min(lo, hs::binLowerEdge(c.histogram->binning, 0));
        hi = std::max(hi, hs::upperEdge(c.histogram->binning));
        for (std::uint64_t v : c.histogram->counts)
            peak = std::max(peak, v);
    }
    const bool hasAxis = !drawn.isEmpty() && hi > lo && std::isfinite(hi - lo);
    if (!hasAxis)
        drawn.clear();
    auto xOf = [&](double v) { return kLeft + (v - lo) / (hi - lo) * kPlotW; };
    const double scale = double(std::max<std::uint64_t>(peak, 1));
    auto yOf = [&](double count) { return kBottom - count / scale * kPlotH; };

    QString svg = QStringLiteral("<?xml version='1.0' encoding='UTF-8'?>\n"
                                 "<svg xmlns='http://www.w3.org/2000/svg' width='%1' height='%2' viewBox='0 0 %1 %2' "
                                 "font-family='sans-serif' font-size='12'>\n<title>%3</title>\n"
                                 "<rect width='100%' height='100%' fill='white'/>\n"
                                 "<text class='title' x='8' y='17'>%4</text>\n")
                      .arg(kWidth)
                      .arg(kHeight)
                      .arg(xmlEscaped(title), xmlEscaped(elided(title, kTitleChars)));

    // The y ticks first: their grid lines go under the bars.
    QVector<Tick> yTicks{{kBottom, QStringLiteral("0")}};
    auto yExtent = [](const QString&, const QString&) { return kLabelSize + 5; };
    if (peak > 0) {
        placeTick(yTicks, {kTop, countLabel(double(peak), 1e7)}, yExtent);
        const double step = roundStep(double(peak), 5, true);
        // One form for all the round counts: 5k beside 10k, not 5000.
        const double exactBelow = peak >= 10'000 ? 1000 : 10'000;
        for (double k = 1; k * step < double(peak); ++k)
            placeTick(yTicks, {yOf(k * step), countLabel(k * step, exactBelow)}, yExtent);
    }
    svg += QStringLiteral("<g class='grid' stroke='#e6e6e6'>\n");
    for (const Tick& t : yTicks)
        if (t.at > kTop && t.at < kBottom)
            svg += QStringLiteral("<line x1='%1' y1='%2' x2='%3' y2='%2'/>\n").arg(num(kLeft), num(t.at), num(kRight));
    svg += QStringLiteral("</g>\n<rect class='plot-area' x='%1' y='%2' width='%3' height='%4' fill='none' stroke='#444'/>\n")
               .arg(num(kLeft), num(kTop), num(kPlotW), num(kPlotH));

    svg += QStringLiteral("<g class='bars' fill-opacity='0.45' stroke-linejoin='round'>\n");
    for (const auto& [name, h] : drawn) {
        const int bins = int(h->counts.size());
        const double x0 = xOf(hs::binLowerEdge(h->binning, 0)), x1 = xOf(hs::upperEdge(h->binning));
        // At most one column per pixel, each the highest of its bins, so no peak is lost.
        const int columns = std::clamp(int(std::ceil(x1 - x0)), 1, bins);
        QString points = QStringLiteral("%1,%2 ").arg(num(x0), num(kBottom));
        for (int col = 0; col < columns; ++col) {
            std::uint64_t v = 0;
            for (int b = int(qint64(col) * bins / columns); b < int(qint64(col + 1) * bins / columns); ++b)
                v = std::max(v, h->counts[std::size_t(b)]);
            const double c0 = x0 + (x1 - x0) * col / columns, c1 = x0 + (x1 - x0) * (col + 1) / columns;
            points += QStringLiteral("%1,%2 %3,%2 ").arg(num(c0), num(yOf(double(v))), num(c1));
        }
        points += QStringLiteral("%1,%2").arg(num(x1), num(kBottom));
        svg += QStringLiteral("<polygon points='%1' fill='%2' stroke='%2'/>\n").arg(points, channelColor(name));
    }
    svg += QStringLiteral("</g>\n");

    svg += QStringLiteral("<g class='y-axis' font-size='%1' text-anchor='end' fill='#222'>\n").arg(kLabelSize);
    svg += QStringLiteral("<text class='caption' x='8' y='%1' font-size='10' text-anchor='start' fill='#555'>count (linear)</text>\n")
               .arg(num(kTop - 14));
    for (const Tick& t : yTicks)
        svg += QStringLiteral("<line x1='%1' y1='%2' x2='%3' y2='%2' stroke='#444'/><text x='%4' y='%5'>%6</text>\n")
                   .arg(num(kLeft - 4), num(t.at), num(kLeft), num(kLeft - 6), num(t.at + 4), xmlEscaped(t.text));
    svg += QStringLiteral("</g>\n");

    if (hasAxis) {
        QVector<Tick> xTicks;
        auto xExtent = [](const QString& a, const QString& b) { return (textWidth(a, kLabelSize) + textWidth(b, kLabelSize)) / 2 + 6; };
        const int digits = digitsFor(lo, hi);
        placeTick(xTicks, {kLeft, valueLabel(lo, digits)}, xExtent);
        placeTick(xTicks, {kRight, valueLabel(hi, digits)}, xExtent);
        const double step = roundStep(hi - lo, 6, lo == std::floor(lo) && hi == std::floor(hi));
        // Multiples of the step counted from zero, so they read round whatever the edges are.
        for (double k = std::floor(lo / step) + 1; k * step < hi; ++k)
            placeTick(xTicks, {xOf(k * step), valueLabel(k * step, digits)}, xExtent);
        std::sort(xTicks.begin(), xTicks.end(), [](const Tick& a, const Tick& b) { return a.at < b.at; });
        svg += QStringLiteral("<g class='x-axis' font-size='%1' text-anchor='middle' fill='#222'>\n").arg(kLabelSize);
        for (const Tick& t : xTicks) {
            // A long edge label (-1.234568e-05) moves inward rather than past the picture's edge.
            const double half = textWidth(t.text, kLabelSize) / 2 + 2;
            svg += QStringLiteral("<line x1='%1' y1='%2' x2='%1' y2='%3' stroke='#444'/><text x='%4' y='%5'>%6</text>\n")
                       .arg(num(t.at), num(kBottom), num(kBottom + 4), num(std::clamp(t.at, half, kWidth - half)),
                            num(kBottom + 16), xmlEscaped(t.text));
        }
        const bool sameBins = std::all_of(drawn.begin(), drawn.end(), [&](const NamedChannel& c) {
            return c.histogram->counts.size() == drawn.front().histogram->counts.size();
        });
        const QString caption = sameBins ? QStringLiteral("value (%1 bins)").arg(drawn.front().histogram->counts.size())
                                         : QStringLiteral("value");
        svg += QStringLiteral("<text class='caption' x='%1' y='%2' font-size='10' text-anchor='start' fill='#555'>%3</text>\n</g>\n")
                   .arg(num(kLeft), num(kHeight - 10), caption);
    }

    if (drawn.size() > 1) {
        // Right-aligned under the axis, away from the bars and from a long title.
        const double swatch = 10, gap = 4, spacing = 14;
        double x = kRight;
        for (const auto& c : drawn)
            x -= swatch + gap + textWidth(c.name, kLabelSize) + spacing;
        x += spacing;
        svg += QStringLiteral("<g class='legend' font-size='%1'>\n").arg(kLabelSize);
        for (const auto& c : drawn) {
            const QString color = channelColor(c.name);
            svg += QStringLiteral("<rect x='%1' y='%2' width='%3' height='%3' fill='%4' fill-opacity='0.45' stroke='%4'/>"
                                  "<text x='%5' y='%6' fill='%4'>%7</text>\n")
                       .arg(num(x), num(kHeight - 19), num(swatch), color, num(x + swatch + gap), num(kHeight - 10),
                            xmlEscaped(c.name));
            x += swatch + gap + textWidth(c.name, kLabelSize) + spacing;
        }
        svg += QStringLiteral("</g>\n");
    }
    svg += QStringLiteral("</svg>\n");
    return svg;
}
