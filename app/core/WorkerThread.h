// The thread a controller's worker runs on: a QThread with one context object, so that work
// posted from the controller's thread runs there in order, none dropped or merged (Qt's
// posted-event queue of that thread is the queue). Objects given to adopt() move to the thread
// and are deleted there when it ends. Stopping discards work not yet started; work in progress
// finishes first. The one home of this pattern: the histogram, scope, equalization and media
// controllers each hold one.
#pragma once

#include <QObject>
#include <QThread>

#include <utility>

class WorkerThread {
public:
    explicit WorkerThread(const QString& name);
    ~WorkerThread();
    WorkerThread(const WorkerThread&) = delete;
    WorkerThread& operator=(const WorkerThread&) = delete;

    void adopt(QObject* object);
    // Runs `work()` on the thread, after everything posted before it.
    template <typename F>
    void post(F&& work)
    {
        QMetaObject::invokeMethod(m_context, std::forward<F>(work), Qt::QueuedConnection);
    }
    // Quits and waits. `timeoutMs` < 0 waits for ever; else false when the thread is still busy
    // after it (it is then left to end on its own, and deletes what it adopted when it does).
    bool stop(int timeoutMs = -1);
    QThread* thread() { return m_thread; }
    QObject* context() { return m_context; }

private:
    QThread* m_thread;
    QObject* m_context;   // lives on m_thread
    bool m_stopped = false;
};
