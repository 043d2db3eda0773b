// Oracles written in the tests, never our own code: NumPy's definitions, computed directly.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace numpyoracle {

// numpy.median(x) by the inverted-CDF rule, and numpy.mean(x), of channel `c` of `channels`
// interleaved samples in `v`.
inline std::pair<double, double> medianMean(const std::vector<float>& v, int channels, int c)
{
    std::vector<double> x;
    for (std::size_t i = std::size_t(c); i < v.size(); i += std::size_t(channels))
        x.push_back(v[i]);
    std::sort(x.begin(), x.end());
    long double sum = 0;
    for (double d : x)
        sum += d;
    return {x[(x.size() + 1) / 2 - 1], double(sum / x.size())};
}

}  // namespace numpyoracle
