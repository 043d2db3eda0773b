// Median-of-runs timing, shared by the benchmark, the OpenCV comparison and the app's Compare
// Strategies: warm-up runs are discarded, then the median of the timed runs is reported.
#pragma once

#include <algorithm>
#include <vector>

namespace hs {

// The middle value (the mean of the two middle values for an even count); 0 for no values.
inline double medianOf(std::vector<double> values)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// Calls `run` warmups + runs times; `run` returns the milliseconds of one run, or a negative
// value to stop early (an error). Returns the median of the timed runs, or -1 after an error.
template <typename Run>
double medianRunMs(int warmups, int runs, Run&& run)
{
    std::vector<double> times;
    for (int i = 0; i < warmups + runs; ++i) {
        const double ms = run();
        if (ms < 0)
            return -1;
        if (i >= warmups)
            times.push_back(ms);
    }
    return medianOf(std::move(times));
}

}  // namespace hs
