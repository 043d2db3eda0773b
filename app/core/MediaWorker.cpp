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
        if (m_source) {
            // Play at the end starts again from the first frame, as players do, instead of
            // stopping at once; a source of one frame just says again that it is at its end.
            Error error;
            if (m_atEnd && m_length > 1 && m_source->kind() != FrameSource::MediaKind::Live && m_source->seek(0, error)) {
                m_index = -1;
                m_atEnd = false;
                m_readSinceSeek = false;
            }
            setPlaying(true);
        }
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
        if (m_source)
            seekTo(command.index);
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
    m_length = -1;
    m_known = 0;
    m_atEnd = false;
    m_readSinceSeek = false;
    m_warningsSent = 0;
    m_sourceCommand = command.id;
    Error error;
    std::unique_ptr<FrameSource> source = command.kind == MediaCommandKind::Open
                                              ? openFrameSource(command.path, command.raw, error)
                                              : openLiveSource(command.path, error);
    if (!source) {
        emit failed(error);
        return;
    }
    m_source = std::move(source);
    sendNewWarnings();
    const bool live = m_source->kind() == FrameSource::MediaKind::Live;
    emit opened(m_source->path(), m_source->frameCount(), m_source->fps(), live, command.id);
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
    Frame frame;
    Error error;
    if (!m_source->next(frame, error)) {
        setPlaying(false);
        if (error.isError())
            emit failed(error);
        else
            reachEnd();
        return false;
    }
    publish(std::move(frame));
    return true;
}

void MediaWorker::publish(Frame frame)
{
    if (m_source->kind() == FrameSource::MediaKind::Live)
        estimateNotRead();
    MediaFrame media;
    media.frame = std::move(frame);
    media.preview = previewFrame(media.frame);
    media.index = ++m_index;
    media.command = m_sourceCommand;
    m_known = std::max(m_known, m_index + 1);
    m_atEnd = false;
    m_readSinceSeek = true;
    if (m_frames->put(std::move(media)))
        emit frameAvailable();
}

// A read found the end. Read on from a frame decoded here, it is the source's real length,
// whatever its header declared; the window's timeline and seek range follow it.
void MediaWorker::reachEnd()
{
    m_atEnd = true;
    sendNewWarnings();
    if (m_length < 0 && m_readSinceSeek && m_source->kind() != FrameSource::MediaKind::Live)
        foundLength(m_index + 1);
    emit endOfStream();
}

void MediaWorker::foundLength(qint64 frames)
{
    m_length = frames;
    sendNewWarnings();
    // The reader says so itself when it read the file from its start (and then counts the same).
    const qint64 declared = m_source->frameCount();
    if (declared > 0 && declared != frames)
        emit warning(QStringLiteral("%1: its header declares %2 frame(s), the file ends after frame %3")
                         .arg(m_source->path()).arg(declared).arg(frames - 1));
    emit lengthFound(frames);
}

// A seek past the end shows the last frame and says so. Before the end is known, a frame the
// header promises but the file lacks is found out here: the real end is then looked for
// between the last frame known to exist and the one asked for.
void MediaWorker::seekTo(qint64 index)
{
    const qint64 asked = index;
    if (m_length > 0 && index >= m_length)
        index = m_length - 1;
    m_due = Clock::now();
    Error error;
    Frame frame;
    const bool sought = m_source->seek(index, error);
    if (sought) {
        m_index = index - 1;
        m_readSinceSeek = false;
        if (m_source->next(frame, error)) {
            publish(std::move(frame));
            if (asked != index)
                emit seekPastEnd(asked, m_length);
            return;
        }
    }
    // Nothing at `index`: past the end of a file whose length was not known yet (a clean end, or
    // a backend that refuses the seek), or a frame that failed to decode.
    const bool mayBePastEnd = m_length < 0 && m_source->kind() == FrameSource::MediaKind::Video && index >= m_known
                              && m_known > 0 && !(sought && error.isError());
    const qint64 end = mayBePastEnd ? findEnd(m_known, index) : -1;
    if (end < 0) {
        if (sought) {   // as any read that fails: playback stops
            setPlaying(false);
            if (error.isError())
                emit failed(error);
            else
                reachEnd();
        } else {
            emit failed(error);
        }
        return;
    }
    setPlaying(false);
    foundLength(end);
    emit seekPastEnd(asked, end);
    seekTo(end - 1);
}

// The first frame index in [exists, missing] that does not decode, by bisection: frame
// `exists - 1` decoded before and `missing` did not. A few seeks, each with one read, for a
// header that overstates the length by any amount. -1 when seeking does not work at all (the
// frame known to exist cannot be read again): then nothing is known of the end.
qint64 MediaWorker::findEnd(qint64 exists, qint64 missing)
{
    auto decodes = [this](qint64 index) {
        Error error;
        Frame frame;
        return m_source->seek(index, error) && m_source->next(frame, error);
    };
    if (!decodes(exists - 1))
        return -1;
    qint64 lo = exists, hi = missing;
    while (lo < hi) {
        const qint64 probe = lo + (hi - lo) / 2;
        if (decodes(probe))
            lo = probe + 1;
        else
            hi = probe;
    }
    return lo;
}

void MediaWorker::sendNewWarnings()
{
    for (; m_warningsSent < m_source->warnings.size(); ++m_warningsSent)
        emit warning(m_source->warnings[m_warningsSent]);
}
