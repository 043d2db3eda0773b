#include "app/core/StatisticsText.h"

#include <algorithm>
#include <cmath>

QString estimateText(double value, double resolution)
{
    if (!(resolution > 0) || !std::isfinite(resolution) || !std::isfinite(value))
        return QStringLiteral("≈") + QString::number(value, 'g', 6);
    // The decimal place of the bin width: finer digits are the bin's edge, not the data.
    const int place = int(std::floor(std::log10(resolution)));
    const double step = std::pow(10.0, place);
    const double rounded = std::round(value / step) * step + 0.0;   // + 0.0: never "-0"
    if (std::abs(rounded) < 1e15 && place >= -15)
        return QStringLiteral("≈") + QString::number(rounded, 'f', std::max(0, -place));
    const int magnitude = value == 0 ? place : int(std::floor(std::log10(std::abs(value))));
    return QStringLiteral("≈") + QString::number(value, 'g', std::clamp(magnitude - place + 1, 1, 17));
}

QString statisticText(double value, const hs::ChannelStatistics& statistics)
{
    return statistics.exact ? QString::number(value, 'g', 6) : estimateText(value, statistics.resolution);
}

QString precisionText(const hs::ChannelStatistics& statistics)
{
    if (statistics.exact)
        return QStringLiteral("exact");
    const QString bins = QStringLiteral("bins of %1").arg(QString::number(statistics.resolution, 'g', 3));
    return statistics.coarse ? QStringLiteral("coarse: ") + bins : bins;
}
