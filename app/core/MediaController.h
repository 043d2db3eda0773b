// Opens and plays images, videos, cameras and pipelines on a decoding thread of its own, so
// the GUI thread never waits on I/O. The newest decoded frame wins: a frame replaced before
// the GUI took it counts as dropped. Files play at their own rate; live sources at theirs.
#pragma once

#include "io/Frame.h"
#include "io/RawFormat.h"


#include <QObject>

#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

class FrameSource;

struct MediaFrame {
    Frame frame;
    Frame preview;   // 8-bit RGB, made on the decoding thread
    qint64 index = 0;
};

class MediaController : public QObject {
    Q_OBJECT

public:
    explicit MediaController(QObject* parent = nullptr);
    ~MediaController() override;

    void open(const QString& path, std::optional<rawformat::RawSpec> raw = std::nullopt);
    void openLive(const QString& source);
    void play();
    void pause();
    void step();
    void seek(qint64 index);
    void close();

    bool isPlaying() const;
    qint64 droppedFrames() const;
    qint64 deliveredFrames() const;
    std::optional<MediaFrame> takeLatest();

signals:
    void opened(const QString& source, qint64 frameCount, double fps, bool live);
    void frameAvailable();
    void failed(const QString& message);        // names the source and the cause
    void warning(const QString& message);
    void playingChanged(bool playing);
    void endOfStream();

private:
    enum class Command { None, Open, OpenLive, Play, Pause, Step, Seek, Close, Quit };
    void run();
    void post(Command command, QString argument = {}, qint64 index = 0);
    bool decodeOne(std::unique_lock<std::mutex>& lock);
    void publish(MediaFrame frame);

    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    Command m_command = Command::None;
    QString m_argument;
    qint64 m_seekIndex = 0;
    std::optional<rawformat::RawSpec> m_raw;
    std::optional<MediaFrame> m_latest;
    std::unique_ptr<FrameSource> m_source;   // used by the decoding thread only
    bool m_playing = false;
    qint64 m_dropped = 0;
    qint64 m_delivered = 0;
    qint64 m_index = -1;
    std::thread m_thread;
};
