// "Newest wins": a one-value mailbox between a producer thread and a consumer thread. put()
// replaces a value the consumer has not taken yet and counts it as replaced (unless the
// optional `sameItem` says the new value carries the same item, e.g. the same frame submitted
// again with other settings: then nothing was lost); take() empties the slot. put() says whether the slot was empty, so a producer wakes its consumer once per
// value taken instead of once per value put. Used for live frames only: one-shot jobs travel
// as queued invocations, which are never replaced.
#pragma once

#include <QtGlobal>

#include <functional>
#include <mutex>
#include <optional>
#include <utility>

template <typename T>
class LatestSlot {
public:
    using SameItem = std::function<bool(const T& replaced, const T& by)>;
    explicit LatestSlot(SameItem sameItem = {}) : m_sameItem(std::move(sameItem)) {}

    // Returns true when the slot was empty (the consumer must be woken).
    bool put(T value)
    {
        std::optional<T> replaced;  // destroyed outside the lock
        std::lock_guard lock(m_mutex);
        const bool wasEmpty = !m_value.has_value();
        if (!wasEmpty) {
            if (!m_sameItem || !m_sameItem(*m_value, value))
                ++m_replaced;
            replaced = std::move(m_value);
        }
        m_value = std::move(value);
        ++m_put;
        return wasEmpty;
    }

    std::optional<T> take()
    {
        std::lock_guard lock(m_mutex);
        return std::exchange(m_value, std::nullopt);
    }

    // Empties the slot and zeroes the counters (a new source starts).
    void reset()
    {
        std::optional<T> old;
        std::lock_guard lock(m_mutex);
        old = std::exchange(m_value, std::nullopt);
        m_put = 0;
        m_replaced = 0;
    }

    // Values put since the last reset, taken or not.
    qint64 offered() const
    {
        std::lock_guard lock(m_mutex);
        return m_put;
    }
    // Values replaced before the consumer took them: never consumed.
    qint64 replaced() const
    {
        std::lock_guard lock(m_mutex);
        return m_replaced;
    }

private:
    const SameItem m_sameItem;
    mutable std::mutex m_mutex;
    std::optional<T> m_value;
    qint64 m_put = 0;
    qint64 m_replaced = 0;
};
