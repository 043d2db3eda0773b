#include "io/MemoryBudget.h"

#include <QRegularExpression>

#include <chrono>
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

bool MemoryPool::acquire(std::uint64_t bytes, const std::function<bool()>& keepWaiting,
                         const std::function<bool()>& mayExceed)
{
    std::unique_lock lock(m_mutex);
    bool waited = false;
    std::uint64_t releases = m_releases;
    auto stalledSince = std::chrono::steady_clock::now();
    // A request is granted when it fits beside what is held, or when nothing is held at all.
    while (m_held > 0 && bytes > m_total - std::min(m_held, m_total)) {
        if (!waited) {
            waited = true;
            ++m_waits;
        }
        m_freed.wait_for(lock, std::chrono::milliseconds(100));
        if (m_releases != releases) {
            releases = m_releases;
            stalledSince = std::chrono::steady_clock::now();
        }
        lock.unlock();  // the caller's checks may take locks of their own
        const bool keep = !keepWaiting || keepWaiting();
        const bool exceed = mayExceed && std::chrono::steady_clock::now() - stalledSince >= std::chrono::seconds(1) && mayExceed();
        lock.lock();
        if (!keep)
            return false;
        if (exceed)
            break;
    }
    m_held += bytes;
    return true;
}

void MemoryPool::release(std::uint64_t bytes)
{
    {
        std::lock_guard lock(m_mutex);
        m_held -= std::min(bytes, m_held);
        ++m_releases;
    }
    m_freed.notify_all();
}

std::uint64_t MemoryPool::held() const
{
    std::lock_guard lock(m_mutex);
    return m_held;
}

std::uint64_t MemoryPool::waits() const
{
    std::lock_guard lock(m_mutex);
    return m_waits;
}
