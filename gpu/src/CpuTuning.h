// Tuning of the CPU backend as plain data, beside the GPU's per-architecture table
// (gpu/cuda/Tuning.h). Figures from `histoscope-bench cpu` and `histoscope-opencv-compare
// calchist` on the 2-core development machine (docs/PERFORMANCE.md).
#pragma once

#include <cstdint>

namespace hs::detail {

struct CpuTuning {
    // Pixels per OpenMP task, handed out one at a time: a 4K frame is 127 tasks of 2^16. With 32
    // tasks of 2^18 handed out four at a time, a thread that started or was held up late left its
    // partner up to four tasks (0.8 ms) to finish alone: the 4K RGB noise loop on two threads took
    // a median 3.4-4.0 ms that way, 3.1-3.4 ms in small tasks (2026-12-03).
    std::int64_t taskPixels = std::int64_t(1) << 16;
    // Up to this many slots a thread keeps four interleaved sub-histograms, which break the
    // store-to-load chain on one hot counter (4K RGB constant frame: 2.6x OpenCV against 1.4x
    // with one); beyond it they only thrash the cache.
    std::uint32_t subHistogramSlotsMax = 8192;
    int subHistograms = 4;
    // 8-bit frames of three or four channels from this many pixels count their first two channels
    // as pairs (CpuCountU8.h, pairStep): below it the per-thread 256 KiB table's clear and
    // fold would cost more than the increments it saves (a 1024 x 1024 frame: ~3 M increments
    // against 2 x 65,536 table words per thread).
    std::int64_t pairTablePixelsMin = std::int64_t(1) << 20;
};

inline constexpr CpuTuning kCpuTuning{};

// Not tuning but a bound: per-thread 32-bit counters are flushed into 64-bit totals before any
// could hold 2^31 increments; a pixel adds at most one to a counter, so pixels since the flush
// bound it.
inline constexpr std::int64_t kCpuFlushPixels = std::int64_t(1) << 31;

}  // namespace hs::detail
