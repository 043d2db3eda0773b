#include "app/core/MediaController.h"

#include "app/core/MediaWorker.h"

MediaController::MediaController(QObject* parent)
    : QObject(parent), m_frames(std::make_shared<LatestSlot<MediaFrame>>()),
      m_notRead(std::make_shared<std::atomic<qint64>>(-1))
{
    qRegisterMetaType<Error>();
    qRegisterMetaType<MediaCommandKind>();
    m_worker = new MediaWorker(m_frames, m_notRead);
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    // Queued: the worker emits on its thread; the controller re-emits on its own, in order.
    connect(m_worker, &MediaWorker::opened, this, &MediaController::opened);
    connect(m_worker, &MediaWorker::frameAvailable, this, &MediaController::frameAvailable);
    connect(m_worker, &MediaWorker::failed, this, &MediaController::failed);
    connect(m_worker, &MediaWorker::warning, this, &MediaController::warning);
    connect(m_worker, &MediaWorker::endOfStream, this, &MediaController::endOfStream);
    connect(m_worker, &MediaWorker::commandDone, this, &MediaController::commandDone);
    connect(m_worker, &MediaWorker::playingChanged, this, [this](bool playing) {
        m_playing = playing;
        emit playingChanged(playing);
    });
    m_thread.setObjectName(QStringLiteral("media decoding"));
    m_thread.start();
}

MediaController::~MediaController()
{
    m_thread.quit();   // commands not yet started are discarded; the source closes on its thread
    m_thread.wait();
}

quint64 MediaController::post(MediaCommand command)
{
    command.id = ++m_lastCommand;
    // Qt's posted-event queue of the worker's thread is the command queue: first in, first out,
    // unbounded, nothing merged.
    QMetaObject::invokeMethod(m_worker, [worker = m_worker, command] { worker->perform(command); },
                              Qt::QueuedConnection);
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
