#include "app/cli/FileJob.h"

namespace {

qint64 nowMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

qint64 recordBytes(const HistogramRecord& r) { return qint64(r.histogram.counts.size() * sizeof(std::uint64_t)) + 256; }

}  // namespace

bool FileJob::push(HistogramRecord record)
{
    std::unique_lock lock(m_mutex);
    m_changed.wait(lock, [&] { return m_cancelled || m_queue.empty() || m_queuedBytes < kQueueBytes; });
    if (m_cancelled)
        return false;
    m_queuedBytes += recordBytes(record);
    m_queue.push_back(std::move(record));
    m_changed.notify_all();
    return true;
}

void FileJob::beat() { m_lastBeat = nowMs(); }

void FileJob::finish(const Error& error, const QStringList& warnings, qint64 frames)
{
    std::lock_guard lock(m_mutex);
    m_error = error;
    m_warnings = warnings;
    m_frames = frames;
    m_done = true;
    m_changed.notify_all();
}

FileJob::Event FileJob::wait(HistogramRecord& record, std::chrono::milliseconds timeout)
{
    std::unique_lock lock(m_mutex);
    m_changed.wait_for(lock, timeout, [&] { return !m_queue.empty() || m_done; });
    if (!m_queue.empty()) {
        record = std::move(m_queue.front());
        m_queue.pop_front();
        m_queuedBytes -= recordBytes(record);
        m_changed.notify_all();
        return Event::Record;
    }
    return m_done ? Event::Done : Event::Idle;
}

void FileJob::cancel()
{
    std::lock_guard lock(m_mutex);
    m_cancelled = true;
    m_queue.clear();
    m_queuedBytes = 0;
    m_changed.notify_all();
}

qint64 FileJob::idleMilliseconds() const { return nowMs() - m_lastBeat; }

Error FileJob::error() const
{
    std::lock_guard lock(m_mutex);
    return m_error;
}

QStringList FileJob::warnings() const
{
    std::lock_guard lock(m_mutex);
    return m_warnings;
}

qint64 FileJob::frames() const
{
    std::lock_guard lock(m_mutex);
    return m_frames;
}
