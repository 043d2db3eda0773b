// The host clock of PhaseTimings' moments: steady_clock, CLOCK_MONOTONIC on Linux, which is also
// the clock of Python's time.perf_counter, so a caller can place the engine's moments among its own.
#pragma once

#include <chrono>
#include <cstdint>

namespace hs::detail {

inline std::int64_t hostNowNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace hs::detail
