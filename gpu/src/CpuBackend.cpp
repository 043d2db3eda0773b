#include "CpuBackend.h"

#include "CpuCountU8.h"
#include "CpuTuning.h"
#include "Equalization.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <utility>

namespace hs::detail {

namespace {

int subHistogramsFor(std::uint32_t numSlots)
{
    return numSlots <= kCpuTuning.subHistogramSlotsMax ? kCpuTuning.subHistograms : 1;
}

struct Task {
    std::int64_t row;
    std::int64_t x0;
    std::int64_t x1;
};

std::vector<Task> makeTasks(const RequestPlan& plan)
{
    std::vector<Task> tasks;
    const std::int64_t step = std::max<std::int64_t>(1, kCpuTuning.taskPixels);
    for (std::int64_t r = 0; r < plan.rows; ++r)
        for (std::int64_t x = 0; x < plan.width; x += step)
            tasks.push_back({r, x, std::min(plan.width, x + step)});
    return tasks;
}

// Value -> slot tables for 8- and 16-bit samples: one load replaces the range checks.
// Inactive channels map to a spare slot past the end that is never reported.
template <typename T>
std::vector<std::uint32_t> buildLut(const RequestPlan& plan)
{
    constexpr std::size_t values = std::size_t(1) << (8 * sizeof(T));
    std::vector<std::uint32_t> lut(values * plan.channels);
    for (int c = 0; c < plan.channels; ++c)
        for (std::size_t v = 0; v < values; ++v)
            lut[c * values + v] = plan.map.ch[c].active ? slotOf(plan.map.ch[c], T(v)) : plan.map.num_slots;
    return lut;
}

// A thread's extremes of one channel, as order-preserving keys (SlotMapping.h).
struct KeyRange {
    std::uint32_t lo = 0xffffffffu;
    std::uint32_t hi = 0;
    void see(std::uint32_t key)
    {
        lo = std::min(lo, key);
        hi = std::max(hi, key);
    }
    bool seen() const { return lo <= hi; }
};
using KeyRanges = std::array<KeyRange, kMaxChannels>;

// 8- and 16-bit samples need their extremes tracked only when the counts cannot give them
// (extremaFromCounts): a pass over the values, kept apart so the counting loop stays as it was.
template <typename T, int C>
void trackValues(const T* s, std::int64_t n, KeyRanges& ranges)
{
    T lo[C], hi[C];
    for (int c = 0; c < C; ++c) {
        lo[c] = std::numeric_limits<T>::max();
        hi[c] = 0;
    }
    for (std::int64_t i = 0; i < n; ++i)
        for (int c = 0; c < C; ++c) {
            lo[c] = std::min(lo[c], s[i * C + c]);
            hi[c] = std::max(hi[c], s[i * C + c]);
        }
    for (int c = 0; c < C; ++c)
        if (n > 0) {
            ranges[c].see(lo[c]);
            ranges[c].see(hi[c]);
        }
}

template <typename T, int C>
void countLut(const unsigned char* p, std::int64_t n, const std::uint32_t* lut, std::uint32_t* sub,
              std::uint32_t stride, bool track, KeyRanges& ranges)
{
    constexpr std::size_t values = std::size_t(1) << (8 * sizeof(T));
    constexpr int K = kCpuTuning.subHistograms;
    const T* s = reinterpret_cast<const T*>(p);
    std::int64_t i = 0;
    for (; i + K <= n; i += K) {
        for (int k = 0; k < K; ++k)
            for (int c = 0; c < C; ++c)
                ++sub[k * stride + lut[c * values + s[(i + k) * C + c]]];
    }
    for (; i < n; ++i)
        for (int c = 0; c < C; ++c)
            ++sub[lut[c * values + s[i * C + c]]];
    if (track)
        trackValues<T, C>(s, n, ranges);
}

// 8-bit samples whose every channel maps value v to slot base + v (256 bins over [0, 256)): the
// commonest frame of all, counted by CpuCountU8.h without the lookup table's extra load.
bool isDirectU8(const RequestPlan& plan)
{
    if (plan.type != SampleType::U8)
        return false;
    for (int c = 0; c < plan.channels; ++c) {
        const ChannelMap& m = plan.map.ch[c];
        if (!m.active || m.mode != MapMode::Identity || m.ilo != 0 || m.num_bins != 256)
            return false;
    }
    return true;
}

template <typename T, int C>
void countMapped(const unsigned char* p, std::int64_t n, const SlotMap& map, std::uint32_t* sub,
                 std::uint32_t stride, int numSub, KeyRanges& ranges)
{
    int k = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        std::uint32_t* h = sub + std::size_t(k) * stride;
        k = k + 1 == numSub ? 0 : k + 1;
        for (int c = 0; c < C; ++c) {
            if (!map.ch[c].active)
                continue;
            T v;
            std::memcpy(&v, p + (std::size_t(i) * C + c) * sizeof(T), sizeof(T));
            ++h[slotOf(map.ch[c], v)];
            std::uint32_t key;
            if (orderedKey(v, key))
                ranges[c].see(key);
        }
    }
}

template <typename F>
void withChannels(int channels, F&& f)
{
    switch (channels) {
    case 1: f(std::integral_constant<int, 1>{}); break;
    case 2: f(std::integral_constant<int, 2>{}); break;
    case 3: f(std::integral_constant<int, 3>{}); break;
    default: f(std::integral_constant<int, 4>{}); break;
    }
}

}  // namespace

