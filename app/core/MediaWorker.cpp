#include "app/core/MediaWorker.h"

#include "io/FrameSource.h"
#include "app/core/PreviewFrame.h"

#include <cmath>

MediaWorker::MediaWorker(std::shared_ptr<LatestSlot<MediaFrame>> frames, std::shared_ptr<std::atomic<qint64>> notRead)
    : m_frames(std::move(frames)), m_notRead(std::move(notRead)), m_timer(new QTimer(this))
{
    m_timer->setSingleShot(true);
    m_timer->setTimerType(Qt::PreciseTimer);
    connect(m_timer, &QTimer::timeout, this, &MediaWorker::tick);
}

MediaWorker::~MediaWorker() = default;

void MediaWorker::perform(const MediaCommand& command)
{
    try {
        execute(command);
    } catch (const std::exception& e) {   // a decoder that threw: reported, never thrown through Qt
        setPlaying(false);
        emit failed(Error::make(ErrorKind::DecodeFailed, m_source ? m_source->path() : command.path,
                                QString::fromUtf8(e.what()).trimmed()));
    }
    emit commandDone(command.id, command.kind);
}

void MediaWorker::execute(const MediaCommand& command)
{
    switch (command.kind) {
    case MediaCommandKind::Open:
    case MediaCommandKind::OpenLive:
        open(command);
        break;
    case MediaCommandKind::Play:
        if (m_source)
            setPlaying(true);
        break;
    case MediaCommandKind::Pause:
        setPlaying(false);
        break;
    case MediaCommandKind::Step:
        if (m_source) {
            setPlaying(false);
            decodeOne();
        }
        break;
    case MediaCommandKind::Seek:
        if (m_source) {
            Error error;
            if (!m_source->seek(command.index, error)) {
                emit failed(error);
            } else {
                m_index = command.index - 1;
                m_due = Clock::now();
                decodeOne();
            }
        }
        break;
    case MediaCommandKind::Close:
        setPlaying(false);
        m_source.reset();
        m_frames->reset();
        m_notRead->store(-1);
        break;
    }
}

void MediaWorker::open(const MediaCommand& command)
{
    setPlaying(false);
    m_source.reset();
    m_frames->reset();
    m_notRead->store(-1);
    m_liveFramesRead = 0;
    m_index = -1;
    m_sourceCommand = command.id;
    Error error;
    std::unique_ptr<FrameSource> source = command.kind == MediaCommandKind::Open
                                              ? openFrameSource(command.path, command.raw, error)
                                              : openLiveSource(command.path, error);
    if (!source) {
        emit failed(error);
        return;
    }
    for (const QString& w : source->warnings)
        emit warning(w);
    const bool live = source->kind() == FrameSource::MediaKind::Live;
    emit opened(source->path(), source->frameCount(), source->fps(), live, command.id);
    m_source = std::move(source);
    if (decodeOne() && live)
        setPlaying(true);
}

void MediaWorker::setPlaying(bool playing)
{
    if (playing == m_playing)
        return;
    m_playing = playing;
    if (playing) {
        m_due = Clock::now();
        m_timer->start(0);
    } else {
        m_timer->stop();
    }
    emit playingChanged(playing);
}

void MediaWorker::tick()
{
    if (!m_playing || !m_source)
        return;
    try {
        if (decodeOne())
            scheduleNext();
    } catch (const std::exception& e) {
        setPlaying(false);
        emit failed(Error::make(ErrorKind::DecodeFailed, m_source->path(), QString::fromUtf8(e.what()).trimmed()));
    }
}

void MediaWorker::scheduleNext()
{
    if (!m_playing)
        return;
    if (m_source->kind() == FrameSource::MediaKind::Live) {
        m_timer->start(0);   // next() waits for the source; commands are served in between
        return;
    }
    const double fps = m_source->fps() > 0 ? m_source->fps() : 25.0;
    const Clock::time_point now = Clock::now();
    // Keep the file's rate; after a stall of more than 200 ms, do not race to catch up.
    m_due = std::max(m_due + std::chrono::microseconds(qint64(1e6 / fps)), now - std::chrono::milliseconds(200));
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(m_due - now).count();
    m_timer->start(int(std::max<qint64>(0, wait)));
}

// A live source keeps its own clock: by the time the n-th frame is read, about
// (now - first) * fps + 1 frames were made. Those beyond the frames read were dropped by the
// sink (appsink drop=true) before anyone saw them. Never negative; only with a declared rate.
void MediaWorker::estimateNotRead()
{
    const Clock::time_point now = Clock::now();
    if (m_liveFramesRead++ == 0)
        m_firstLiveFrame = now;
    const double fps = m_source->fps();
    if (!(fps > 0) || fps > 10000)
        return;
    const double elapsed = std::chrono::duration<double>(now - m_firstLiveFrame).count();
    // Half a frame of slack for the reading jitter: a frame is counted missing once it is late.
    const auto made = qint64(std::floor(elapsed * fps + 0.5)) + 1;
    m_notRead->store(std::max<qint64>(0, made - m_liveFramesRead));
}

// Reads, converts and publishes one frame; at the end or on a failure, playback stops.
bool MediaWorker::decodeOne()
{
    if (!m_source)
        return false;
    MediaFrame media;
    Error error;
    if (!m_source->next(media.frame, error)) {
        setPlaying(false);
        if (error.isError())
            emit failed(error);
        else
            emit endOfStream();
        return false;
    }
    if (m_source->kind() == FrameSource::MediaKind::Live)
        estimateNotRead();
    media.preview = previewFrame(media.frame);
    media.index = ++m_index;
    media.command = m_sourceCommand;
    if (m_frames->put(std::move(media)))
        emit frameAvailable();
    return true;
}
