// Launchers of the 2-D histogram kernels (Histogram2DStrips.cu, Histogram2DJoint.cu and
// Histogram2DCub.cu). Every launcher counts one piece of the region into 32-bit device counters:
// a piece holds fewer than 2^32 pixels, and a pixel adds at most one to a counter of each pair,
// which bounds them; the host widens them to 64 bits.
#pragma once

#include "../../src/Histogram2DMath.h"
#include "../DeviceMemory.h"
#include "../LaunchCache.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>

namespace hs::detail {

// One piece of the region on the device, rows never folded.
struct Region2D {
    const unsigned char* d_origin = nullptr;
    std::size_t pitch = 0;
    std::int64_t width = 0;
    std::int64_t rows = 0;
    std::int64_t col0 = 0;       // the piece's first column within the region (column quantities)
};

struct Launch2D {
    SampleType type = SampleType::U8;
    int channels = 1;
    Region2D region;
    Map2D map;
    std::uint32_t* d_counts = nullptr;   // map.numSlots counters
};

struct Device2D {
    int multiprocessors = 1;
    std::size_t sharedOptin = 48 * 1024;         // dynamic shared memory a block may opt into
    std::size_t sharedPerMultiprocessor = 64 * 1024;
    int maxThreadsPerMultiprocessor = 1024;
    int computeMajor = 0;                        // thread-block clusters need 9 (Hopper) or later
};

// Tunables of the block-private 2-D families; the bench sweeps them.
struct Tuning2D {
    int threads = 256;                   // generic forms (at most 256: their launch bounds)
    int fastStripThreads = 1024;         // fast column strips (at most 1024)
    std::uint32_t stripColumns = 32;     // columns a strip block owns (one bin per column)
    std::uint32_t denseDivisor = 8;      // a block stores its counters whole past words / divisor nonzero
    bool packed16 = true;                // 16-bit counters where the bound allows
    bool fast = true;                    // the compile-time forms of the commonest scopes
    int stripBatch = 8;                  // fast strips: rows of its column group a thread loads before counting them
    bool stripPad = true;                // fast strips: an odd word stride per column, so columns fall in different banks
    int cluster = 8;                     // fast joint tiles: blocks of a cluster that merge their tiles through
                                         // distributed shared memory (0: per-block tiles, merged alone)
    bool clusterDense = false;           // fast joint tiles: each cluster stores its sums for a reduction kernel
    std::uint32_t chunkPixels = 0;       // fast joint tiles with clusters: pixels per block (0: balanced; tests)
};

// ---- column strips (every pair's x is the column, one binning) ----------------------------------
struct StripPlan {
    bool fits = false;
    bool packed16 = false;
    std::uint32_t binsPerItem = 1;
    std::uint32_t binItems = 0;
    std::uint32_t blocks = 0;            // binItems + below, above, NaN
    std::uint32_t colStride = 0;         // counters per x slot in shared memory (the y slots of every pair, padded)
    std::size_t sharedBytes = 0;
};
StripPlan planStrips(const Launch2D& launch, const Device2D& device, const Tuning2D& tuning);
// Writes every counter of the grid: no clearing needed.
Status launchStrips(const Launch2D& launch, const StripPlan& plan, const Tuning2D& tuning, LaunchCache& cache,
                    const Device2D& device, cudaStream_t stream);

// ---- joint: block-private tiles of the grid, merged sparse or dense ----------------------------
struct JointScratch {
    DeviceBuffer dense;      // rows of a tile's counter words, one per block (or cluster) that stores densely
    DeviceBuffer control;    // [0]: dense rows taken
    int lastCluster = 0;     // blocks per cluster of the last fast joint launch (0: per-block tiles), for the bench
    LaunchCache cache;       // occupancy and shared-memory grants, asked once
    std::map<std::pair<const void*, int>, int> clusters;  // resident clusters per (kernel, cluster size)
};
struct JointPlan {
    bool packed16 = false;
    std::uint32_t tileSlots = 0;
    std::uint32_t tiles = 0;
    std::size_t sharedBytes = 0;
};
JointPlan planJoint(const Launch2D& launch, const Device2D& device, const Tuning2D& tuning);
// Adds to the counters: clear them first.
Status launchJoint(const Launch2D& launch, const JointPlan& plan, JointScratch& scratch, const Device2D& device,
                   const Tuning2D& tuning, cudaStream_t stream);

// ---- global atomics ------------------------------------------------------------------------------
// Adds to the counters: clear them first.
Status launchGlobal2D(const Launch2D& launch, const Device2D& device, cudaStream_t stream);

// ---- CUB: DeviceHistogram::HistogramEven over each sample's computed cell index -----------------
struct CubScratch2D {
    DeviceBuffer temp;       // CUB's temporary storage
    DeviceBuffer cells;      // materialized cell indices
    DeviceBuffer launch;     // the launch description the fused iterator reads
    Launch2D uploaded{};     // what `launch` holds
    bool valid = false;
};
// Writes every counter; needs pixels * pairs < 2^31 (CUB's int counters).
Status launchCub2D(const Launch2D& launch, CubScratch2D& scratch, cudaStream_t stream);

// The same through a materialized buffer of cell indices (one extra pass, CUB's pointer path).
Status launchCubMaterialized2D(const Launch2D& launch, CubScratch2D& scratch, const Device2D& device, cudaStream_t stream);

// ---- a read of the same bytes, for the benchmark -------------------------------------------------
Status launchReadProbe2D(const Region2D& region, std::size_t pixelBytes, unsigned long long* d_sink,
                         const Device2D& device, cudaStream_t stream);

}  // namespace hs::detail