CpuBackend::CpuBackend(int threads) : m_threads(threads > 0 ? threads : omp_get_max_threads()) {}

void CpuBackend::countSlots(const RequestPlan& plan, int threads, std::vector<std::uint64_t>& slots,
                            ExtremaWords& extrema)
{
    slots.assign(plan.map.num_slots, 0);
    extrema.fill(0);
    if (plan.pixels() == 0)
        return;
    const bool track = !extremaFromCounts(plan.type, plan.map);
    const std::vector<Task> tasks = makeTasks(plan);
    // Rows shorter than a task are handed out a task's worth at a time, so that scheduling costs
    // stay per task, not per row.
    const int chunk = int(std::max<std::int64_t>(1, kCpuTuning.taskPixels / std::min(plan.width, kCpuTuning.taskPixels)));
    const std::uint32_t stride = plan.map.num_slots + 1;  // + the spare slot of inactive channels
    const int numSub = subHistogramsFor(plan.map.num_slots);

    visitSampleType(plan.type, [&](auto tag) {
        using T = decltype(tag);
        constexpr bool useLut = std::is_same_v<T, std::uint8_t> || std::is_same_v<T, std::uint16_t>;
        const bool direct = isDirectU8(plan);
        std::vector<std::uint32_t> lut;
        if constexpr (useLut)
            if (!direct)
                lut = buildLut<T>(plan);
        // The lookup path always writes its sub-histograms; the others as many as pay off.
        const int subs = useLut ? kCpuTuning.subHistograms : numSub;
        // The pair table costs a 256 KiB clear and fold per thread: only frames that repay it.
        const bool paired = direct && plan.channels >= 3 && plan.pixels() >= kCpuTuning.pairTablePixelsMin;

#pragma omp parallel num_threads(std::min<std::int64_t>(threads, std::int64_t(tasks.size())))
        {
            std::vector<std::uint32_t> sub(direct ? 0 : std::size_t(stride) * subs, 0);
            std::vector<std::uint32_t> table(direct ? cpu8::kStep * 256 * std::size_t(plan.channels) : 0, 0);
            std::vector<std::uint32_t> pairs(paired ? cpu8::kPairWords : 0, 0);
            std::vector<std::uint64_t> local(plan.map.num_slots, 0);
            KeyRanges ranges{};
            std::int64_t sinceFlush = 0;
            auto flush = [&] {
                for (int k = 0; k < subs && !direct; ++k)
                    for (std::uint32_t s = 0; s < plan.map.num_slots; ++s)
                        local[s] += sub[std::size_t(k) * stride + s];
                std::fill(sub.begin(), sub.end(), 0);
                for (int c = 0; c < plan.channels && direct; ++c)
                    for (int k = 0; k < cpu8::kStep; ++k)
                        for (std::uint32_t v = 0; v < 256; ++v)
                            local[plan.map.ch[c].base + v] += table[cpu8::counter(k, c, plan.channels) + v];
                std::fill(table.begin(), table.end(), 0);
                if (paired) {
                    cpu8::foldPairs(pairs.data(), &local[plan.map.ch[0].base], &local[plan.map.ch[1].base]);
                    std::fill(pairs.begin(), pairs.end(), 0);
                }
                sinceFlush = 0;
            };
#pragma omp for schedule(dynamic, chunk)
            for (std::int64_t t = 0; t < std::int64_t(tasks.size()); ++t) {
                const Task& task = tasks[t];
                const std::int64_t n = task.x1 - task.x0;
                if (sinceFlush + n > kCpuFlushPixels)
                    flush();
                sinceFlush += n;
                const unsigned char* p = plan.row(task.row) + std::size_t(task.x0) * plan.pixelBytes;
                withChannels(plan.channels, [&](auto channels) {
                    constexpr int C = decltype(channels)::value;
                    if constexpr (std::is_same_v<T, std::uint8_t>) {
                        if constexpr (C >= 3) {
                            if (paired) {
                                cpu8::count<C, true>(p, n, table.data(), pairs.data());
                                return;
                            }
                        }
                        if (direct) {
                            cpu8::count<C, false>(p, n, table.data(), nullptr);
                            return;
                        }
                    }
                    if constexpr (useLut)
                        countLut<T, C>(p, n, lut.data(), sub.data(), stride, track, ranges);
                    else
                        countMapped<T, C>(p, n, plan.map, sub.data(), stride, subs, ranges);
                });
            }
            flush();
#pragma omp critical
            {
                for (std::uint32_t s = 0; s < plan.map.num_slots; ++s)
                    slots[s] += local[s];
                for (int c = 0; c < plan.channels; ++c)
                    if (plan.map.ch[c].active && ranges[c].seen()) {
                        extrema[2 * c] = std::max(extrema[2 * c], encodeMinKey(ranges[c].lo));
                        extrema[2 * c + 1] = std::max(extrema[2 * c + 1], encodeMaxKey(ranges[c].hi));
                    }
            }
        }
    });
}

