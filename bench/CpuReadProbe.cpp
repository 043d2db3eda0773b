#include "bench/CpuReadProbe.h"

#include "histoscope/RunTiming.h"

#include <omp.h>

#include <chrono>
#include <cstdint>
#include <cstring>

namespace hs::bench {

double cpuReadProbeMs(const unsigned char* data, std::size_t bytes, int repeats)
{
    const std::int64_t words = std::int64_t(bytes / 8);
    volatile std::uint64_t sink = 0;  // keeps the sum, so the reads cannot be optimised away
    return medianRunMs(2, repeats, [&] {
        const auto t0 = std::chrono::steady_clock::now();
        std::uint64_t sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static)
        for (std::int64_t i = 0; i < words; ++i) {
            std::uint64_t w;
            std::memcpy(&w, data + std::size_t(i) * 8, 8);
            sum += w;
        }
        for (std::size_t i = std::size_t(words) * 8; i < bytes; ++i)
            sum += data[i];
        sink = sink + sum;
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    });
}

}  // namespace hs::bench
