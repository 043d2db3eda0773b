// The decoding side of MediaController: lives on the controller's thread, owns the source and
// the playback timer, and answers through its own signals.
#pragma once

#include "app/core/MediaController.h"

#include <QTimer>

#include <chrono>

class FrameSource;

class MediaWorker : public QObject {
    Q_OBJECT

public:
    MediaWorker(std::shared_ptr<LatestSlot<MediaFrame>> frames, std::shared_ptr<std::atomic<qint64>> notRead);
    ~MediaWorker() override;

    void perform(const MediaCommand& command);   // on the worker's thread, in posting order

signals:
    void opened(const QString& source, qint64 frameCount, double fps, bool live, quint64 command);
    void frameAvailable();
    void failed(const Error& error);
    void warning(const QString& message);
    void playingChanged(bool playing);
    void endOfStream();
    void lengthFound(qint64 frameCount);
    void seekPastEnd(qint64 requested, qint64 frameCount);
    void commandDone(quint64 id, MediaCommandKind kind);

private:
    using Clock = std::chrono::steady_clock;
    void execute(const MediaCommand& command);
    void open(const MediaCommand& command);
    void setPlaying(bool playing);
    void tick();
    bool decodeOne();
    void publish(Frame frame);
    void reachEnd();
    void foundLength(qint64 frames);
    void seekTo(qint64 index);
    qint64 findEnd(qint64 exists, qint64 missing);
    void sendNewWarnings();
    void scheduleNext();

    void estimateNotRead();

    std::shared_ptr<LatestSlot<MediaFrame>> m_frames;
    std::shared_ptr<std::atomic<qint64>> m_notRead;   // live sources: frames the sink dropped (estimate)
    Clock::time_point m_firstLiveFrame;
    qint64 m_liveFramesRead = 0;
    std::unique_ptr<FrameSource> m_source;
    QTimer* m_timer = nullptr;
    Clock::time_point m_due;
    quint64 m_sourceCommand = 0;
    qint64 m_index = -1;
    bool m_playing = false;
    // A file's header count is an estimate: its real length is known once a read reaches the end.
    qint64 m_length = -1;          // frames the source has, once known; -1: not yet
    qint64 m_known = 0;            // frames known to exist: one past the highest index decoded
    bool m_atEnd = false;          // the last read found the end
    bool m_readSinceSeek = false;  // a frame was read since the last seek (or the open)
    qsizetype m_warningsSent = 0;  // the source's warnings already told
};
