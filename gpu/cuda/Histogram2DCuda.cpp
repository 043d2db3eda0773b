// The CUDA backend of the 2-D histograms: its own stream, events and growing buffers (RAII), a
// request cut into pieces of fewer than 2^32 pixels (the bound of the 32-bit device counters),
// each piece uploaded if needed (host rows through pinned chunks, HostStaging.h), counted by the chosen family, downloaded and widened to 64 bits.
#include "../src/Histogram2DBackend.h"
#include "CudaCheck.h"
#include "DeviceHealth.h"
#include "DeviceMemory.h"
#include "HostStaging.h"
#include "kernels/Histogram2DKernels.h"
#include "kernels/Kernels.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

namespace hs::detail {

namespace {

constexpr std::uint64_t kPieceLimit = 0xffffffffull;        // pixels per piece: 32-bit counters
constexpr std::uint64_t kCubPieceLimit = 0x7ffffffeull;     // samples per piece: CUB's int counters
constexpr std::uint32_t kAutoJointTilesMax = 4;             // passes over the input auto accepts

struct Piece {
    std::int64_t r0, rows, c0, cols;
};

std::vector<Piece> makePieces(const Plan2D& plan, std::uint64_t limit)
{
    std::vector<Piece> pieces;
    if (plan.pixels() == 0)
        return pieces;
    const std::int64_t cols = std::int64_t(std::min<std::uint64_t>(std::uint64_t(plan.width), limit));
    const std::int64_t rowsPer = std::int64_t(std::max<std::uint64_t>(1, limit / std::uint64_t(cols)));
    for (std::int64_t r = 0; r < plan.rows; r += rowsPer)
        for (std::int64_t c = 0; c < plan.width; c += cols)
            pieces.push_back({r, std::min(rowsPer, plan.rows - r), c, std::min(cols, plan.width - c)});
    return pieces;
}

// HISTOSCOPE_2D_TUNING="strip=64,packed16=0,dense=0,threads=128,sthreads=512,fast=0,batch=8,pad=0,cluster=4,cdense=1,
// chunk=1000000":
// the self-check runs every
// variant of the block-private families through the facade with it.
void readTuning(const char* text, Tuning2D& t)
{
    const std::string s = text ? text : "";
    std::size_t at = 0;
    while (at < s.size()) {
        const std::size_t end = std::min(s.find(',', at), s.size());
        const std::string item = s.substr(at, end - at);
        const std::size_t eq = item.find('=');
        if (eq != std::string::npos) {
            const std::string key = item.substr(0, eq);
            const long value = std::strtol(item.c_str() + eq + 1, nullptr, 10);
            if (key == "strip" && value > 0)
                t.stripColumns = std::uint32_t(value);
            else if (key == "packed16")
                t.packed16 = value != 0;
            else if (key == "dense" && value >= 0)
                t.denseDivisor = std::uint32_t(value);
            else if (key == "threads" && value >= 32 && value <= 256 && value % 32 == 0)
                t.threads = int(value);
            else if (key == "sthreads" && value >= 32 && value <= 1024 && value % 32 == 0)
                t.fastStripThreads = int(value);
            else if (key == "fast")
                t.fast = value != 0;
            else if (key == "batch" && value >= 1 && value <= 8)
                t.stripBatch = int(value);
            else if (key == "pad")
                t.stripPad = value != 0;
            else if (key == "cluster" && value >= 0 && value <= 16)
                t.cluster = int(value);
            else if (key == "cdense")
                t.clusterDense = value != 0;
            else if (key == "chunk" && value >= 0)
                t.chunkPixels = std::uint32_t(value);
        }
        at = end + 1;
    }
}

class TimedEvents {
public:
    Status create()
    {
        HS_TRY(m_start.create());
        return m_stop.create();
    }
    Status begin(cudaStream_t s) { return cudaStatus(cudaEventRecord(m_start.get(), s), "cudaEventRecord"); }
    Status end(cudaStream_t s) { return cudaStatus(cudaEventRecord(m_stop.get(), s), "cudaEventRecord"); }
    // From `start` (default: this pair's own) to this pair's stop.
    Status elapsed(double& ms, cudaEvent_t start = nullptr)
    {
        HS_CUDA_TRY(cudaEventSynchronize(m_stop.get()));
        float f = 0;
        HS_CUDA_TRY(cudaEventElapsedTime(&f, start ? start : m_start.get(), m_stop.get()));
        ms += f;
        return Status::success();
    }

private:
    CudaEvent m_start, m_stop;
};

class Cuda2DBackend final : public Backend2D {
public:
    explicit Cuda2DBackend(int device) : m_health(device) {}
    ~Cuda2DBackend() override { m_teardown = m_health.hold(); }

    Status call(const std::function<Status()>& work) override { return m_health.call(work); }
    Status injectFault() override
    {
        HS_CUDA_TRY(cudaSetDevice(m_deviceOrdinal));
        return launchFault(m_stream.get());
    }

