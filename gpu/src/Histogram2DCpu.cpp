// The CPU backend of the 2-D histograms. Position-against-value requests are cut into strips of
// columns, each thread owning every counter of its strip's x slots (no copies, no atomics); other
// requests give each thread a private grid over a band of rows, summed at the end, or, where
// private grids would not fit, relaxed atomic increments on the one grid.
#include "Histogram2DBackend.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <vector>

namespace hs::detail {

namespace {

constexpr std::uint64_t kPrivateGridBytesMax = std::uint64_t(256) << 20;

struct Strip {
    std::int64_t c0, c1;
};

// Strips of whole x slots: bin ranges, then the columns below and above the axis range.
std::vector<Strip> makeStrips(const Plan2D& plan, int parts)
{
    const ChannelMap& m = plan.map.pair[0].x.map;
    std::vector<Strip> strips;
    const std::uint64_t step = std::max<std::uint64_t>(1, m.num_bins / std::max(1, parts));
    for (std::uint64_t b = 0; b < m.num_bins; b += step) {
        const std::uint64_t e = std::min<std::uint64_t>(m.num_bins, b + step);
        strips.push_back({firstColumnOfBin(m, b, plan.width), firstColumnOfBin(m, e, plan.width)});
    }
    strips.push_back({0, firstColumnOfBin(m, 0, plan.width)});
    strips.push_back({firstColumnOfBin(m, m.num_bins, plan.width), plan.width});
    return strips;
}

template <typename T, int C, typename Add>
inline void countPixel(const Plan2D& plan, const unsigned char* p, std::int64_t x, Add&& add)
{
    T px[C];
    loadPixelHost<T, C>(p, px);
    const PixelQuantities q = pixelQuantities(plan.map, px);
    for (int i = 0; i < plan.map.numPairs; ++i)
        add(pairSlot(plan.map.pair[i], px, x, q));
}

template <typename T, int C>
void countStrips(const Plan2D& plan, std::uint64_t* slots, int threads)
{
    const std::vector<Strip> strips = makeStrips(plan, threads * 8);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (std::size_t k = 0; k < strips.size(); ++k) {
        const Strip s = strips[k];
        for (std::int64_t r = 0; r < plan.rows; ++r) {
            const unsigned char* row = plan.row(r);
            for (std::int64_t x = s.c0; x < s.c1; ++x)
                countPixel<T, C>(plan, row + std::size_t(x) * plan.pixelBytes, x, [&](std::uint32_t slot) { ++slots[slot]; });
        }
    }
}

template <typename T, int C>
void countRows(const Plan2D& plan, std::uint64_t* slots, int threads)
{
    const std::uint64_t gridBytes = std::uint64_t(plan.map.numSlots) * sizeof(std::uint64_t);
    if (threads > 1 && gridBytes * std::uint64_t(threads) > kPrivateGridBytesMax) {
        // Too large to copy per thread: one grid, relaxed atomic increments.
#pragma omp parallel for schedule(dynamic, 4) num_threads(threads)
        for (std::int64_t r = 0; r < plan.rows; ++r) {
            const unsigned char* row = plan.row(r);
            for (std::int64_t x = 0; x < plan.width; ++x)
                countPixel<T, C>(plan, row + std::size_t(x) * plan.pixelBytes, x, [&](std::uint32_t slot) {
                    std::atomic_ref<std::uint64_t>(slots[slot]).fetch_add(1, std::memory_order_relaxed);
                });
        }
        return;
    }
    // Tasks of about 2^16 pixels: rows, or pieces of one long row.
    const std::int64_t piece = std::max<std::int64_t>(1, std::min<std::int64_t>(plan.width, std::int64_t(1) << 16));
    const std::int64_t perRow = (plan.width + piece - 1) / piece;
    const std::int64_t tasks = plan.rows * perRow;
#pragma omp parallel num_threads(threads)
    {
        std::vector<std::uint64_t> mine(plan.map.numSlots, 0);
#pragma omp for schedule(dynamic, 1) nowait
        for (std::int64_t t = 0; t < tasks; ++t) {
            const std::int64_t r = t / perRow;
            const std::int64_t x0 = (t % perRow) * piece;
            const std::int64_t x1 = std::min(plan.width, x0 + piece);
            const unsigned char* row = plan.row(r);
            for (std::int64_t x = x0; x < x1; ++x)
                countPixel<T, C>(plan, row + std::size_t(x) * plan.pixelBytes, x, [&](std::uint32_t slot) { ++mine[slot]; });
        }
#pragma omp critical(histoscope_2d_merge)
        for (std::uint32_t s = 0; s < plan.map.numSlots; ++s)
            slots[s] += mine[s];
    }
}

class Cpu2DBackend final : public Backend2D {
public:
    explicit Cpu2DBackend(int threads) : m_threads(threads > 0 ? threads : omp_get_max_threads()) {}

    BackendKind kind() const override { return BackendKind::Cpu; }

    Status choose(const Plan2D& plan, Strategy requested, StrategyChoice& choice) override
    {
        if (requested != Strategy::Auto && requested != Strategy::Cpu)
            return Status::error(isGpuStrategy(requested) ? ErrorCode::NoDevice : ErrorCode::UnsupportedStrategy,
                                 "strategy '" + std::string(strategyName(requested))
                                     + "' needs a CUDA device, and none is available");
        choice.strategy = Strategy::Cpu;
        choice.reason = plan.columnStrips ? "cpu: " + std::to_string(m_threads) + " thread(s), each owning strips of columns"
                                          : "cpu: " + std::to_string(m_threads) + " thread(s), private grids over rows";
        return Status::success();
    }

    Status count(const Plan2D& plan, Strategy, std::uint64_t* slots, PhaseTimings& timings) override
    {
        const auto start = std::chrono::steady_clock::now();
        if (plan.pixels() > 0) {
            visitSampleType2D(plan.type, [&](auto tag) {
                using T = decltype(tag);
                switch (plan.channels) {
                case 1: run<T, 1>(plan, slots); break;
                case 2: run<T, 2>(plan, slots); break;
                case 3: run<T, 3>(plan, slots); break;
                default: run<T, 4>(plan, slots); break;
                }
            });
        }
        timings = {};
        timings.tallyMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        return Status::success();
    }

private:
    template <typename T, int C>
    void run(const Plan2D& plan, std::uint64_t* slots)
    {
        if (plan.columnStrips)
            countStrips<T, C>(plan, slots, m_threads);
        else
            countRows<T, C>(plan, slots, m_threads);
    }

    int m_threads;
};

}  // namespace

std::unique_ptr<Backend2D> makeCpu2DBackend(int threads) { return std::make_unique<Cpu2DBackend>(threads); }

}  // namespace hs::detail
