// FFmpeg's own messages ("[mjpeg @ 0x...] dht: len 179 is too large"), which FFmpeg prints on
// stderr by default, taken instead and told as warnings of the file being decoded. OpenCV
// decodes through FFmpeg, and says nothing of them. A reader is attached for its life; a
// message on its thread (or, while it is the only reader, on FFmpeg's own decoding threads) is
// its own. A message no reader can claim (several decoding at once on threads of FFmpeg's own)
// is kept apart and told without a file name (takeUnattributed).
#pragma once

#include <QString>
#include <QStringList>

#include <memory>

namespace decoderlog {

// Takes FFmpeg's log over, once per process; a no-op when FFmpeg is not loaded.
void install();

class Reader {
public:
    struct State;
    Reader();
    ~Reader();
    Reader(const Reader&) = delete;
    Reader& operator=(const Reader&) = delete;
    // While the returned guard lives, messages on this thread are this reader's.
    class Scope {
    public:
        explicit Scope(Reader& reader);
        ~Scope();
        Scope(const Scope&) = delete;
        Scope& operator=(const Scope&) = delete;

    private:
        Reader* m_previous;
    };
    // The messages since the last call, each once (a repeated message is counted, not repeated).
    QStringList take();

private:
    friend void deliver(Reader* reader, const QString& message);
    std::shared_ptr<State> m_state;
};

QStringList takeUnattributed();

}  // namespace decoderlog
