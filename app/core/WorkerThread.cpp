#include "app/core/WorkerThread.h"

WorkerThread::WorkerThread(const QString& name) : m_thread(new QThread), m_context(new QObject)
{
    m_context->moveToThread(m_thread);
    QObject::connect(m_thread, &QThread::finished, m_context, &QObject::deleteLater);
    m_thread->setObjectName(name);
    m_thread->start();
}

WorkerThread::~WorkerThread() { stop(); }

void WorkerThread::adopt(QObject* object)
{
    object->moveToThread(m_thread);
    QObject::connect(m_thread, &QThread::finished, object, &QObject::deleteLater);
}

bool WorkerThread::stop(int timeoutMs)
{
    if (m_stopped)
        return true;
    m_stopped = true;
    m_thread->quit();
    if (m_thread->wait(timeoutMs < 0 ? QDeadlineTimer(QDeadlineTimer::Forever) : QDeadlineTimer(timeoutMs))) {
        delete m_thread;
        return true;
    }
    // Still inside a blocking call (a live source's read): it ends on its own; the thread
    // object goes with it.
    QObject::connect(m_thread, &QThread::finished, m_thread, &QObject::deleteLater);
    return false;
}