    Status init(const EngineOptions& options)
    {
        HS_CUDA_TRY(cudaSetDevice(options.device));
        cudaDeviceProp prop{};
        HS_CUDA_TRY(cudaGetDeviceProperties(&prop, options.device));
        m_device.multiprocessors = prop.multiProcessorCount;
        m_device.sharedOptin = prop.sharedMemPerBlockOptin;
        m_device.sharedPerMultiprocessor = prop.sharedMemPerMultiprocessor;
        m_device.maxThreadsPerMultiprocessor = prop.maxThreadsPerMultiProcessor;
        m_device.computeMajor = prop.major;
        m_deviceOrdinal = options.device;
        m_poison = std::getenv("HISTOSCOPE_POISON_2D") != nullptr;
        readTuning(std::getenv("HISTOSCOPE_2D_TUNING"), m_tuning);
        HS_TRY(m_stream.create());
        HS_TRY(m_upload.create());
        HS_TRY(m_hostUpload.create());
        HS_TRY(m_clear.create());
        HS_TRY(m_tally.create());
        return m_download.create();
    }

    BackendKind kind() const override { return BackendKind::Cuda; }

    Status choose(const Plan2D& plan, Strategy requested, StrategyChoice& choice) override
    {
        const Launch2D probe = launchFor(plan, nullptr, Region2D{nullptr, 0, plan.width, std::min<std::int64_t>(plan.rows, std::int64_t(kPieceLimit / std::max<std::uint64_t>(1, plan.width))), 0});
        const StripPlan strips = plan.columnStrips ? planStrips(probe, m_device, m_tuning) : StripPlan{};
        const JointPlan joint = planJoint(probe, m_device, m_tuning);
        const std::string cells = std::to_string(plan.inRangeCells()) + " cells";
        const std::string sharedWhy = strips.fits
            ? "column strips: a block owns " + std::to_string(strips.binsPerItem) + " x bin(s) and every counter of them ("
                + (strips.packed16 ? "16" : "32") + "-bit shared counters, stored once, no atomics on global memory)"
            : "joint tiles: " + std::to_string(joint.tiles) + " tile(s) of " + std::to_string(joint.tileSlots) + " "
                + (joint.packed16 ? "16" : "32") + "-bit shared counters, merged sparse or dense";
        switch (requested) {
        case Strategy::Auto:
            if (strips.fits || joint.tiles <= kAutoJointTilesMax) {
                choice = {Strategy::Shared, "auto: " + cells + ", " + sharedWhy};
            } else {
                choice = {Strategy::GlobalAtomic, "auto: " + cells + " would take " + std::to_string(joint.tiles)
                                                      + " passes through shared memory: global atomics"};
            }
            return Status::success();
        case Strategy::Shared: choice = {Strategy::Shared, "shared: " + sharedWhy}; return Status::success();
        case Strategy::GlobalAtomic: choice = {Strategy::GlobalAtomic, "global-atomic: one 32-bit atomic per run of equal cells"}; return Status::success();
        case Strategy::Cub:
            // CUB's DeviceHistogram keeps a global copy of every bin per block, indexed with 32-bit
            // offsets: past 2^20 bins it writes out of bounds (an 8K parade's 5.9 M cells faulted
            // the device). The same bound as the 1-D path's.
            if (plan.map.numSlots > kCubMaxBins)
                return Status::error(ErrorCode::UnsupportedStrategy,
                                     "strategy 'cub' takes at most " + std::to_string(kCubMaxBins) + " cells (margins included), not "
                                         + std::to_string(plan.map.numSlots) + ": use auto, shared or global-atomic");
            choice = {Strategy::Cub, "cub: DeviceHistogram::HistogramEven over each sample's cell index"};
            return Status::success();
        default: break;
        }
        return Status::error(ErrorCode::UnsupportedStrategy,
                             "strategy '" + std::string(strategyName(requested)) + "' does not count 2-D histograms");
    }

