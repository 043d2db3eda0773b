#include "io/MemoryBudget.h"

#include <QRegularExpression>

#include <cmath>
#include <unistd.h>

std::uint64_t machineMemoryBytes()
{
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : std::uint64_t(4) << 30;
}

std::uint64_t defaultMemoryBudget() { return machineMemoryBytes() / 2; }

QString formatBytes(std::uint64_t bytes)
{
    static const char* units[] = {"bytes", "kB", "MB", "GB", "TB", "PB", "EB"};
    double v = double(bytes);
    int unit = 0;
    while (v >= 1000 && unit < 6) {
        v /= 1000;
        ++unit;
    }
    return unit == 0 ? QStringLiteral("%1 bytes").arg(bytes) : QStringLiteral("%1 %2").arg(v, 0, 'f', 1).arg(QLatin1String(units[unit]));
}

std::optional<std::uint64_t> parseBytes(const QString& text)
{
    static const QRegularExpression re(QStringLiteral("^\\s*(\\d+(?:\\.\\d+)?)\\s*([kKmMgGtT]?)[bB]?\\s*$"));
    const auto m = re.match(text);
    if (!m.hasMatch())
        return std::nullopt;
    bool ok = false;
    const double number = m.captured(1).toDouble(&ok);
    const QString unit = m.captured(2).toUpper();
    const double scale = unit == "K" ? 1e3 : unit == "M" ? 1e6 : unit == "G" ? 1e9 : unit == "T" ? 1e12 : 1;
    const double bytes = number * scale;
    if (!ok || !std::isfinite(bytes) || bytes < 1 || bytes >= 1.8e19)
        return std::nullopt;
    return std::uint64_t(bytes);
}
