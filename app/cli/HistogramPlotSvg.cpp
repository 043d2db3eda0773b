#include "app/cli/HistogramPlotSvg.h"

#include <algorithm>

QString histogramSvg(const QString& title, const QVector<NamedChannel>& channels)
{
    const int width = 640, height = 300, left = 40, top = 28, plotW = 580, plotH = 240;
    auto color = [](const QString& name) {
        if (name == "R") return QStringLiteral("#eb5046");
        if (name == "G") return QStringLiteral("#5ac85a");
        if (name == "B") return QStringLiteral("#508cf0");
        return QStringLiteral("#888888");
    };
    double peak = 1;
    for (const auto& c : channels)
        for (std::uint64_t v : c.histogram->counts)
            peak = std::max(peak, double(v));
    QString svg = QStringLiteral("<svg xmlns='http://www.w3.org/2000/svg' width='%1' height='%2' font-family='sans-serif' font-size='12'>\n"
                                 "<rect width='100%' height='100%' fill='white'/>\n<text x='%3' y='18'>%4</text>\n"
                                 "<rect x='%3' y='%5' width='%6' height='%7' fill='none' stroke='#444'/>\n")
                      .arg(width).arg(height).arg(left).arg(title.toHtmlEscaped()).arg(top).arg(plotW).arg(plotH);
    for (const auto& [name, h] : channels) {
        const int bins = int(h->counts.size());
        QString points = QStringLiteral("%1,%2 ").arg(left).arg(top + plotH);
        const int columns = std::min(bins, plotW);
        for (int col = 0; col < columns; ++col) {
            double v = 0;
            for (int b = int(qint64(col) * bins / columns); b < int(qint64(col + 1) * bins / columns); ++b)
                v = std::max(v, double(h->counts[std::size_t(b)]));
            const double x0 = left + double(col) * plotW / columns, x1 = left + double(col + 1) * plotW / columns;
            const double y = top + plotH - v / peak * plotH;
            points += QStringLiteral("%1,%2 %3,%2 ").arg(x0, 0, 'f', 1).arg(y, 0, 'f', 1).arg(x1, 0, 'f', 1);
        }
        points += QStringLiteral("%1,%2").arg(left + plotW).arg(top + plotH);
        svg += QStringLiteral("<polygon points='%1' fill='%2' fill-opacity='0.45' stroke='%2'/>\n").arg(points, color(name));
    }
    svg += QStringLiteral("</svg>\n");
    return svg;
}
