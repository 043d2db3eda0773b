// The pinned reference of Compare and its distances from the current histogram. The
// cv::compareHist distances are measured off the GUI thread, one pair at a time: while one is
// measured, only the newest pair waits, so a playing video never queues a backlog.
#pragma once

#include "app/core/HistogramDistances.h"
#include "app/core/HistogramSnapshot.h"

#include <QFutureWatcher>
#include <QObject>

class ReferenceComparison : public QObject {
    Q_OBJECT

public:
    explicit ReferenceComparison(QObject* parent = nullptr);

    // `name` says where the reference came from (the file, and the frame of a video).
    void pin(const SnapshotPtr& snapshot, const QString& name);
    void clear();
    SnapshotPtr reference() const { return m_reference; }
    QString name() const { return m_name; }
    // The reference as Compare lists it: its name, size and bins; empty when none is pinned.
    QString description() const;

    // The histogram shown now (none: a new source has none yet); measured against the
    // reference when one is pinned.
    void setCurrent(const SnapshotPtr& snapshot);

signals:
    // Only while a reference is pinned: a distance measured before it was cleared is not told.
    void distancesReady(const HistogramDistances& distances);

private:
    void measure();

    SnapshotPtr m_reference;
    QString m_name;
    SnapshotPtr m_current;
    QFutureWatcher<HistogramDistances> m_watcher;
    bool m_pending = false;   // the pair changed while one was being measured
};
