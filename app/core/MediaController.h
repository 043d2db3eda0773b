// Opens and plays images, videos, cameras and pipelines on a decoding thread of its own (a
// QThread running a MediaWorker), so the GUI thread never waits on I/O or decoding.
//   - Commands (open, play, pause, step, seek, close) are queued invocations on that thread:
//     executed in the order given, none dropped or merged, each answered by commandDone(id).
//   - Decoded frames go the other way through a "newest wins" slot: a frame replaced before
//     the GUI took it counts as dropped. frameAvailable is emitted when the slot fills.
// Files play at their own rate (a precise timer on the decoding thread, so commands are served
// between frames); live sources at theirs (their next() blocks until a frame comes).
#pragma once

#include "common/Error.h"
#include "io/Frame.h"
#include "io/RawFormat.h"
#include "app/core/LatestSlot.h"
#include "app/core/WorkerThread.h"

#include <QObject>
#include <QThread>

#include <atomic>
#include <memory>
#include <optional>

struct MediaFrame {
    Frame frame;
    Frame preview;       // 8-bit RGB, made on the decoding thread
    qint64 index = 0;    // position in the source
    quint64 command = 0; // the id of the command that opened the source it came from
};

enum class MediaCommandKind { Open, OpenLive, Play, Pause, Step, Seek, Close };

struct MediaCommand {
    quint64 id = 0;
    MediaCommandKind kind = MediaCommandKind::Close;
    QString path;                              // Open, OpenLive
    std::optional<rawformat::RawSpec> raw;     // Open
    qint64 index = 0;                          // Seek
};
Q_DECLARE_METATYPE(MediaCommandKind)

class MediaWorker;

class MediaController : public QObject {
    Q_OBJECT

public:
    explicit MediaController(QObject* parent = nullptr);
    ~MediaController() override;

    // Call from the controller's thread. Each returns the command's id (1, 2, 3... in order).
    quint64 open(const QString& path, std::optional<rawformat::RawSpec> raw = std::nullopt);
    quint64 openLive(const QString& source);
    quint64 play();
    quint64 pause();
    quint64 step();
    quint64 seek(qint64 index);
    quint64 close();

    bool isPlaying() const { return m_playing; }           // as of the last playingChanged
    // Since the current source was opened:
    qint64 droppedFrames() const { return m_frames->replaced(); }   // published, replaced before taken
    qint64 deliveredFrames() const { return m_frames->offered(); }  // decoded and published
    // Live sources: frames the source made that its sink dropped before they were read,
    // estimated from its declared rate and the clock; -1 without an estimate (files, no rate).
    qint64 notReadEstimate() const { return m_notRead->load(); }
    std::optional<MediaFrame> takeLatest() { return m_frames->take(); }
    QThread* workerThread() { return m_thread.thread(); }   // tests block it to order events
    static constexpr int kCloseWaitMs = 2000;   // how long closing waits for a blocked read

signals:
    // `command`: the open's id, which every frame of this source carries (MediaFrame::command).
    void opened(const QString& source, qint64 frameCount, double fps, bool live, quint64 command);
    void frameAvailable();
    void failed(const Error& error);        // names the source and the cause
    void warning(const QString& message);
    void playingChanged(bool playing);
    // A read reached the end and playback stopped. Play at the end starts again from the first
    // frame; Step there tells the end again.
    void endOfStream();
    // A file's real length, known once reading reached its end (playback, a step, or a seek to
    // a frame its header promised but it lacks): frames 0..frameCount-1, whatever its header
    // declared (opened's frameCount is the header's estimate). Told once per source.
    void lengthFound(qint64 frameCount);
    // A seek asked for a frame past the end: the last frame is shown instead.
    void seekPastEnd(qint64 requested, qint64 frameCount);
    void commandDone(quint64 id, MediaCommandKind kind);

private:
    quint64 post(MediaCommand command);

    WorkerThread m_thread;
    MediaWorker* m_worker = nullptr;   // lives on m_thread
    std::shared_ptr<LatestSlot<MediaFrame>> m_frames;
    std::shared_ptr<std::atomic<qint64>> m_notRead;
    quint64 m_lastCommand = 0;
    bool m_playing = false;
};
