// The current source's frame counts and rates (LiveCounters), as the Timing panel and the
// status line show them: frames produced by the media thread, shown (each once), and dropped in
// either slot. Rates are measured over the last second; while the source plays they are
// refreshed twice a second even when no frame arrives, so a stall shows as a falling rate.
#pragma once

#include "app/core/HistogramSnapshot.h"
#include "app/core/LiveCounters.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

class HistogramController;
class MediaController;

class FrameCounters : public QObject {
    Q_OBJECT

public:
    FrameCounters(const MediaController* media, const HistogramController* histograms, QObject* parent = nullptr);

    // A new source, at its declared rate (0: unknown): counting starts again, as the media
    // slot's and the histogram slot's do.
    void reset(double sourceFps, bool live);
    quint64 nextSerial() { return ++m_serials; }   // one per frame taken from the media slot
    // A frame shown, with its counts or with why it could not be counted: each frame counts once.
    void frameShown(quint64 serial);
    void setPlaying(bool playing);

    // Samples the running totals for the rates, then returns the counters.
    LiveCounters sample();
    LiveCounters counters() const;
    // The status line's text for the frame shown; a video's or a live source's adds its rates
    // and drops.
    QString statusText(const HistogramSnapshot& shown, const LiveCounters& c, bool multiFrame) const;

signals:
    void refreshDue();   // while playing, twice a second

private:
    const MediaController* m_media;
    const HistogramController* m_histograms;
    double m_sourceFps = 0;
    bool m_live = false;
    quint64 m_serials = 0;
    quint64 m_lastShownSerial = 0;
    qint64 m_shown = 0;   // distinct frames counted and shown, for this source
    QElapsedTimer m_clock;
    RateMeter m_decodedRate;
    RateMeter m_shownRate;
    QTimer m_timer;
};
