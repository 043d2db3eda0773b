// How many OpenMP threads the host's copies of results and frames take: a result's counts into
// its vectors (both backends' unpackSlots), a 2-D grid's delivery, a frame's packing into a
// staging buffer. Counting itself keeps the thread count the CPU backend was given.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>

namespace hs::detail {

// At most half the cores, and at most eight: eight threads already copy at memory speed, and a
// team of every core leaves none for the thread that called the engine or the CUDA driver's
// threads while its members spin after the copy (libgomp's default wait policy). The H200's
// benchmark showed `auto` walls of 2-6 ms on cells of 65,536 bins and more whose kernel and
// download took under 0.6 ms, from session 10 to 15, while the counts' copy took all 16 cores
// (PERFORMANCE.md, "Open: auto's wall").
inline constexpr int kHostCopyThreadsMax = 8;

inline int hostCopyThreads(std::int64_t pieces = INT64_MAX)
{
    const int cap = std::max(1, std::min(kHostCopyThreadsMax, omp_get_max_threads() / 2));
    return int(std::max<std::int64_t>(1, std::min<std::int64_t>(pieces, cap)));
}

}  // namespace hs::detail
