// One input file between the worker that counts it and the main thread that writes its
// records. Records stream through a small bounded queue (so --per-frame never holds a video's
// records), the worker beats on each frame so a watchdog can tell a stuck decoder, and either
// side can give up without blocking the other.
#pragma once

#include "app/cli/BatchInputs.h"
#include "app/core/HistogramRecord.h"
#include "common/Error.h"

#include <QStringList>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>

class FileJob {
public:
    static constexpr qint64 kQueueBytes = qint64(16) << 20;

    explicit FileJob(InputFile input) : m_input(std::move(input)) { beat(); }
    const InputFile& input() const { return m_input; }

    // Worker side. push() waits while the queue is full; false once the reader gave up.
    bool push(HistogramRecord record);
    void beat();
    bool cancelled() const { return m_cancelled.load(); }
    // `error` unset: the file was counted (or given up on, cancelled).
    void finish(const Error& error, const QStringList& warnings, qint64 frames);

    // Main-thread side.
    enum class Event { Record, Done, Idle };
    Event wait(HistogramRecord& record, std::chrono::milliseconds timeout);
    // Set when the main thread waits for this job's records (it is first in line).
    void setFront() { m_front = true; }
    bool isFront() const { return m_front.load(); }
    void cancel();
    qint64 idleMilliseconds() const;
    Error error() const;
    QStringList warnings() const;
    qint64 frames() const;

private:
    InputFile m_input;
    mutable std::mutex m_mutex;
    std::condition_variable m_changed;
    std::deque<HistogramRecord> m_queue;
    qint64 m_queuedBytes = 0;
    bool m_done = false;
    std::atomic<bool> m_cancelled{false};
    std::atomic<bool> m_front{false};
    std::atomic<qint64> m_lastBeat{0};
    Error m_error;
    QStringList m_warnings;
    qint64 m_frames = 0;
};