Status CpuBackend::chooseStrategy(const RequestPlan&, Strategy requested, StrategyChoice& choice)
{
    choice.strategy = Strategy::Cpu;
    choice.reason = requested == Strategy::Auto ? "auto: no CUDA device on this engine: cpu" : requestedReason(requested);
    return Status::success();
}

Status CpuBackend::submit(const RequestPlan& plan, Strategy requested)
{
    StrategyChoice choice;
    HS_TRY(chooseStrategy(plan, requested, choice));
    m_reason = choice.reason;
    if (plan.space != MemorySpace::Host)
        return Status::error(ErrorCode::InvalidArgument,
                             "the CPU backend cannot read device memory");
    const auto start = std::chrono::steady_clock::now();
    m_plan = plan;
    countSlots(plan, m_threads, m_slots, m_extrema);
    m_milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return Status::success();
}

Status CpuBackend::finish(HistogramResult& result, bool accumulate, void* deviceCounts)
{
    if (deviceCounts)  // the facade refuses device counts on the CPU backend at submit()
        return Status::error(ErrorCode::NoDevice, "counts kept in device memory need a GPU engine");
    unpackSlots(m_plan, m_slots.data(), m_extrema.data(), result, accumulate);
    result.strategyRan = Strategy::Cpu;
    result.strategyReason = m_reason;
    result.timings = {};
    result.timings.tallyMs = m_milliseconds;
    return Status::success();
}

