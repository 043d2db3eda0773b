// The timeline's background pass over the open file (TrendScanner): it fills the timeline's plot
// with every frame's mean and clipped share and keeps the pass's status on the timeline. Only
// the pass started last is heard; one cancelled or replaced says nothing more.
#pragma once

#include "app/core/FrameTrend.h"

#include <QObject>

class TimelinePanel;

class TimelineScan : public QObject {
    Q_OBJECT

public:
    explicit TimelineScan(TimelinePanel* timeline, QObject* parent = nullptr);

    bool isRunning() const { return m_scan != 0; }
    void start(const QString& path, const HistogramSettings& settings, std::optional<hs::Rect> roi);
    void stop();     // the user's: the timeline says it stopped
    void cancel();   // the source, the region or the settings changed: no word on the timeline

signals:
    void finished(const Error& error);
    // A pass read the whole file: its real length, whatever its header declared.
    void lengthFound(qint64 frameCount);

private:
    TimelinePanel* m_timeline;
    TrendScanner m_scanner;
    quint64 m_scan = 0;   // the pass running, 0: none
    qint64 m_done = 0;    // frames the running pass has read
};
