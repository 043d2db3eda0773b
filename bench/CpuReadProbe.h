// The CPU's floor for a pass over a frame: every byte read once, summed as 64-bit words by the
// same number of OpenMP threads the CPU backend uses. A histogram cannot beat it; the ratio says
// how far the counting loop is from the reads alone.
#pragma once

#include <cstddef>

namespace hs::bench {

// Median milliseconds of `repeats` timed passes over `bytes` bytes at `data`, after two warm-ups.
double cpuReadProbeMs(const unsigned char* data, std::size_t bytes, int repeats);

}  // namespace hs::bench