void CpuBackend::buildLuts(const RequestPlan& plan, const std::vector<std::uint64_t>& slots, EqualizeResult& result)
{
    result.luts.clear();
    for (int c = 0; c < plan.channels; ++c) {
        const ChannelMap& m = plan.map.ch[c];
        if (!m.active)
            continue;
        const std::uint64_t* counts = slots.data() + m.base;
        std::uint64_t total = 0, cdfMin = 0;
        std::uint32_t first = m.num_bins;
        for (std::uint32_t b = 0; b < m.num_bins; ++b) {
            total += counts[b];
            if (first == m.num_bins && counts[b]) {
                first = b;
                cdfMin = counts[b];
            }
        }
        std::vector<std::uint32_t> lut(m.num_bins);
        std::uint64_t cdf = 0;
        for (std::uint32_t b = 0; b < m.num_bins; ++b) {
            cdf += counts[b];
            lut[b] = equalizedLevel(cdf, cdfMin, total, m.num_bins, b, b < first);
        }
        result.luts.push_back(std::move(lut));
    }
}

void CpuBackend::applyLuts(const RequestPlan& plan, const std::vector<std::vector<std::uint32_t>>& channelLuts,
                           unsigned char* output, std::size_t outputPitch, int threads)
{
    std::vector<const std::uint32_t*> luts(plan.channels, nullptr);
    for (int c = 0, i = 0; c < plan.channels; ++c)
        if (plan.map.ch[c].active)
            luts[c] = channelLuts[i++].data();
    const std::size_t rowBytes = std::size_t(plan.width) * plan.pixelBytes;
    // An output row of a folded contiguous region is the same folded row.
    visitSampleType(plan.type, [&](auto tag) {
        using T = decltype(tag);
        if constexpr (std::is_same_v<T, std::uint8_t> || std::is_same_v<T, std::uint16_t>) {
#pragma omp parallel for num_threads(threads) schedule(static)
            for (std::int64_t r = 0; r < plan.rows; ++r) {
                const T* in = reinterpret_cast<const T*>(plan.row(r));
                T* out = reinterpret_cast<T*>(output + std::size_t(r) * (plan.rows == 1 ? rowBytes : outputPitch));
                for (std::int64_t x = 0; x < plan.width; ++x)
                    for (int c = 0; c < plan.channels; ++c) {
                        const T v = in[x * plan.channels + c];
                        out[x * plan.channels + c] = luts[c] ? T(luts[c][v]) : v;
                    }
            }
        }
    });
}

Status CpuBackend::equalize(const RequestPlan& plan, unsigned char* output, std::size_t outputPitch,
                            EqualizeResult& result)
{
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::uint64_t> slots;
    ExtremaWords extrema;
    countSlots(plan, m_threads, slots, extrema);
    const auto counted = std::chrono::steady_clock::now();
    unpackSlots(plan, slots.data(), extrema.data(), result.histogram, false);
    result.histogram.strategyRan = Strategy::Cpu;
    buildLuts(plan, slots, result);
    applyLuts(plan, result.luts, output, outputPitch, m_threads);
    result.timings = {};
    result.timings.tallyMs = std::chrono::duration<double, std::milli>(counted - start).count();
    result.timings.mergeMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - counted).count();
    return Status::success();
}

Status CpuBackend::applyLuts(const RequestPlan& plan, const std::vector<std::vector<std::uint32_t>>& luts,
                             unsigned char* output, std::size_t outputPitch, PhaseTimings& timings)
{
    if (plan.space != MemorySpace::Host)
        return Status::error(ErrorCode::InvalidArgument, "the CPU backend cannot read device memory");
    const auto start = std::chrono::steady_clock::now();
    applyLuts(plan, luts, output, outputPitch, m_threads);
    timings = {};
    timings.mergeMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return Status::success();
}

}  // namespace hs::detail
