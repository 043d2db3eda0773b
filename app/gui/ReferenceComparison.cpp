#include "app/gui/ReferenceComparison.h"

#include <QtConcurrent/QtConcurrentRun>

#include <utility>

ReferenceComparison::ReferenceComparison(QObject* parent) : QObject(parent)
{
    connect(&m_watcher, &QFutureWatcher<HistogramDistances>::finished, this, [this] {
        const HistogramDistances d = m_watcher.result();
        if (m_reference)
            emit distancesReady(d);
        if (std::exchange(m_pending, false))
            measure();
    });
}

void ReferenceComparison::pin(const SnapshotPtr& snapshot, const QString& name)
{
    m_reference = snapshot;
    m_name = name;
    measure();
}

void ReferenceComparison::clear()
{
    m_reference.reset();
    m_name.clear();
}

QString ReferenceComparison::description() const
{
    if (!m_reference)
        return {};
    return tr("%1 (%2×%3, %4 bins)")
        .arg(m_name)
        .arg(m_reference->frame.width())
        .arg(m_reference->frame.height())
        .arg(m_reference->result.channels.empty() ? 0 : m_reference->result.channels.front().counts.size());
}

void ReferenceComparison::setCurrent(const SnapshotPtr& snapshot)
{
    m_current = snapshot;
    measure();
}

void ReferenceComparison::measure()
{
    if (!m_reference || !m_current)
        return;
    if (m_watcher.isRunning()) {
        m_pending = true;
        return;
    }
    m_watcher.setFuture(QtConcurrent::run(
        [current = m_current, reference = m_reference] { return histogramDistances(*current, *reference); }));
}
