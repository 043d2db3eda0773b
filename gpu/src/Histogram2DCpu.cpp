// The CPU backend of the 2-D histograms. Position-against-value requests are cut into strips of
// columns, each thread owning every counter of its strip's x slots (no copies, no atomics); other
// requests give each thread a private grid over a band of rows, summed at the end, or, where
// private grids would not fit, relaxed atomic increments on the one grid.
// 8-bit pixels whose axes need no hue or saturation (waveforms, parades, vectorscopes: the scopes
// of a playing video) take every axis slot from a table built per request, the same mapping
// tabulated, about 8x faster than the per-pixel arithmetic.
#include "Histogram2DBackend.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <type_traits>
#include <vector>

namespace hs::detail {

namespace {

constexpr std::uint64_t kPrivateGridBytesMax = std::uint64_t(256) << 20;
// Column bins per strip: a 3-pair parade strip's 32-bit counters are then about 200 KB.
constexpr std::uint32_t kStripBins = 64;

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

// The per-pixel arithmetic of Histogram2DMath.h, for every type and quantity.
template <typename T, int C>
struct PixelArithmetic {
    const Plan2D& plan;

    template <typename Add>
    void operator()(const unsigned char* p, std::int64_t x, Add&& add) const
    {
        T px[C];
        loadPixelHost<T, C>(p, px);
        const PixelQuantities q = pixelQuantities(plan.map, px);
        for (int i = 0; i < plan.map.numPairs; ++i)
            add(i, pairSlot(plan.map.pair[i], px, x, q));
    }
};

bool tabulable(const Plan2D& plan) { return plan.type == SampleType::U8 && !plan.map.needHsv; }

// 8-bit pixels: each axis reads one small integer (a channel's code, luma, Cb, Cr, or the column)
// and looks its slot up in a table filled from the same mapping (slotOfInteger, yccCoefficients),
// so the counts are those of PixelArithmetic. A pair's x table holds base + x slot * y slots.
template <int C>
class PixelTables {
public:
    explicit PixelTables(const Plan2D& plan) : m_pairs(plan.map.numPairs)
    {
        const Map2D& m = plan.map;
        const YccCoefficients k = yccCoefficients(m.bt709);
        m_needCodes = m.needCodes;
        for (int v = 0; v < 256; ++v) {
            m_y[0][v] = std::int32_t(k.yr * v), m_y[1][v] = std::int32_t(k.yg * v), m_y[2][v] = std::int32_t(k.yb * v);
            m_cb[0][v] = std::int32_t(k.cbr * v), m_cb[1][v] = std::int32_t(k.cbg * v), m_cb[2][v] = std::int32_t(k.cbb * v);
            m_cr[0][v] = std::int32_t(k.crr * v), m_cr[1][v] = std::int32_t(k.crg * v), m_cr[2][v] = std::int32_t(k.crb * v);
        }
        for (int c = 0; c < 3; ++c)
            m_rgb[c] = m.rgb[c];
        for (int i = 0; i < m_pairs; ++i) {
            const PairMap2D& pm = m.pair[i];
            m_axes[i][0] = axis(pm.x, plan.width, pm.base, pm.ySlots);
            m_axes[i][1] = axis(pm.y, plan.width, 0, 1);
        }
    }

    template <typename Add>
    void operator()(const unsigned char* p, std::int64_t x, Add&& add) const
    {
        // Sources 0..3: the channels; 4, 5, 6: luma, Cb, Cr (with 8-bit codes, each in [0, 255]).
        std::int32_t v[7];
        for (int c = 0; c < C; ++c)
            v[c] = p[c];
        if (m_needCodes) {
            const std::int32_t r = v[m_rgb[0]], g = v[m_rgb[1]], b = v[m_rgb[2]];
            v[4] = (m_y[0][r] + m_y[1][g] + m_y[2][b] + 32768) >> 16;
            v[5] = 128 + ((m_cb[0][r] + m_cb[1][g] + m_cb[2][b]) >> 16);
            v[6] = 128 + ((m_cr[0][r] + m_cr[1][g] + m_cr[2][b]) >> 16);
        }
        for (int i = 0; i < m_pairs; ++i) {
            const Axis& ax = m_axes[i][0];
            const Axis& ay = m_axes[i][1];
            add(i, ax.table[ax.source < 0 ? x : v[ax.source]] + ay.table[ay.source < 0 ? x : v[ay.source]]);
        }
    }

private:
    struct Axis {
        int source = 0;                    // -1: the column
        std::vector<std::uint32_t> table;  // base + slot * scale, by code or by column
    };

    static Axis axis(const AxisMap2D& a, std::int64_t width, std::uint32_t base, std::uint32_t scale)
    {
        Axis out;
        switch (a.quantity) {
        case Q2::Column: out.source = -1; break;
        case Q2::Luma: out.source = 4; break;
        case Q2::Cb: out.source = 5; break;
        case Q2::Cr: out.source = 6; break;
        default: out.source = a.channel; break;
        }
        const std::int64_t n = out.source < 0 ? width : 256;
        out.table.resize(std::size_t(n));
        for (std::int64_t i = 0; i < n; ++i)
            out.table[std::size_t(i)] = base + slotOfInteger(a.map, i) * scale;
        return out;
    }

