// Seeks asked of the media thread, one at a time: while one is decoding, only the newest request
// waits its turn, so a dragged seek bar never queues a backlog of seeks.
#pragma once

#include <QObject>

class MediaController;

class SeekQueue : public QObject {
    Q_OBJECT

public:
    explicit SeekQueue(MediaController* media, QObject* parent = nullptr);

    void seekTo(qint64 frame);
    void dropWaiting();   // a new source: a frame asked of the old one is not sought in it

private:
    void postWaiting();

    MediaController* m_media;
    quint64 m_inFlight = 0;   // the seek command decoding now
    qint64 m_waiting = -1;    // the newest seek asked for meanwhile
};
