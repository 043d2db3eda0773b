// The benchmark matrix of issues #2/#4: every strategy is checked exactly against the reference
// before it is timed; times are CUDA-event medians after a warm-up, over rotating input buffers
// so the input never sits in L2; the read probe and CUB run in the same process.
#include "bench/BenchCommand.h"
#include "bench/CpuReadProbe.h"
#include "gpu/testing/TestCases.h"

#include "histoscope/EngineDiagnostics.h"
#include "histoscope/HistogramEngine.h"
#include "histoscope/ReferenceHistogram.h"
#include "histoscope/RunTiming.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

namespace hs::bench {

namespace {

using testing::Distribution;

struct Workload {
    std::string name;
    std::string distribution;
    SampleType type = SampleType::U32;
    std::int64_t width = 0;
    std::int64_t height = 1;
    int channels = 1;
    std::uint32_t bins = 256;
    double sweepShare = -1;  // skew sweep: share of the hot bin
    std::function<void(std::vector<unsigned char>&, std::mt19937_64&)> fill{};
    bool wide = false;       // `bins` bins over the type's whole range (8 or 16 bits), not one per value
    // A region of `width` pixels starting `regionX` pixels into rows of `frameWidth` (0: the whole
    // frame): padded, unaligned rows, which the engine cannot read as one long row.
    std::int64_t frameWidth = 0;
    std::int64_t regionX = 0;
};

struct Row {
    Workload workload;
    std::string strategy;
    double medianMs = 0;
    double tallyMs = 0;
    double clearMs = 0;
    double mergeMs = 0;
    double wallMs = 0;
    std::string picked{};
    std::string reason{};
    bool exact = true;
};

std::size_t frameBytes(const Workload& w)
{
    const std::int64_t rowPixels = w.frameWidth ? w.frameWidth : w.width;
    return std::size_t(rowPixels) * std::size_t(w.height) * std::size_t(w.channels) * sampleSize(w.type);
}

// The bytes the counted samples occupy: what the read probe reads.
std::size_t countedBytes(const Workload& w)
{
    return std::size_t(w.width) * std::size_t(w.height) * std::size_t(w.channels) * sampleSize(w.type);
}

void fillKeys(std::vector<unsigned char>& out, std::mt19937_64& rng, SampleType type, Distribution d,
              std::uint32_t bins)
{
    testing::fillSamples(out.data(), out.size() / sampleSize(type), type, d, bins, 0, bins, rng);
}

// Keys where `share` of them hit one bin and the rest are uniform.
void fillSkewed(std::vector<unsigned char>& out, std::mt19937_64& rng, std::uint32_t bins, double share)
{
    auto* keys = reinterpret_cast<std::uint32_t*>(out.data());
    const std::size_t n = out.size() / 4;
    const std::uint32_t hot = std::uint32_t(rng() % bins);
    std::uniform_real_distribution<double> unit(0, 1);
    for (std::size_t i = 0; i < n; ++i)
        keys[i] = unit(rng) < share ? hot : std::uint32_t(rng() % bins);
}

// A smooth, natural-looking frame: gradients and low-frequency waves with a little grain.
void fillSmooth(std::vector<unsigned char>& out, std::mt19937_64& rng, std::int64_t w, std::int64_t h, int channels,
                bool sixteenBit)
{
    const double phase = double(rng() % 1000) / 100.0;
    std::normal_distribution<double> grain(0, 1.5);
    for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x)
            for (int c = 0; c < channels; ++c) {
                const double v = 0.5 + 0.25 * std::sin(x * 0.003 + c + phase) * std::cos(y * 0.004 - c)
                               + 0.2 * double(x + y) / double(w + h) - 0.1 + grain(rng) / 255.0;
                const double clamped = std::clamp(v, 0.0, 1.0);
                const std::size_t i = (std::size_t(y) * w + x) * channels + c;
                if (sixteenBit)
                    reinterpret_cast<std::uint16_t*>(out.data())[i] = std::uint16_t(clamped * 65535.0);
                else
                    out[i] = std::uint8_t(clamped * 255.0);
            }
}

std::vector<Workload> makeWorkloads(bool quick)
{
    std::vector<Workload> list;
    const std::int64_t keys = quick ? (1 << 22) : (1 << 24);
    const std::pair<Distribution, const char*> dists[] = {
        {Distribution::Uniform, "uniform"}, {Distribution::Zipf, "zipf"},
        {Distribution::Hot90, "hot90"}, {Distribution::Single, "single"}};
    for (std::uint32_t bins : {16u, 256u, 4096u, 32768u, 65536u})
        for (auto [d, name] : dists) {
            Workload w{"keys16M", name, SampleType::U32, keys, 1, 1, bins};
            w.fill = [d = d, bins](auto& out, auto& rng) { fillKeys(out, rng, SampleType::U32, d, bins); };
            list.push_back(w);
        }
    const std::int64_t W = quick ? 1920 : 3840, H = quick ? 1080 : 2160;
    {
        Workload w{"rgb4k", "noise", SampleType::U8, W, H, 3, 256};
        w.fill = [](auto& out, auto& rng) { for (auto& b : out) b = std::uint8_t(rng()); };
        list.push_back(w);
        w.distribution = "smooth";
        w.fill = [W, H](auto& out, auto& rng) { fillSmooth(out, rng, W, H, 3, false); };
        list.push_back(w);
        w.distribution = "constant";
        w.fill = [](auto& out, auto& rng) { std::fill(out.begin(), out.end(), std::uint8_t(37 + rng() % 180)); };
        list.push_back(w);
    }
    {
        Workload w{"gray16", "noise", SampleType::U16, W, H, 1, 65536};
        w.fill = [](auto& out, auto& rng) { for (auto& b : out) b = std::uint8_t(rng()); };
        list.push_back(w);
        w.distribution = "smooth";
        w.fill = [W, H](auto& out, auto& rng) { fillSmooth(out, rng, W, H, 1, true); };
        list.push_back(w);
    }
    {
        Workload w{"tokens100M", "pad45", SampleType::U32, quick ? 10'000'000 : 100'000'000, 1, 1, 50000};
        w.fill = [](auto& out, auto& rng) {
            auto* ids = reinterpret_cast<std::uint32_t*>(out.data());
            const std::size_t n = out.size() / 4;
            testing::fillSamples(ids, n, SampleType::U32, Distribution::Zipf, 50000, 0, 50000, rng);
            std::uniform_int_distribution<int> percent(0, 99);
            for (std::size_t i = 0; i < n; ++i)
                if (percent(rng) < 45)
                    ids[i] = 0;  // the padding token
        };
        list.push_back(w);
    }
    // More bins than opt-in shared memory holds (issue #12): where `auto` must pick between tiles,
    // the hot cache and plain global atomics.
    for (std::uint32_t bins : {100000u, 1000000u, kMaxBins})
        for (auto [d, name] : dists) {
            if (d == Distribution::Single)
                continue;
            Workload w{"keys16M", name, SampleType::U32, keys, 1, 1, bins};
            w.fill = [d = d, bins](auto& out, auto& rng) { fillKeys(out, rng, SampleType::U32, d, bins); };
            list.push_back(w);
        }
    {
        // A vocabulary-sized token count: Zipf with s = 1 over 131,072 ids, 100 M tokens.
        Workload w{"tokens128K", "zipf", SampleType::U32, quick ? 10'000'000 : 100'000'000, 1, 1, 131072};
        w.fill = [](auto& out, auto& rng) { fillKeys(out, rng, SampleType::U32, Distribution::Zipf, 131072); };
        list.push_back(w);
    }
    // 8-bit frames and streams (issue #12): 1080p to 8K, one to four channels.
    auto noise = [](auto& out, auto& rng) {
        for (std::size_t i = 0; i + 8 <= out.size(); i += 8) {
            const std::uint64_t r = rng();
            std::memcpy(out.data() + i, &r, 8);
        }
    };
    auto constant = [](auto& out, auto& rng) { std::fill(out.begin(), out.end(), std::uint8_t(37 + rng() % 180)); };
    list.push_back(Workload{"rgb1080p", "noise", SampleType::U8, 1920, 1080, 3, 256, -1, noise});
    list.push_back(Workload{"rgba4k", "noise", SampleType::U8, W, H, 4, 256, -1, noise});
    list.push_back(Workload{"rgba4k", "constant", SampleType::U8, W, H, 4, 256, -1, constant});
    list.push_back(Workload{"rgb8k", "noise", SampleType::U8, 2 * W, 2 * H, 3, 256, -1, noise});
    // Regions: a 4K frame's pixels in rows of a wider frame, starting off every 16-byte boundary
    // (RGB 15 bytes in, gray 3), as a crop or a padded pitch gives them.
    Workload region{"rgb4k-region", "noise", SampleType::U8, W, H, 3, 256, -1, noise};
    region.frameWidth = W + 256;
    region.regionX = 5;
    list.push_back(region);
    region = Workload{"gray4k-region", "noise", SampleType::U8, W, H, 1, 256, -1, noise};
    region.frameWidth = W + 160;
    region.regionX = 3;
    list.push_back(region);
    list.push_back(Workload{"bytes64M", "noise", SampleType::U8, std::int64_t(64) << 20, 1, 1, 256, -1, noise});
    list.push_back(Workload{"bytes64M", "constant", SampleType::U8, std::int64_t(64) << 20, 1, 1, 256, -1, constant});
    // Wide bins (issue #21): 8-bit data into 2, 16 and 64 bins, 16-bit data into 256 and 4,096,
    // where `auto` once picked a strategy 3.5x slower than the best.
    auto smooth8 = [](auto& out, auto& rng) { fillSmooth(out, rng, std::int64_t(out.size()), 1, 1, false); };
    for (std::uint32_t bins : {2u, 16u, 64u}) {
        const std::string b = std::to_string(bins) + "bins";
        Workload bytes{"wide-u8", b + "-noise", SampleType::U8, std::int64_t(64) << 20, 1, 1, bins, -1, noise, true};
        list.push_back(bytes);
        bytes.distribution = b + "-smooth";
        bytes.fill = smooth8;
        list.push_back(bytes);
        list.push_back(Workload{"wide-rgb4k", b + "-noise", SampleType::U8, W, H, 3, bins, -1, noise, true});
    }
    for (std::uint32_t bins : {256u, 4096u}) {
        const std::string b = std::to_string(bins) + "bins";
        Workload w{"wide-gray16", b + "-noise", SampleType::U16, W, H, 1, bins, -1, noise, true};
        list.push_back(w);
        w.distribution = b + "-smooth";
        w.fill = [W, H](auto& out, auto& rng) { fillSmooth(out, rng, W, H, 1, true); };
        list.push_back(w);
    }
    for (std::uint32_t bins : {256u, 32768u})
        for (double share : {0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1.0}) {
            std::ostringstream name;
            name << "hot" << share;
            Workload w{"sweep", name.str(), SampleType::U32, keys, 1, 1, bins, share};
            w.fill = [bins, share](auto& out, auto& rng) { fillSkewed(out, rng, bins, share); };
            list.push_back(w);
        }
    return list;
}

HistogramRequest requestFor(const Workload& w, const void* data, MemorySpace space, Strategy s)
{
    ImageView view;
    view.data = data;
    view.space = space;
    view.type = w.type;
    view.width = w.frameWidth ? w.frameWidth : w.width;
    view.height = w.height;
    view.channels = w.channels;
    if (w.frameWidth)
        view.roi = Rect{w.regionX, 0, w.width, w.height};
    ChannelBinning b;
    b.bins = w.bins;
    b.lo = 0;
    b.hi = w.bins;
    b.identity = true;
    if (w.type == SampleType::U8 && w.bins == 256)
        b.hi = 256;
    if (w.wide) {
        b.identity = false;
        b.hi = w.type == SampleType::U8 ? 256 : 65536;
    }
    return makeRequest(view, b, s);
}

void writeSweepSvg(const std::vector<Row>& rows, const std::string& path)
{
    std::ofstream svg(path);
    if (!svg)
        return;
    const int width = 900, height = 420, left = 70, top = 30, plotW = 380, plotH = 320;
    svg << "<svg xmlns='http://www.w3.org/2000/svg' width='" << width << "' height='" << height
        << "' font-family='sans-serif' font-size='11'>\n<rect width='100%' height='100%' fill='white'/>\n";
    const char* colors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#17becf"};
    int panel = 0;
    for (std::uint32_t bins : {256u, 32768u}) {
        const int x0 = left + panel * (plotW + 90);
        std::map<std::string, std::vector<std::pair<double, double>>> series;
        double maxMs = 1e-3, minMs = 1e9;
        for (const Row& r : rows)
            if (r.workload.name == "sweep" && r.workload.bins == bins && r.exact) {
                series[r.strategy].push_back({r.workload.sweepShare, r.medianMs});
                maxMs = std::max(maxMs, r.medianMs);
                minMs = std::min(minMs, r.medianMs);
            }
        if (series.empty())
            continue;
        const double lmin = std::log10(std::max(minMs, 1e-3)) - 0.1, lmax = std::log10(maxMs) + 0.1;
        auto px = [&](double share) { return x0 + share * plotW; };
        auto py = [&](double ms) { return top + plotH - (std::log10(std::max(ms, 1e-3)) - lmin) / (lmax - lmin) * plotH; };
        svg << "<rect x='" << x0 << "' y='" << top << "' width='" << plotW << "' height='" << plotH
            << "' fill='none' stroke='#444'/>\n<text x='" << x0 << "' y='" << top - 10 << "'>skew sweep, " << bins
            << " bins: median ms (log) vs share of the hot bin</text>\n";
        for (double t = std::ceil(lmin * 2) / 2; t <= lmax; t += 0.5)
            svg << "<text x='" << x0 - 5 << "' y='" << py(std::pow(10, t)) + 4 << "' text-anchor='end'>"
                << std::setprecision(3) << std::pow(10, t) << "</text>\n";
        for (double s : {0.0, 0.25, 0.5, 0.75, 1.0})
            svg << "<text x='" << px(s) << "' y='" << top + plotH + 15 << "' text-anchor='middle'>" << s << "</text>\n";
        int k = 0;
        for (auto& [name, points] : series) {
            std::sort(points.begin(), points.end());
            svg << "<polyline fill='none' stroke-width='2' stroke='" << colors[k % 9] << "' points='";
            for (auto [s, ms] : points)
                svg << px(s) << "," << py(ms) << " ";
            svg << "'/>\n";
            if (panel == 1 || true)
                svg << "<text x='" << x0 + plotW + 5 << "' y='" << py(points.back().second) + 4 << "' fill='"
                    << colors[k % 9] << "'>" << name << "</text>\n";
            ++k;
        }
        ++panel;
    }
    svg << "</svg>\n";
}

}  // namespace

