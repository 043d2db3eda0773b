// The one worker of the app: an engine on a thread of its own (WorkerThread), fed in two ways,
// with the device-lost policy of EngineHolder around every job.
//   - live jobs (submit): a "newest wins" slot. A job replaced before the worker took it is never
//     counted (replacedJobs()). Each gets a generation number from one counter, and the worker
//     passes on, on the receiver's thread, only a result newer than the last one passed on and
//     not older than the last invalidate() (a new source): a stale result is dropped
//     (staleResults()) and the newest frame wins;
//   - one-shot jobs (post): run in order after what was posted before, never replaced or
//     filtered, and each always answers.
// Results cross as shared pointers to const values. The histogram, scope and equalization
// controllers are thin fronts over one of these.
#pragma once

#include "app/core/EngineHolder.h"
#include "app/core/LatestSlot.h"
#include "app/core/WorkerThread.h"

#include <QObject>

#include <functional>
#include <memory>
#include <optional>

template <typename Engine, typename Job, typename Value>
class EngineWorker {
public:
    using ResultPtr = std::shared_ptr<const Value>;
    struct Hooks {
        std::function<bool(const Job&)> useGpu;                            // worker thread
        std::function<std::shared_ptr<Value>(Engine&, const Job&)> count;  // worker thread; must not throw
        std::function<QString(const Value&)> faultOf;                      // the cause of a device fault, or empty
        // Worker thread, once per result, after any recovery: where it ran, and the notice of a
        // fault survived while counting it (empty when none).
        std::function<void(Value&, const QString& backend, const QString& notice)> annotate;
        std::function<void(ResultPtr)> deliver;                            // receiver thread, newest only
        std::function<void(const QString&)> backendChanged;                // receiver thread
        std::function<void(const QString&)> deviceNotice;                  // receiver thread
    };

    EngineWorker(QObject* receiver, const QString& threadName, Hooks hooks,
                 typename LatestSlot<Job>::SameItem sameItem = {})
        : m_receiver(receiver),
          m_hooks(std::move(hooks)),
          m_jobs(std::make_shared<LatestSlot<Job>>(std::move(sameItem))),
          m_thread(threadName)
    {
    }
    ~EngineWorker()
    {
        m_jobs->reset();
        m_thread.stop();   // jobs not yet started are discarded; the holder goes after the thread
    }

    // From the receiver's thread. Returns the job's generation.
    quint64 submit(Job job)
    {
        job.generation = ++m_generation;
        const quint64 generation = job.generation;
        if (m_jobs->put(std::move(job)))
            m_thread.post([this] { countLatest(); });
        return generation;
    }
    // A generation for a one-shot job, from the same counter.
    quint64 nextGeneration() { return ++m_generation; }

    // One-shot: `work(holder)` on the worker thread, then `answer(result)` on the receiver's.
    template <typename Work, typename Answer>
    void post(Work work, Answer answer)
    {
        m_thread.post([this, work = std::move(work), answer = std::move(answer)]() mutable {
            auto result = work(m_holder);
            forwardEngineState();
            QMetaObject::invokeMethod(m_receiver, [answer = std::move(answer), result = std::move(result)]() mutable {
                answer(std::move(result));
            }, Qt::QueuedConnection);
        });
    }

    // Results of every job submitted so far are dropped when they arrive, and a job not yet
    // taken is discarded. One-shot jobs still answer.
    void invalidate()
    {
        m_floor = m_generation + 1;
        m_jobs->reset();
    }

    quint64 lastGeneration() const { return m_generation; }
    quint64 deliveredGeneration() const { return m_delivered; }
    qint64 replacedJobs() const { return m_jobs->replaced(); }
    qint64 staleResults() const { return m_stale; }
    QThread* thread() { return m_thread.thread(); }

private:
    void countLatest()   // worker thread
    {
        std::optional<Job> job = m_jobs->take();
        if (!job)
            return;
        std::shared_ptr<Value> result = m_holder.run(
            m_hooks.useGpu(*job), [&](Engine& engine) { return m_hooks.count(engine, *job); },
            [this](const std::shared_ptr<Value>& r) { return m_hooks.faultOf(*r); });
        const QString notice = forwardEngineState();
        if (m_hooks.annotate)
            m_hooks.annotate(*result, m_holder.description(), notice);
        QMetaObject::invokeMethod(m_receiver, [this, r = ResultPtr(std::move(result))] { onCounted(r); },
                                  Qt::QueuedConnection);
    }

    // Worker thread: tells the receiver where the engine now runs and what it survived.
    QString forwardEngineState()
    {
        const QString notice = m_holder.takeNotice();
        const QString description = m_holder.description();
        if (description != m_announced) {
            m_announced = description;
            if (m_hooks.backendChanged)
                QMetaObject::invokeMethod(m_receiver, [f = m_hooks.backendChanged, description] { f(description); },
                                          Qt::QueuedConnection);
        }
        if (!notice.isEmpty() && m_hooks.deviceNotice)
            QMetaObject::invokeMethod(m_receiver, [f = m_hooks.deviceNotice, notice] { f(notice); }, Qt::QueuedConnection);
        return notice;
    }

    void onCounted(const ResultPtr& result)   // receiver thread
    {
        if (result->generation <= m_delivered || result->generation < m_floor) {
            ++m_stale;
            return;
        }
        m_delivered = result->generation;
        m_hooks.deliver(result);
    }

    QObject* m_receiver;
    const Hooks m_hooks;
    EngineHolder<Engine> m_holder;   // worker thread only; destroyed after the thread stops
    QString m_announced;             // worker thread: the description last sent
    std::shared_ptr<LatestSlot<Job>> m_jobs;
    quint64 m_generation = 0;        // receiver thread, from here on
    quint64 m_delivered = 0;
    quint64 m_floor = 0;
    qint64 m_stale = 0;
    WorkerThread m_thread;           // last: stopped first
};
