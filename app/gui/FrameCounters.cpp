#include "app/gui/FrameCounters.h"

#include "app/core/HistogramController.h"
#include "app/core/MediaController.h"

FrameCounters::FrameCounters(const MediaController* media, const HistogramController* histograms, QObject* parent)
    : QObject(parent), m_media(media), m_histograms(histograms)
{
    m_clock.start();
    m_timer.setInterval(500);
    connect(&m_timer, &QTimer::timeout, this, &FrameCounters::refreshDue);
}

void FrameCounters::reset(double sourceFps, bool live)
{
    m_sourceFps = sourceFps;
    m_live = live;
    m_shown = 0;
    m_lastShownSerial = 0;
    m_decodedRate.reset();
    m_shownRate.reset();
}

void FrameCounters::frameShown(quint64 serial)
{
    if (serial != m_lastShownSerial) {
        m_lastShownSerial = serial;
        ++m_shown;
    }
}

void FrameCounters::setPlaying(bool playing) { playing ? m_timer.start() : m_timer.stop(); }

LiveCounters FrameCounters::sample()
{
    const qint64 now = m_clock.nsecsElapsed();
    m_decodedRate.add(now, m_media->deliveredFrames());
    m_shownRate.add(now, m_shown);
    return counters();
}

LiveCounters FrameCounters::counters() const
{
    LiveCounters c;
    c.sourceFps = m_sourceFps;
    c.live = m_live;
    c.produced = m_media->deliveredFrames();
    c.shown = m_shown;
    c.droppedMedia = m_media->droppedFrames();
    c.droppedHistogram = m_histograms->replacedFrames();
    // Measured over the last second of playback; nothing plays when paused or stopped.
    c.decodedFps = m_media->isPlaying() ? m_decodedRate.rate() : 0;
    c.shownFps = m_media->isPlaying() ? m_shownRate.rate() : 0;
    c.notReadEstimate = m_live ? m_media->notReadEstimate() : -1;
    return c;
}

QString FrameCounters::statusText(const HistogramSnapshot& s, const LiveCounters& c, bool multiFrame) const
{
    QString text = tr("frame %1  %2x%3 %4")
                       .arg(s.frameIndex)
                       .arg(s.frame.width())
                       .arg(s.frame.height())
                       .arg(QString::fromStdString(std::string(hs::sampleTypeName(s.frame.type()))));
    if (s.roi)
        text += tr("  region x %1 y %2, %3×%4").arg(s.roi->x).arg(s.roi->y).arg(s.roi->width).arg(s.roi->height);
    if (multiFrame) {
        text += tr("  source %1").arg(c.sourceFps > 0 ? tr("%1 fps").arg(c.sourceFps, 0, 'f', 2) : tr("rate unknown"));
        if (m_media->isPlaying())
            text += tr("  shown %1 fps").arg(c.shownFps, 0, 'f', 1);
        text += tr("  dropped %1").arg(c.dropped());
        if (c.notReadEstimate > 0)
            text += tr("  not read ≈%1").arg(c.notReadEstimate);
    }
    return text;
}
