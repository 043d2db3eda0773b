// A statistic over time for the timeline: per frame, the mean of luma (or of the gray channel,
// or of the colour channels) and the share of samples clipped at the type's extremes. Built
// from snapshots as they are shown, and for a file by a background pass over every frame
// (TrendScanner) that counts them the way the histogram worker does, on an engine of its own.
#pragma once

#include "app/core/HistogramSnapshot.h"

#include <QFuture>
#include <QObject>
#include <QVector>

#include <atomic>
#include <memory>

struct FrameTrend {
    qint64 frame = -1;
    double mean = 0;           // in the data's units
    double clippedShare = 0;   // 0..1 of the counted colour (or gray) samples; NaN when unknown
};
Q_DECLARE_METATYPE(FrameTrend)

// What the mean is of: "mean luma", "mean gray", "mean of R, G, B".
QString frameTrendMeanName(const HistogramSnapshot& snapshot);
// Nothing when the snapshot holds no counts (an error, no channel selected).
std::optional<FrameTrend> frameTrendOf(const HistogramSnapshot& snapshot);

class TrendScanner : public QObject {
    Q_OBJECT

public:
    explicit TrendScanner(QObject* parent = nullptr);
    ~TrendScanner() override;   // cancels and waits for every pass (none waits on this thread)

    // Opens `path` again and counts every frame off this thread; a running pass is cancelled.
    // Returns the pass's id, which its signals carry.
    quint64 start(const QString& path, const HistogramSettings& settings, std::optional<hs::Rect> roi);
    void cancel();
    bool isRunning() const;

signals:
    // A batch of frames, in order; `done` frames so far of `total` (-1: unknown).
    void progress(quint64 scan, const QVector<FrameTrend>& trends, qint64 done, qint64 total);
    // Error unset: every frame was counted. Told from the event loop, never inside start().
    void finished(quint64 scan, const Error& error);

private:
    QList<QFuture<Error>> m_passes;   // every pass not known to have ended
    std::shared_ptr<std::atomic<bool>> m_cancel;
    quint64 m_scan = 0;
};
