#include "app/gui/TimelineScan.h"

#include "app/gui/TimelinePanel.h"

TimelineScan::TimelineScan(TimelinePanel* timeline, QObject* parent) : QObject(parent), m_timeline(timeline)
{
    connect(&m_scanner, &TrendScanner::progress, this, [this](quint64 scan, const QVector<FrameTrend>& trends, qint64 done, qint64 total) {
        if (scan != m_scan)
            return;
        m_done = done;
        m_timeline->addTrends(trends);
        m_timeline->setScanStatus(total > 0 ? tr("%1 / %2").arg(done).arg(total) : tr("%1 frames").arg(done), true);
    });
    connect(&m_scanner, &TrendScanner::finished, this, [this](quint64 scan, const Error& error) {
        if (scan != m_scan)
            return;
        m_scan = 0;
        m_timeline->setScanStatus(error.isError() ? error.cause : tr("%1 frames scanned").arg(m_done), false);
        if (!error.isError())
            emit lengthFound(m_done);   // told first: the timeline runs to the real end
        emit finished(error);
    });
}

void TimelineScan::start(const QString& path, const HistogramSettings& settings, std::optional<hs::Rect> roi)
{
    m_done = 0;
    m_scan = m_scanner.start(path, settings, roi);
    m_timeline->setScanStatus(tr("scanning..."), true);
}

void TimelineScan::stop()
{
    cancel();
    m_timeline->setScanStatus(tr("stopped"), false);
}

void TimelineScan::cancel()
{
    m_scanner.cancel();
    m_scan = 0;
}
