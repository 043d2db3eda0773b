#include "app/core/MediaController.h"

#include "app/core/MediaWorker.h"

MediaController::MediaController(QObject* parent)
    : QObject(parent), m_thread(QStringLiteral("media decoding")), m_frames(std::make_shared<LatestSlot<MediaFrame>>()),
      m_notRead(std::make_shared<std::atomic<qint64>>(-1))
{
    qRegisterMetaType<Error>();
    qRegisterMetaType<MediaCommandKind>();
    m_worker = new MediaWorker(m_frames, m_notRead);
    m_thread.adopt(m_worker);
    // Queued: the worker emits on its thread; the controller re-emits on its own, in order.
    connect(m_worker, &MediaWorker::opened, this, &MediaController::opened);
    connect(m_worker, &MediaWorker::frameAvailable, this, &MediaController::frameAvailable);
    connect(m_worker, &MediaWorker::failed, this, &MediaController::failed);
    connect(m_worker, &MediaWorker::warning, this, &MediaController::warning);
    connect(m_worker, &MediaWorker::endOfStream, this, &MediaController::endOfStream);
    connect(m_worker, &MediaWorker::lengthFound, this, &MediaController::lengthFound);
    connect(m_worker, &MediaWorker::seekPastEnd, this, &MediaController::seekPastEnd);
    connect(m_worker, &MediaWorker::commandDone, this, &MediaController::commandDone);
    connect(m_worker, &MediaWorker::playingChanged, this, [this](bool playing) {
        m_playing = playing;
        emit playingChanged(playing);
    });
}

MediaController::~MediaController()
{
    // Commands not yet started are discarded; the source closes on its thread. A live source
    // blocked in its read (a camera that stopped sending) is not waited for: the thread ends,
    // and closes it, once the read returns, and the window closes now.
    m_frames->reset();
    m_thread.stop(kCloseWaitMs);
}

quint64 MediaController::post(MediaCommand command)
{
    command.id = ++m_lastCommand;
    // Qt's posted-event queue of the worker's thread is the command queue: first in, first out,
    // unbounded, nothing merged.
    m_thread.post([worker = m_worker, command] { worker->perform(command); });
    return command.id;
}

quint64 MediaController::open(const QString& path, std::optional<rawformat::RawSpec> raw)
{
    MediaCommand c;
    c.kind = MediaCommandKind::Open;
    c.path = path;
    c.raw = std::move(raw);
    return post(std::move(c));
}

quint64 MediaController::openLive(const QString& source)
{
    MediaCommand c;
    c.kind = MediaCommandKind::OpenLive;
    c.path = source;
    return post(std::move(c));
}

quint64 MediaController::play() { return post({0, MediaCommandKind::Play, {}, {}, 0}); }
quint64 MediaController::pause() { return post({0, MediaCommandKind::Pause, {}, {}, 0}); }
quint64 MediaController::step() { return post({0, MediaCommandKind::Step, {}, {}, 0}); }
quint64 MediaController::seek(qint64 index) { return post({0, MediaCommandKind::Seek, {}, {}, index}); }
quint64 MediaController::close() { return post({0, MediaCommandKind::Close, {}, {}, 0}); }
