// Launch tuning as plain data per architecture, read by the dispatcher. Values come from the
// H200 benchmark (bench/results); other architectures inherit the nearest older row.
#pragma once

namespace hs::detail {

struct ArchTuning {
    int computeMajor;
    int threadsPerBlock;          // privatized kernels
    int replicasMax;              // `replicated`: sub-histograms per block, at most one per lane
    int hotCacheEntries;          // `large-bins`: shared hot-bin cache, a power of two
    unsigned autoSharedSlotsMax;  // `auto`: slot counts up to this stay in default shared memory
    double autoHotCacheShare;     // `auto`: beyond opt-in shared memory, the top-slot share from which
                                  // the hot cache beats slot tiles
};

inline constexpr ArchTuning kArchTunings[] = {
    {7, 256, 32, 4096, 12288, 0.25},
    {8, 256, 32, 4096, 12288, 0.25},
    {9, 1024, 32, 8192, 12288, 0.25},
};

inline const ArchTuning& tuningFor(int computeMajor)
{
    const ArchTuning* best = &kArchTunings[0];
    for (const ArchTuning& t : kArchTunings)
        if (t.computeMajor <= computeMajor)
            best = &t;
    return *best;
}

}  // namespace hs::detail
