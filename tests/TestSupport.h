// Helpers shared by the app-layer tests: a printed, replayable seed (HISTOSCOPE_SEED=N), fresh
// random frames made in memory, and a gate that holds a worker thread so a test can line up
// what reaches it deterministically (no fixed waits).
#pragma once

#include "io/Frame.h"

#include "gpu/testing/TestCases.h"

#include <QMetaObject>
#include <QObject>
#include <QSemaphore>
#include <QThread>
#include <QtGlobal>

#include <memory>
#include <random>
#include <vector>

namespace testsupport {

// The run's generator: hs::testing::runSeed() prints its seed and honours HISTOSCOPE_SEED.
inline std::mt19937_64 seededRng() { return std::mt19937_64(hs::testing::runSeed()); }

// A frame of uniform random samples in [lo, hi] (u8 or u16), rows padded by `padSamples`.
inline Frame randomFrame(std::mt19937_64& rng, hs::SampleType type, qint64 width, qint64 height, int channels,
                         ChannelOrder order, int lo = 0, int hi = -1, std::size_t padSamples = 0)
{
    const std::size_t sampleBytes = type == hs::SampleType::U16 ? 2 : 1;
    if (hi < 0)
        hi = type == hs::SampleType::U16 ? 65535 : 255;
    const std::size_t stride = (std::size_t(width) * std::size_t(channels) + padSamples) * sampleBytes;
    auto bytes = std::make_shared<std::vector<unsigned char>>(stride * std::size_t(height));
    std::uniform_int_distribution<int> value(lo, hi);
    for (qint64 y = 0; y < height; ++y) {
        unsigned char* row = bytes->data() + std::size_t(y) * stride;
        for (std::size_t i = 0; i < std::size_t(width) * std::size_t(channels); ++i) {
            const int v = value(rng);
            if (sampleBytes == 1)
                row[i] = static_cast<unsigned char>(v);
            else
                reinterpret_cast<std::uint16_t*>(row)[i] = static_cast<std::uint16_t>(v);
        }
        for (std::size_t i = std::size_t(width) * std::size_t(channels) * sampleBytes; i < stride; ++i)
            row[i] = 0xA5;   // padding that would land in a real bin if it were read
    }
    return Frame(std::shared_ptr<const void>(bytes, bytes->data()), bytes->data(), type, width, height, channels,
                 stride, order);
}

// Sample `c` of pixel (x, y).
inline unsigned sampleAt(const Frame& f, qint64 x, qint64 y, int c)
{
    const unsigned char* row = f.data() + std::size_t(y) * f.strideBytes();
    const std::size_t i = std::size_t(x) * std::size_t(f.channels()) + std::size_t(c);
    return f.type() == hs::SampleType::U16 ? reinterpret_cast<const std::uint16_t*>(row)[i] : row[i];
}

// Holds `thread` (an event-loop thread): everything posted to it after the gate waits, in
// order, until release() or destruction. The gate itself is posted behind whatever was posted
// before it; waitEntered() returns once the thread has reached it (all that came first is done).
class ThreadGate {
public:
    explicit ThreadGate(QThread* thread, bool waitUntilEntered = true)
        : m_state(std::make_shared<State>()), m_context(new QObject)
    {
        m_context->moveToThread(thread);
        // The held thread owns a share of the semaphores: they outlive this gate.
        QMetaObject::invokeMethod(
            m_context, [state = m_state] { state->entered.release(); state->open.acquire(); }, Qt::QueuedConnection);
        if (waitUntilEntered)
            waitEntered();
    }
    ~ThreadGate()
    {
        release();
        m_context->deleteLater();
    }
    ThreadGate(const ThreadGate&) = delete;
    ThreadGate& operator=(const ThreadGate&) = delete;
    void waitEntered()
    {
        m_state->entered.acquire();
        m_state->entered.release();
    }
    void release()
    {
        if (!m_released)
            m_state->open.release();
        m_released = true;
    }

private:
    struct State {
        QSemaphore entered;
        QSemaphore open;
    };
    std::shared_ptr<State> m_state;
    QObject* m_context;
    bool m_released = false;
};

}  // namespace testsupport