    Status count(const Plan2D& plan, Strategy strategy, const GridTargets& targets, PhaseTimings& timings) override
    {
        HS_CUDA_TRY(cudaSetDevice(m_deviceOrdinal));
        timings = {};
        const std::uint64_t limit = strategy == Strategy::Cub
            ? kCubPieceLimit / std::uint64_t(std::max(1, plan.map.numPairs))
            : kPieceLimit;
        const std::size_t countBytes = std::size_t(plan.map.numSlots) * sizeof(std::uint32_t);
        HS_TRY(m_counts.reserve(countBytes));
        HS_TRY(m_host.reserve(countBytes));
        const cudaStream_t s = m_stream.get();
        const std::vector<Piece> pieces = makePieces(plan, limit);
        if (pieces.empty())
            clearTargets(plan, targets);
        bool first = true;
        for (const Piece& piece : pieces) {
            Region2D region{};
            region.width = piece.cols;
            region.rows = piece.rows;
            region.col0 = piece.c0;
            const unsigned char* origin = plan.row(piece.r0) + std::size_t(piece.c0) * plan.pixelBytes;
            if (plan.space == MemorySpace::Host) {
                const std::size_t rowBytes = std::size_t(piece.cols) * plan.pixelBytes;
                const std::size_t pitch = (rowBytes + 15) / 16 * 16;
                HS_TRY(m_input.reserve(pitch * std::size_t(piece.rows)));
                HS_TRY(m_hostUpload.upload(origin, plan.pitch, rowBytes, piece.rows, m_input.get<unsigned char>(), pitch, s));
                HS_TRY(m_upload.end(s));
                region.d_origin = m_input.get<unsigned char>();
                region.pitch = pitch;
            } else {
                region.d_origin = origin;
                region.pitch = plan.pitch;
            }
            Launch2D launch = launchFor(plan, m_counts.get<std::uint32_t>(), region);
            StripPlan strips;
            if (strategy == Strategy::Shared && plan.columnStrips)
                strips = planStrips(launch, m_device, m_tuning);
            const bool writesAll = strategy == Strategy::Cub || strips.fits;
            if (writesAll && m_poison)  // tests: prove that every counter is written
                HS_CUDA_TRY(cudaMemsetAsync(launch.d_counts, 0xa5, countBytes, s));
            HS_TRY(m_clear.begin(s));
            if (!writesAll)
                HS_CUDA_TRY(cudaMemsetAsync(launch.d_counts, 0, countBytes, s));
            HS_TRY(m_clear.end(s));
            HS_TRY(m_tally.begin(s));
            if (strategy == Strategy::Cub)
                HS_TRY(launchCub2D(launch, m_cub, s));
            else if (strategy == Strategy::GlobalAtomic)
                HS_TRY(launchGlobal2D(launch, m_device, s));
            else if (strips.fits)
                HS_TRY(launchStrips(launch, strips, m_tuning, m_joint.cache, m_device, s));
            else
                HS_TRY(launchJoint(launch, planJoint(launch, m_device, m_tuning), m_joint, m_device, m_tuning, s));
            HS_TRY(m_tally.end(s));
            HS_TRY(m_download.begin(s));
            HS_CUDA_TRY(cudaMemcpyAsync(m_host.get(), launch.d_counts, countBytes, cudaMemcpyDeviceToHost, s));
            HS_TRY(m_download.end(s));
            HS_CUDA_TRY(cudaStreamSynchronize(s));
            if (plan.space == MemorySpace::Host)
                HS_TRY(m_upload.elapsed(timings.uploadMs, m_hostUpload.started()));
            HS_TRY(m_clear.elapsed(timings.clearMs));
            HS_TRY(m_tally.elapsed(timings.tallyMs));
            HS_TRY(m_download.elapsed(timings.downloadMs));
            // The first piece's counts replace the grids' contents; the others add to them.
            deliverCounts(plan, m_host.get<std::uint32_t>(), targets, !first);
            first = false;
        }
        return Status::success();
    }

private:
    // Declared first, so destroyed last: the context is held while the owners below release.
    std::optional<std::shared_lock<std::shared_mutex>> m_teardown;
    DeviceHealth m_health;

    Launch2D launchFor(const Plan2D& plan, std::uint32_t* d_counts, const Region2D& region) const
    {
        Launch2D l;
        l.type = plan.type;
        l.channels = plan.channels;
        l.region = region;
        l.map = plan.map;
        l.d_counts = d_counts;
        return l;
    }

    Device2D m_device;
    Tuning2D m_tuning;
    int m_deviceOrdinal = 0;
    bool m_poison = false;
    CudaStream m_stream;
    TimedEvents m_upload, m_clear, m_tally, m_download;
    ChunkedUpload m_hostUpload;   // host input through pinned chunks (m_upload's stop ends its phase)
    DeviceBuffer m_input;
    DeviceBuffer m_counts;
    PinnedBuffer m_host;
    CubScratch2D m_cub;
    JointScratch m_joint;
};

}  // namespace

std::unique_ptr<Backend2D> makeCuda2DBackend(const EngineOptions& options, std::string& why)
{
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices <= options.device || options.device < 0) {
        cudaGetLastError();  // clear the sticky "no device" error
        why = "No CUDA device found: counting on the CPU";
        return nullptr;
    }
    if (Status s = DeviceHealth::recoverIfFaulted(options.device); !s) {
        why = "CUDA device faulted and could not be reset (" + s.message + "): counting on the CPU";
        return nullptr;
    }
    auto backend = std::make_unique<Cuda2DBackend>(options.device);
    if (Status s = backend->call([&] { return backend->init(options); }); !s) {
        why = DeviceHealth::wasReset(options.device)
            ? "CUDA cannot use the device again after its fault (" + s.message + "): counting on the CPU until HistoScope restarts"
            : "CUDA device unusable (" + s.message + "): counting on the CPU";
        return nullptr;
    }
    return backend;
}

}  // namespace hs::detail