int runBenchmark(const BenchmarkOptions& options)
{
    HistogramEngine engine;
    if (options.cpuMode) {
        // The CPU backend on one 4K RGB frame, noise and constant.
        HistogramEngine cpu(EngineOptions{false});
        const std::uint64_t seed = testing::runSeed();
        std::cout << "seed: " << seed << "\n";
        std::mt19937_64 rng(seed);
        for (const char* kind : {"noise", "constant"}) {
            std::vector<unsigned char> frame(std::size_t(3840) * 2160 * 3);
            if (std::string(kind) == "noise")
                for (auto& b : frame) b = std::uint8_t(rng());
            else
                std::fill(frame.begin(), frame.end(), std::uint8_t(37 + rng() % 180));
            Workload w{"rgb4k", kind, SampleType::U8, 3840, 2160, 3, 256};
            const HistogramRequest request = requestFor(w, frame.data(), MemorySpace::Host, Strategy::Cpu);
            HistogramResult expected, result;
            referenceHistogram(request, expected);
            const double ms = medianRunMs(2, options.repeats, [&] {
                const auto t0 = std::chrono::steady_clock::now();
                cpu.compute(request, result);
                return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            });
            const double probeMs = cpuReadProbeMs(frame.data(), frame.size(), options.repeats);
            std::cout << "cpu rgb4k " << kind << ": median " << ms << " ms"
                      << (result == expected ? " (exact)" : " (MISMATCH)") << ", CPU read probe " << probeMs << " ms, "
                      << ms / probeMs << "x the probe\n";
        }
        return 0;
    }
    if (!engine.hasGpu()) {
        std::cerr << "histoscope-bench: " << engine.notice() << "; the GPU benchmark needs a CUDA device\n";
        return 1;
    }
    const DeviceInfo info = *engine.deviceInfo();
    std::cout << "device: " << info.name << " (sm_" << info.computeMajor << info.computeMinor << ", "
              << info.multiprocessors << " SMs, L2 " << info.l2Bytes / (1 << 20) << " MiB)\n";

    std::vector<Strategy> strategies = gpuStrategies();
    strategies.insert(strategies.begin(), Strategy::Auto);
    if (!options.strategies.empty()) {
        std::vector<Strategy> chosen;
        for (Strategy s : strategies)
            if (("," + options.strategies + ",").find("," + std::string(strategyName(s)) + ",") != std::string::npos)
                chosen.push_back(s);
        strategies = chosen;
    }
    std::vector<Row> rows;
    const std::uint64_t seed = testing::runSeed();
    std::cout << "seed: " << seed << " (HISTOSCOPE_SEED=" << seed << " replays it)\n";
    int mismatches = 0;
    std::cout << std::left << std::setw(28) << "workload" << std::setw(7) << "bins" << std::right << std::setw(9)
              << "probe";
    for (Strategy s : strategies)
        std::cout << std::setw(16) << strategyName(s);
    std::cout << std::setw(16) << "auto picked" << "\n";

    // Each workload's rows are written as soon as it is done: a run cut short keeps what it measured.
    std::ofstream csv(options.csvPath);
    csv << "workload,distribution,bins,type,samples,strategy,median_ms,tally_ms,clear_ms,merge_ms,wall_ms,"
           "gsamples_per_s,x_probe,x_cub,picked,exact,reason\n";
    auto writeRows = [&csv](const std::vector<Row>& done) {
        double probe = 0, cub = 0;
        for (const Row& r : done) {
            if (r.strategy == "read-probe") probe = r.medianMs;
            if (r.strategy == "cub") cub = r.medianMs;
        }
        for (const Row& r : done) {
            const double samples = double(r.workload.width) * r.workload.height * r.workload.channels;
            csv << r.workload.name << "," << r.workload.distribution << "," << r.workload.bins << ","
                << sampleTypeName(r.workload.type) << "," << std::size_t(samples) << "," << r.strategy << ","
                << r.medianMs << "," << r.tallyMs << "," << r.clearMs << "," << r.mergeMs << "," << r.wallMs << ","
                << (r.medianMs > 0 ? samples / r.medianMs / 1e6 : 0) << "," << (probe > 0 ? r.medianMs / probe : 0) << ","
                << (r.medianMs > 0 && cub > 0 ? cub / r.medianMs : 0) << "," << r.picked << "," << (r.exact ? 1 : 0)
                << ",\"" << r.reason << "\"\n";
        }
        csv.flush();
    };

    for (const Workload& w : makeWorkloads(options.quick)) {
        const std::size_t firstRow = rows.size();
        if (!matchesFilter(w.name + "/" + w.distribution, options.only))
            continue;
        if (!options.bins.empty() && std::find(options.bins.begin(), options.bins.end(), w.bins) == options.bins.end())
            continue;
        const std::size_t bytes = frameBytes(w);
        std::vector<unsigned char> host(bytes);
        std::mt19937_64 rng = testing::caseRng(seed, w.name + "/" + w.distribution + "/" + std::to_string(w.bins));
        w.fill(host, rng);
        HistogramResult expected;
        if (Status s = referenceHistogram(requestFor(w, host.data(), MemorySpace::Host, Strategy::Cpu), expected); !s) {
            std::cerr << "reference failed: " << s.message << "\n";
            return 1;
        }
        const std::size_t rotation = std::clamp<std::size_t>((std::size_t(200) << 20) / bytes + 1, 2, 8);
        std::vector<DeviceArray> buffers(rotation);
        for (DeviceArray& b : buffers)
            if (Status s = copyToDevice(engine, host.data(), bytes, b); !s) {
                std::cerr << "upload failed: " << s.message << "\n";
                return 1;
            }
        int probeRun = 0;
        const double probeMs = medianRunMs(3, options.repeats, [&] {
            double ms = 0;
            const Status s = readProbe(engine, buffers[probeRun++ % rotation].data(), countedBytes(w), ms);
            return s ? ms : -1.0;
        });
        Row probeRow{w, "read-probe", probeMs};
        probeRow.tallyMs = probeRow.medianMs;
        rows.push_back(probeRow);
        std::ostringstream line;
        line << std::left << std::setw(28) << (w.name + "/" + w.distribution) << std::setw(7) << w.bins << std::right
             << std::fixed << std::setprecision(3) << std::setw(9) << probeRow.medianMs;
        std::string picked;
        for (Strategy s : strategies) {
            if (!strategyAccepts(s, w.type, w.bins)) {
                line << std::setw(16) << "-";
                continue;
            }
            Row row{w, std::string(strategyName(s))};
            HistogramResult result = testing::poisonedResult();
            const Status status = engine.compute(requestFor(w, buffers[0].data(), MemorySpace::Device, s), result);
            row.exact = status && result == expected;
            if (!row.exact) {
                ++mismatches;
                std::cerr << "MISMATCH " << w.name << "/" << w.distribution << " bins " << w.bins << " " << row.strategy
                          << ": " << (status ? testing::describeDifference(expected, result) : status.message) << "\n";
                line << std::setw(16) << "WRONG";
                rows.push_back(row);
                continue;
            }
            std::vector<double> total, tally, clear, merge, wall;
            for (int i = 0; i < options.repeats + 3; ++i) {
                const auto t0 = std::chrono::steady_clock::now();
                engine.compute(requestFor(w, buffers[i % rotation].data(), MemorySpace::Device, s), result);
                const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
                if (i < 3)
                    continue;
                total.push_back(result.timings.clearMs + result.timings.tallyMs + result.timings.mergeMs);
                tally.push_back(result.timings.tallyMs);
                clear.push_back(result.timings.clearMs);
                merge.push_back(result.timings.mergeMs);
                wall.push_back(ms);
            }
            row.medianMs = medianOf(total);
            row.tallyMs = medianOf(tally);
            row.clearMs = medianOf(clear);
            row.mergeMs = medianOf(merge);
            row.wallMs = medianOf(wall);
            row.picked = std::string(strategyName(result.strategyRan));
            row.reason = result.strategyReason;
            if (s == Strategy::Auto)
                picked = row.picked;
            line << std::setw(16) << row.medianMs;
            rows.push_back(row);
        }
        std::cout << line.str() << std::setw(16) << picked << std::endl;
        writeRows(std::vector<Row>(rows.begin() + std::ptrdiff_t(firstRow), rows.end()));
    }

    std::string plot = options.plotPath;
    if (plot.empty()) {
        plot = options.csvPath;
        const auto dot = plot.rfind('.');
        plot = (dot == std::string::npos ? plot : plot.substr(0, dot)) + "-sweep.svg";
    }
    writeSweepSvg(rows, plot);
    std::cout << "wrote " << options.csvPath << " and " << plot << "\n";
    std::cout << "benchmark: " << (rows.size() - std::size_t(mismatches)) << " passed, " << mismatches << " failed\n";
    return mismatches ? 1 : 0;
}

}  // namespace hs::bench
