#include "app/core/MediaController.h"

#include "io/FrameSource.h"
#include "app/core/PreviewFrame.h"

#include <chrono>

MediaController::MediaController(QObject* parent) : QObject(parent)
{
    m_thread = std::thread([this] { run(); });
}

MediaController::~MediaController()
{
    post(Command::Quit);
    m_thread.join();
}

void MediaController::post(Command command, QString argument, qint64 index)
{
    {
        std::lock_guard lock(m_mutex);
        m_command = command;
        m_argument = std::move(argument);
        m_seekIndex = index;
    }
    m_wake.notify_all();
}

void MediaController::open(const QString& path, std::optional<rawformat::RawSpec> raw)
{
    {
        std::lock_guard lock(m_mutex);
        m_raw = raw;
    }
    post(Command::Open, path);
}

void MediaController::openLive(const QString& source) { post(Command::OpenLive, source); }
void MediaController::play() { post(Command::Play); }
void MediaController::pause() { post(Command::Pause); }
void MediaController::step() { post(Command::Step); }
void MediaController::seek(qint64 index) { post(Command::Seek, {}, index); }
void MediaController::close() { post(Command::Close); }

bool MediaController::isPlaying() const
{
    std::lock_guard lock(m_mutex);
    return m_playing;
}

qint64 MediaController::droppedFrames() const
{
    std::lock_guard lock(m_mutex);
    return m_dropped;
}

qint64 MediaController::deliveredFrames() const
{
    std::lock_guard lock(m_mutex);
    return m_delivered;
}

std::optional<MediaFrame> MediaController::takeLatest()
{
    std::lock_guard lock(m_mutex);
    std::optional<MediaFrame> frame = std::move(m_latest);
    m_latest.reset();
    return frame;
}

void MediaController::publish(MediaFrame frame)
{
    {
        std::lock_guard lock(m_mutex);
        if (m_latest)
            ++m_dropped;  // the GUI never saw the previous one
        m_latest = std::move(frame);
        ++m_delivered;
    }
    emit frameAvailable();
}

// Reads, converts and publishes one frame; the lock is released while decoding.
bool MediaController::decodeOne(std::unique_lock<std::mutex>& lock)
{
    if (!m_source)
        return false;
    lock.unlock();
    Frame frame;
    Error error;
    const bool got = m_source->next(frame, error);
    MediaFrame media;
    if (got) {
        media.frame = frame;
        media.preview = previewFrame(frame);
    }
    lock.lock();
    if (!got) {
        m_playing = false;
        lock.unlock();
        emit playingChanged(false);
        if (error.isError())
            emit failed(error.message());
        else
            emit endOfStream();
        lock.lock();
        return false;
    }
    media.index = ++m_index;
    lock.unlock();
    publish(std::move(media));
    lock.lock();
    return true;
}

void MediaController::run()
{
    using Clock = std::chrono::steady_clock;
    std::unique_lock lock(m_mutex);
    Clock::time_point due = Clock::now();
    for (;;) {
        if (m_command == Command::None) {
            if (m_playing && m_source) {
                const bool live = m_source->kind() == FrameSource::MediaKind::Live;
                const double fps = m_source->fps() > 0 ? m_source->fps() : 25.0;
                if (!live && m_wake.wait_until(lock, due, [this] { return m_command != Command::None; }))
                    continue;
                due = std::max(due + std::chrono::microseconds(qint64(1e6 / fps)), Clock::now() - std::chrono::milliseconds(200));
                decodeOne(lock);
                continue;
            }
            m_wake.wait(lock, [this] { return m_command != Command::None; });
        }
        const Command command = std::exchange(m_command, Command::None);
        const QString argument = m_argument;
        switch (command) {
        case Command::Quit:
            m_source.reset();
            return;
        case Command::Open:
        case Command::OpenLive: {
            m_source.reset();
            m_playing = false;
            m_index = -1;
            m_dropped = 0;
            m_delivered = 0;
            m_latest.reset();
            const auto raw = m_raw;
            lock.unlock();
            Error error;
            std::unique_ptr<FrameSource> source = command == Command::Open ? openFrameSource(argument, raw, error)
                                                                            : openLiveSource(argument, error);
            if (!source) {
                emit failed(error.message());
                lock.lock();
                break;
            }
            for (const QString& w : source->warnings)
                emit warning(w);
            const bool live = source->kind() == FrameSource::MediaKind::Live;
            emit opened(source->path(), source->frameCount(), source->fps(), live);
            lock.lock();
            m_source = std::move(source);
            decodeOne(lock);
            if (live && m_source) {
                m_playing = true;
                lock.unlock();
                emit playingChanged(true);
                lock.lock();
            }
            due = Clock::now();
            break;
        }
        case Command::Play:
            if (m_source && !m_playing) {
                m_playing = true;
                due = Clock::now();
                lock.unlock();
                emit playingChanged(true);
                lock.lock();
            }
            break;
        case Command::Pause:
            if (m_playing) {
                m_playing = false;
                lock.unlock();
                emit playingChanged(false);
                lock.lock();
            }
            break;
        case Command::Step:
            if (m_source) {
                m_playing = false;
                decodeOne(lock);
            }
            break;
        case Command::Seek:
            if (m_source) {
                const qint64 index = m_seekIndex;
                lock.unlock();
                Error error;
                const bool ok = m_source->seek(index, error);
                if (!ok)
                    emit failed(error.message());
                lock.lock();
                if (ok) {
                    m_index = index - 1;
                    decodeOne(lock);
                }
            }
            break;
        case Command::Close:
            m_source.reset();
            m_playing = false;
            m_latest.reset();
            break;
        case Command::None:
            break;
        }
    }
}