    int m_pairs;
    bool m_needCodes = false;
    int m_rgb[3] = {0, 1, 2};
    std::int32_t m_y[3][256], m_cb[3][256], m_cr[3][256];
    Axis m_axes[4][2];
};

// A strip counts into 32-bit counters of its own x slots, small enough to stay in the core's
// cache (the whole grid of a 720p parade is 8 MB of 64-bit counters: scattered increments into it
// ran 6x slower), and adds them into the totals after each band of rows. A band holds fewer than
// 2^32 pixels of the strip, so no counter can wrap: each pixel adds one to one counter per pair.
template <typename Pixel>
void countStrips(const Plan2D& plan, std::uint64_t* slots, int threads, const Pixel& countPixel)
{
    const ChannelMap& columns = plan.map.pair[0].x.map;
    const int parts = std::max<int>(threads * 8, int(columns.num_bins / kStripBins));
    const std::vector<Strip> strips = makeStrips(plan, parts);
    const int numPairs = plan.map.numPairs;
#pragma omp parallel num_threads(threads)
    {
        std::vector<std::uint32_t> local;
#pragma omp for schedule(dynamic, 1)
        for (std::size_t k = 0; k < strips.size(); ++k) {
            const Strip s = strips[k];
            if (s.c1 <= s.c0)
                continue;
            // The strip's x slots [sx0, sx1]: every pair bins the column alike.
            const std::uint32_t sx0 = slotOfInteger(columns, s.c0), sx1 = slotOfInteger(columns, s.c1 - 1);
            const std::uint32_t nx = sx1 - sx0 + 1;
            std::uint32_t first[4], offset[4];   // the pair's first global slot of the strip; its local start
            std::uint32_t size = 0;
            for (int i = 0; i < numPairs; ++i) {
                const PairMap2D& pm = plan.map.pair[i];
                first[i] = pm.base + sx0 * pm.ySlots;
                offset[i] = size;
                size += nx * pm.ySlots;
            }
            local.assign(size, 0);
            const std::int64_t bandRows = std::max<std::int64_t>(1, std::int64_t(0xffffffffu) / (s.c1 - s.c0));
            for (std::int64_t r0 = 0; r0 < plan.rows; r0 += bandRows) {
                const std::int64_t r1 = std::min(plan.rows, r0 + bandRows);
                for (std::int64_t r = r0; r < r1; ++r) {
                    const unsigned char* row = plan.row(r);
                    for (std::int64_t x = s.c0; x < s.c1; ++x)
                        countPixel(row + std::size_t(x) * plan.pixelBytes, x,
                                   [&](int i, std::uint32_t slot) { ++local[offset[i] + (slot - first[i])]; });
                }
                for (int i = 0; i < numPairs; ++i) {
                    const std::uint32_t n = nx * plan.map.pair[i].ySlots;
                    std::uint64_t* out = slots + first[i];
                    const std::uint32_t* in = local.data() + offset[i];
                    for (std::uint32_t j = 0; j < n; ++j)
                        out[j] += in[j];
                }
                std::fill(local.begin(), local.end(), 0u);
            }
        }
    }
}

template <typename Pixel>
void countRows(const Plan2D& plan, std::uint64_t* slots, int threads, const Pixel& countPixel)
{
    const std::uint64_t gridBytes = std::uint64_t(plan.map.numSlots) * sizeof(std::uint64_t);
    if (threads > 1 && gridBytes * std::uint64_t(threads) > kPrivateGridBytesMax) {
        // Too large to copy per thread: one grid, relaxed atomic increments.
#pragma omp parallel for schedule(dynamic, 4) num_threads(threads)
        for (std::int64_t r = 0; r < plan.rows; ++r) {
            const unsigned char* row = plan.row(r);
            for (std::int64_t x = 0; x < plan.width; ++x)
                countPixel(row + std::size_t(x) * plan.pixelBytes, x, [&](int, std::uint32_t slot) {
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
                countPixel(row + std::size_t(x) * plan.pixelBytes, x, [&](int, std::uint32_t slot) { ++mine[slot]; });
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

    Status count(const Plan2D& plan, Strategy, const GridTargets& targets, PhaseTimings& timings) override
    {
        const auto start = std::chrono::steady_clock::now();
        // Totals of its own (kept between calls): the strips and rows below count into one array.
        m_slots.resize(plan.map.numSlots);
        zeroCounts(m_slots.data(), m_slots.size());
        std::uint64_t* slots = m_slots.data();
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
        deliverCounts(plan, slots, targets, false);
        timings = {};
        timings.tallyMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        return Status::success();
    }

private:
    template <typename T, int C>
    void run(const Plan2D& plan, std::uint64_t* slots)
    {
        if constexpr (std::is_same_v<T, std::uint8_t>) {
            if (tabulable(plan))
                return runWith(plan, slots, PixelTables<C>(plan));
        }
        runWith(plan, slots, PixelArithmetic<T, C>{plan});
    }

    template <typename Pixel>
    void runWith(const Plan2D& plan, std::uint64_t* slots, const Pixel& pixel)
    {
        if (plan.columnStrips)
            countStrips(plan, slots, m_threads, pixel);
        else
            countRows(plan, slots, m_threads, pixel);
    }

    int m_threads;
    std::vector<std::uint64_t> m_slots;
};

}  // namespace

std::unique_ptr<Backend2D> makeCpu2DBackend(int threads) { return std::make_unique<Cpu2DBackend>(threads); }

}  // namespace hs::detail
