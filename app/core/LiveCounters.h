// What the user reads about a playing source: its own rate, the rates achieved here (measured),
// and every frame it produced that was never counted or shown. A value the window fills on its
// thread from the controllers' counters; the Timing panel and the status line show it.
//
// The identity, for one source: produced == shown + droppedMedia + droppedHistogram + inFlight,
// where inFlight (decoded but not yet shown) is 0 once the stream has ended and settled.
#pragma once

#include <QtGlobal>

#include <deque>
#include <utility>

// A rate measured from a running total: (total now - total a window ago) / elapsed time.
// Fed with the same total while nothing happens, it falls to 0 within one window.
class RateMeter {
public:
    explicit RateMeter(qint64 windowNs = 1'000'000'000) : m_window(windowNs) {}

    void add(qint64 nowNs, qint64 total)
    {
        m_samples.emplace_back(nowNs, total);
        // Keep one sample at or before the window's start, so the span covers the window.
        while (m_samples.size() > 2 && m_samples[1].first <= nowNs - m_window)
            m_samples.pop_front();
    }
    double rate() const
    {
        if (m_samples.size() < 2)
            return 0;
        const auto& [t0, n0] = m_samples.front();
        const auto& [t1, n1] = m_samples.back();
        return t1 > t0 ? double(n1 - n0) * 1e9 / double(t1 - t0) : 0;
    }
    void reset() { m_samples.clear(); }

private:
    qint64 m_window;
    std::deque<std::pair<qint64, qint64>> m_samples;
};

struct LiveCounters {
    double sourceFps = 0;          // what the source declares (0: unknown)
    double decodedFps = 0;         // measured: frames decoded and published per second
    double shownFps = 0;           // measured: frames counted and shown per second
    qint64 produced = 0;           // frames decoded and published by the media thread
    qint64 shown = 0;              // frames counted and shown (each frame once)
    qint64 droppedMedia = 0;       // replaced in the media slot before the window took them
    qint64 droppedHistogram = 0;   // taken, then replaced in the histogram slot before being counted
    // Live sources only: frames the source made while the decoder was busy, which its sink
    // dropped before they were read. Estimated from the source's declared rate and the clock
    // (the sink does not report them); -1 when there is no estimate.
    qint64 notReadEstimate = -1;
    bool live = false;

    qint64 dropped() const { return droppedMedia + droppedHistogram; }
    qint64 inFlight() const { return produced - shown - dropped(); }
};
