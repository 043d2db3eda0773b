#include "app/gui/SeekQueue.h"

#include "app/core/MediaController.h"

SeekQueue::SeekQueue(MediaController* media, QObject* parent) : QObject(parent), m_media(media)
{
    connect(m_media, &MediaController::commandDone, this, [this](quint64 id, MediaCommandKind) {
        if (id == m_inFlight) {
            m_inFlight = 0;
            postWaiting();
        }
    });
}

void SeekQueue::seekTo(qint64 frame)
{
    m_waiting = frame;
    if (m_inFlight == 0)
        postWaiting();
}

void SeekQueue::dropWaiting() { m_waiting = -1; }

void SeekQueue::postWaiting()
{
    if (m_waiting < 0)
        return;
    m_inFlight = m_media->seek(m_waiting);
    m_waiting = -1;
}
