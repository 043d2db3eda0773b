// A validated 2-D request: the region every backend walks (rows are never folded: columns are a
// quantity here) and the slot maps of its pairs.
#pragma once

#include "Histogram2DMath.h"
#include "histoscope/Histogram2D.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hs::detail {

struct Plan2D {
    SampleType type = SampleType::U8;
    MemorySpace space = MemorySpace::Host;
    int channels = 1;
    std::size_t pixelBytes = 1;
    const unsigned char* origin = nullptr;   // first byte of the region
    std::size_t pitch = 0;
    std::int64_t width = 0;                  // region columns
    std::int64_t rows = 0;                   // region rows
    Map2D map;
    std::vector<AxisPair> pairs;             // as requested (the binnings that are reported)
    // Every pair's x is the column with one and the same binning: a block (or a CPU thread) can
    // own a strip of columns, and with it every counter of those x slots.
    bool columnStrips = false;

    std::uint64_t pixels() const { return std::uint64_t(width) * std::uint64_t(rows); }
    const unsigned char* row(std::int64_t r) const { return origin + std::size_t(r) * pitch; }
    std::uint64_t inRangeCells() const;
};

Status buildPlan2D(const Histogram2DRequest& request, Plan2D& plan);

// The counters of all pairs (plan.map.numSlots of them) into per-pair histograms.
void unpackGrid2D(const Plan2D& plan, const std::uint64_t* slots, Histogram2DResult& result, bool accumulate);
// Sets n counters to zero, on every core for large grids.
void zeroCounts(std::uint64_t* slots, std::size_t n);

// Where a backend writes a count: pair i's grid, the counters [base, base + xSlots * ySlots) of
// the plan's numbering. compute() points them into its result, so that a parade's 2.9 M counters
// are written once: a total, its zeroing and the copy into the result took three passes over
// 23 MB on the host, more than the count itself on the GPU.
struct GridTargets {
    std::uint64_t* grid[4] = {};
};
// Gives result the plan's grids, reusing their memory when they have its shape already (the next
// frame of a live scope: a fresh 24 MB parade grid per frame cost page faults on top of the copy).
void shapeGrids(const Plan2D& plan, Histogram2DResult& result);
GridTargets targetsIn(Histogram2DResult& result);
// The targets of one array of plan.map.numSlots counters.
GridTargets targetsIn(const Plan2D& plan, std::uint64_t* slots);
// grid[k] = counts[base + k] (or += when `add`) for every pair: a device piece's 32-bit counters
// widened, or a CPU count's totals; millions of counters, so the host's cores share the pass.
void deliverCounts(const Plan2D& plan, const std::uint32_t* counts, const GridTargets& targets, bool add);
void deliverCounts(const Plan2D& plan, const std::uint64_t* counts, const GridTargets& targets, bool add);
// Every target counter to zero (a count of no pixels).
void clearTargets(const Plan2D& plan, const GridTargets& targets);

// Column strips: the first column whose x slot is at least `bin` (bins of the column axis), and
// the columns that land below and above the axis range, clamped to the region.
std::int64_t firstColumnOfBin(const ChannelMap& columnMap, std::uint64_t bin, std::int64_t width);

// Calls f(T{}) with the storage type of a sample type (HalfBits for f16).
template <typename F>
decltype(auto) visitSampleType2D(SampleType type, F&& f)
{
    switch (type) {
    case SampleType::U8: return f(std::uint8_t{});
    case SampleType::U16: return f(std::uint16_t{});
    case SampleType::I32: return f(std::int32_t{});
    case SampleType::U32: return f(std::uint32_t{});
    case SampleType::F16: return f(HalfBits{});
    case SampleType::F32: break;
    }
    return f(float{});
}

// Reads C samples of type T at p (host).
template <typename T, int C>
inline void loadPixelHost(const unsigned char* p, T (&px)[C])
{
    for (int c = 0; c < C; ++c)
        __builtin_memcpy(&px[c], p + c * sizeof(T), sizeof(T));
}

}  // namespace hs::detail
