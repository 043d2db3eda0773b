// How much memory decoding may take. The default is half of the machine's memory, so a
// decompression bomb is refused from its header instead of taking the machine down;
// `--memory-budget` sets it. A batch's jobs share one budget through a MemoryPool: a file is
// refused only when it needs more than the whole budget, and otherwise waits until the files
// being decoded leave it room.
#pragma once

#include <QString>

#include <cstdint>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>

std::uint64_t machineMemoryBytes();
std::uint64_t defaultMemoryBudget();
// "1.5 GB", "512 MB", "1200 bytes".
QString formatBytes(std::uint64_t bytes);
// "8G", "512M", "64k", "1000000" (decimal units: k, M, G, T; an optional trailing B).
std::optional<std::uint64_t> parseBytes(const QString& text);

// Memory shared by the files decoded at once. acquire() waits while the others hold too much;
// a request larger than the whole pool is granted once nothing else is held (the file was
// checked against the whole budget already), so nothing waits for ever.
class MemoryPool {
public:
    explicit MemoryPool(std::uint64_t bytes) : m_total(bytes) {}
    std::uint64_t total() const { return m_total; }
    // Waits for `bytes`; `keepWaiting` is asked every 100 ms (a worker beats its watchdog
    // there) and ends the wait, unreserved, when it says false. `mayExceed` (may be empty) lets
    // a caller that others wait on take its share beyond the budget once nothing was released
    // for a second: the holders are then stuck behind it, and waiting longer would never end.
    bool acquire(std::uint64_t bytes, const std::function<bool()>& keepWaiting,
                 const std::function<bool()>& mayExceed = {});
    void release(std::uint64_t bytes);
    std::uint64_t held() const;
    // How many acquire() calls had to wait (for the tests).
    std::uint64_t waits() const;

private:
    const std::uint64_t m_total;
    mutable std::mutex m_mutex;
    std::condition_variable m_freed;
    std::uint64_t m_held = 0;
    std::uint64_t m_waits = 0;
    std::uint64_t m_releases = 0;  // how many releases so far, to tell a stalled pool
};

// Bytes held from a pool while it lives (a decoded image); nothing when there is no pool.
class MemoryReservation {
public:
    MemoryReservation() = default;
    MemoryReservation(MemoryPool* pool, std::uint64_t bytes) : m_pool(pool), m_bytes(bytes) {}
    ~MemoryReservation() { reset(); }
    MemoryReservation(const MemoryReservation&) = delete;
    MemoryReservation& operator=(const MemoryReservation&) = delete;
    void reset()
    {
        if (m_pool && m_bytes)
            m_pool->release(m_bytes);
        m_pool = nullptr;
        m_bytes = 0;
    }

private:
    MemoryPool* m_pool = nullptr;
    std::uint64_t m_bytes = 0;
};
