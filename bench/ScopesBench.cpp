// histoscope-scopes: the 2-D histograms' H200 self-check and the benchmark's scopes section.
// Qt-free (the GPU machine has neither Qt nor OpenCV), and built on the engine's public headers
// (histoscope/) and the shared fixtures (gpu/testing/) alone: no CUDA header, nothing of gpu/cuda
// or gpu/src (the `layering` test, tests/check_layering.cmake, holds it to that).
//
//   histoscope-scopes check [--quick] [--light] [--gpu-only]
//       the 2-D exactness matrix x every strategy x host and device inputs x every tuning variant,
//       against the serial reference, and an 8K parade (cub must refuse it)
//   histoscope-scopes facade [--repeats N]
//       the facade's whole call (auto) on a 4K frame's three scopes, host and device input: each
//       checked exact, then the medians of its wall and phases (upload, clear, tally, download)
//   histoscope-scopes bench [--out PREFIX] [--repeats N]
//       a 4K 8-bit RGB frame's (photo-like, uniform noise, one colour) parade (3 x 3840 x 256
//       cells), luma waveform and vectorscope, counted through hs::Histogram2DEngine::compute on
//       device-resident input (uploaded once per frame with hs::copyToDevice, MemorySpace::Device):
//       the strategies auto, shared, global-atomic and cub with the default tuning, and the shared
//       strategy's tuning variants, each set through HISTOSCOPE_2D_TUNING before a new engine is
//       built (the CUDA backend reads it at construction). A row's time is the median over
//       --repeats runs, after 5 warm-ups, of the backend's own CUDA events around the counting
//       kernels (result.timings.tallyMs); the clear and download phases and the host's wall time of
//       compute() are in the CSV, and two "facade auto" rows keep the earlier clear+tally and wall
//       figures. Every row is also given as a ratio to the read probe of the same bytes
//       (hs::readProbe, median after 10 warm-ups). Before it is timed, each variant's counts are
//       checked once against hs::referenceHistogram2D by an engine of the same tuning that poisons
//       its device counters (HISTOSCOPE_POISON_2D), into a poisoned result (testing::poisoned2D).
//
// What the bench no longer measures since it left the engine's private headers (issue 17): the
// "CUB HistogramEven, materialized cells" baseline (CUB over a materialized buffer of cell
// indices: no public entry point); the blocks and shared bytes of a strip plan and the cluster
// size a joint launch actually took ("(ran N)"), which only the launchers knew; joint tiles on
// the column-strip scopes (the shared strategy takes strips whenever they fit, and the old
// sweep's joint tiles never fitted those grids in 8 passes anyway). cub on the 4K parade (2.9 M
// cells) is refused by the engine, as everywhere else (more than 2^20 cells): a row says so.
#include "gpu/testing/Histogram2DCases.h"
#include "gpu/testing/TestCases.h"

#include "histoscope/EngineDiagnostics.h"
#include "histoscope/Histogram2D.h"
#include "histoscope/HistogramEngine.h"
#include "histoscope/RunTiming.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace hs;

namespace {

// ---- check ------------------------------------------------------------------------------------

struct CheckOptions {
    bool quick = false;    // the default tuning only
    bool light = false;    // small cases only (for the sanitizers)
    bool gpuOnly = false;  // no CPU strategy
};

// An 8K RGB frame's parade (3 x 7680 x 256 cells plus margins, 5.9 M slots): every strategy,
// host and device input. `cub` must refuse it (CUB's DeviceHistogram faults the device past 2^20
// bins), the others must count it exactly, and the engine must still count afterwards.
void check8kParade(HistogramEngine& engine1d, std::uint64_t seed, bool gpuOnly, int& passed, int& failed)
{
    testing::Case2D c;
    c.name = "parade-u8-8k";
    c.width = 7680;
    c.height = 4320;
    c.channels = 3;
    c.kind = "parade";
    std::mt19937_64 rng = testing::caseRng(seed, c.name);
    const testing::Image2D image = testing::makeImage2D(c, rng);
    Histogram2DResult expected;
    if (const Status rs = referenceHistogram2D(testing::makeRequest2D(c, image.view, Strategy::Cpu), expected); !rs) {
        std::printf("FAIL %s: reference: %s\n", c.name.c_str(), rs.message.c_str());
        ++failed;
        return;
    }
    DeviceArray array;
    const bool uploaded = bool(copyToDevice(engine1d, image.bytes.data(), image.bytes.size(), array));
    Histogram2DEngine engine;
    auto record = [&](bool ok, const std::string& what, const std::string& detail) {
        ok ? ++passed : ++failed;
        std::printf("%s %s%s%s\n", ok ? "ok  " : "FAIL", what.c_str(), detail.empty() ? "" : ": ", detail.c_str());
    };
    for (Strategy s : {Strategy::Cpu, Strategy::Auto, Strategy::GlobalAtomic, Strategy::Shared, Strategy::Cub}) {
        for (bool device : {false, true}) {
            if ((device || gpuOnly) && s == Strategy::Cpu)
                continue;
            if (device && !uploaded) {
                record(false, c.name + " device", "upload failed");
                continue;
            }
            Histogram2DRequest request = testing::makeRequest2D(c, image.view, s);
            if (device) {
                request.image.data = array.data();
                request.image.space = MemorySpace::Device;
            }
            Histogram2DResult result = testing::poisoned2D();
            const Status st = engine.compute(request, result);
            const std::string what = c.name + " " + std::string(strategyName(s)) + (device ? " device" : " host");
            if (s == Strategy::Cub)
                record(st.code == ErrorCode::UnsupportedStrategy, what + " refused", st.message);
            else
                record(st && testing::describeDifference2D(expected, result).empty(), what + " exact",
                       st ? testing::describeDifference2D(expected, result) : st.message);
        }
    }
    Histogram2DResult after = testing::poisoned2D();
    const Status st = engine.compute(testing::makeRequest2D(c, image.view, Strategy::Shared), after);
    record(st && testing::describeDifference2D(expected, after).empty(), c.name + " still counts after cub's refusal", st.message);
}

int runCheck(const CheckOptions& options)
{
    const bool quick = options.quick;
    setenv("HISTOSCOPE_POISON_2D", "1", 1);
    const std::uint64_t seed = testing::runSeed();
    std::printf("scopes check: seed %llu (HISTOSCOPE_SEED replays it)\n", (unsigned long long)seed);
    HistogramEngine engine1d;
    const std::vector<std::string> tunings = quick ? std::vector<std::string>{""}
                                                   : std::vector<std::string>{"", "fast=0", "strip=16,sthreads=256", "strip=128,threads=128",
                                                                              "packed16=0", "dense=0", "dense=1000000",
                                                                              "batch=1,pad=0,cluster=0", "batch=8,cluster=2,cdense=1,chunk=70000",
                                                                              "cluster=16,chunk=1000000", "cluster=1,sthreads=512"};
    int passed = 0, failed = 0;
    const auto matrix = testing::histogram2DMatrix();
    for (const std::string& tuning : tunings) {
        setenv("HISTOSCOPE_2D_TUNING", tuning.c_str(), 1);
        Histogram2DEngine engine;
        if (!engine.hasGpu()) {
            std::printf("scopes check: no CUDA device (%s)\n", engine.notice().c_str());
            return 1;
        }
        for (const testing::Case2D& c : matrix) {
            if (options.light && (c.width * c.height > 100000 || c.kind == "joint-large"))
                continue;
            std::mt19937_64 rng = testing::caseRng(seed, c.name + "/" + tuning);
            const testing::Image2D image = testing::makeImage2D(c, rng);
            Histogram2DResult expected;
            const Status rs = referenceHistogram2D(testing::makeRequest2D(c, image.view, Strategy::Cpu), expected);
            if (!rs) {
                std::printf("FAIL %s: reference: %s\n", c.name.c_str(), rs.message.c_str());
                ++failed;
                continue;
            }
            DeviceArray array;
            if (!copyToDevice(engine1d, image.bytes.data(), image.bytes.size(), array)) {
                std::printf("FAIL %s: upload\n", c.name.c_str());
                ++failed;
                continue;
            }
            const std::vector<Strategy> strategies = tuning.empty()
                ? std::vector<Strategy>{Strategy::Cpu, Strategy::Auto, Strategy::GlobalAtomic, Strategy::Shared, Strategy::Cub}
                : std::vector<Strategy>{Strategy::Shared};
            for (Strategy s : strategies) {
                for (bool device : {false, true}) {
                    if ((device || options.gpuOnly) && s == Strategy::Cpu)
                        continue;
                    Histogram2DRequest request = testing::makeRequest2D(c, image.view, s);
                    if (device) {
                        request.image.data = array.data();
                        request.image.space = MemorySpace::Device;
                    }
                    Histogram2DResult result = testing::poisoned2D();
                    const Status st = engine.compute(request, result);
                    std::size_t slots = 0;
                    for (const Histogram2D& h : expected.histograms)
                        slots += h.grid.size();
                    // cub refuses what it cannot take, and only that.
                    const bool refusedRightly = s == Strategy::Cub && slots > kCubMaxBins && st.code == ErrorCode::UnsupportedStrategy;
                    const std::string diff = refusedRightly ? std::string()
                        : st                                ? testing::describeDifference2D(expected, result)
                                                            : st.message;
                    if (diff.empty()) {
                        ++passed;
                    } else {
                        ++failed;
                        std::printf("FAIL %s %s %s [%s]: %s\n", c.name.c_str(), std::string(strategyName(s)).c_str(),
                                    device ? "device" : "host", tuning.c_str(), diff.c_str());
                    }
                }
            }
        }
    }
    unsetenv("HISTOSCOPE_2D_TUNING");
    if (!options.light)
        check8kParade(engine1d, seed, options.gpuOnly, passed, failed);
    std::printf("scopes check: %d passed, %d failed (%zu cases x strategies x host/device x %zu tunings)\n", passed, failed,
                matrix.size(), tunings.size());
    return failed ? 1 : 0;
}

// ---- bench ------------------------------------------------------------------------------------

struct Frame4K {
    std::string name;
    std::vector<unsigned char> bytes;
};

// A photo-like frame: smooth gradients and shapes with fine noise (runs of equal cells, a
// concentrated vectorscope); uniform noise (every cell, the dense worst case); one flat colour.
Frame4K makeFrame(const std::string& name, int w, int h, std::mt19937_64& rng)
{
    Frame4K f{name, std::vector<unsigned char>(std::size_t(w) * h * 3)};
    std::uniform_int_distribution<int> byte(0, 255), noise(-3, 3);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            unsigned char* p = &f.bytes[(std::size_t(y) * w + x) * 3];
            if (name == "noise") {
                p[0] = std::uint8_t(byte(rng));
                p[1] = std::uint8_t(byte(rng));
                p[2] = std::uint8_t(byte(rng));
            } else if (name == "constant") {
                p[0] = 180, p[1] = 120, p[2] = 90;
            } else {
                const double u = double(x) / w, v = double(y) / h;
                const bool disc = (u - 0.6) * (u - 0.6) * 3 + (v - 0.45) * (v - 0.45) < 0.05;
                double r = 40 + 150 * v + 30 * std::sin(9 * u), g = 60 + 120 * u * (1 - v), b = 200 - 150 * v;
                if (disc)
                    r = 205, g = 150, b = 120;  // a skin-toned face
                p[0] = std::uint8_t(std::clamp(int(r) + noise(rng), 0, 255));
                p[1] = std::uint8_t(std::clamp(int(g) + noise(rng), 0, 255));
                p[2] = std::uint8_t(std::clamp(int(b) + noise(rng), 0, 255));
            }
        }
    return f;
}

// The three scopes the bench times, of a W x H RGB frame (host memory).
struct Scope {
    std::string name;
    Histogram2DRequest request;
};

std::vector<Scope> scopesOf(const Frame4K& frame, int w, int h)
{
    ImageView view;
    view.data = frame.bytes.data();
    view.width = w;
    view.height = h;
    view.channels = 3;
    return {
        {"parade", paradeRequest(view, {0, 1, 2})},
        {"waveform-luma", lumaWaveformRequest(view, YCbCrStandard::Bt709, {0, 1, 2})},
        {"vectorscope-709", vectorscopeRequest(view, YCbCrStandard::Bt709, {0, 1, 2})},
    };
}

// Words of the CUDA backend's reasons (Histogram2DCuda.cpp's choose()) that name what runs:
// "column strips: a block owns 32 x bin(s) ... (16-bit shared counters", "joint tiles: 1 tile(s)
// of 67081 16-bit shared counters".
bool runsStrips(const std::string& reason) { return reason.find("column strips") != std::string::npos; }

int jointTiles(const std::string& reason)
{
    const std::string key = "joint tiles: ";
    const std::size_t at = reason.find(key);
    return at == std::string::npos ? 0 : std::atoi(reason.c_str() + at + key.size());
}

std::string counterBits(const std::string& reason)
{
    return reason.find("16-bit") != std::string::npos ? "16-bit" : reason.find("32-bit") != std::string::npos ? "32-bit" : "?-bit";
}

// One engine configuration to time: a strategy and a HISTOSCOPE_2D_TUNING string; `name` turns the
// engine's choice into the row's name, or into "" when the variant does not apply to the scope
// (another kernel family runs, or more tiles than the sweep takes).
struct Variant {
    Strategy strategy = Strategy::Shared;
    std::string tuning;
    std::function<std::string(const StrategyChoice&)> name;
};

std::vector<Variant> sweepVariants()
{
    std::vector<Variant> variants;
    // Column strips (waveform, parade).
    struct StripVariant {
        std::uint32_t cols;
        int threads;
        bool fast;
        bool p16;
        int batch;   // rows a thread loads before counting (1: the first H200 run's one-row walk)
        bool pad;    // odd word stride per column
    };
    for (const StripVariant sv : {StripVariant{32, 1024, true, true, 1, false}, StripVariant{16, 1024, true, true, 1, false},
                                  StripVariant{32, 1024, true, true, 1, true}, StripVariant{32, 1024, true, true, 4, false},
                                  StripVariant{32, 1024, true, true, 4, true}, StripVariant{32, 1024, true, true, 8, true},
                                  StripVariant{32, 512, true, true, 8, true}, StripVariant{16, 1024, true, true, 4, true},
                                  StripVariant{16, 512, true, true, 4, true}, StripVariant{16, 512, true, true, 8, true},
                                  StripVariant{16, 1024, true, true, 8, true}, StripVariant{64, 1024, true, true, 4, true},
                                  StripVariant{8, 512, true, true, 4, true}, StripVariant{32, 256, false, true, 1, true},
                                  StripVariant{32, 256, false, false, 1, true}}) {
        const std::string tuning = "strip=" + std::to_string(sv.cols) + ",fast=" + (sv.fast ? "1" : "0") + ",packed16="
            + (sv.p16 ? "1" : "0") + ",batch=" + std::to_string(sv.batch) + ",pad=" + (sv.pad ? "1" : "0")
            + (sv.fast ? ",sthreads=" + std::to_string(sv.threads) : ",threads=" + std::to_string(sv.threads));
        variants.push_back({Strategy::Shared, tuning, [sv](const StrategyChoice& choice) {
                                if (!runsStrips(choice.reason))
                                    return std::string();
                                return "strips " + std::string(sv.fast ? "fast " : "generic ") + std::to_string(sv.cols) + " cols x"
                                    + std::to_string(sv.threads) + (sv.fast ? " b" + std::to_string(sv.batch) : "")
                                    + (sv.pad ? " pad" : "") + " " + counterBits(choice.reason);
                            }});
    }
    // Fast joint tiles merged per cluster (blocks per cluster asked; the launch may take fewer).
    struct ClusterVariant {
        int cluster;
        bool dense;
    };
    for (const ClusterVariant cv : {ClusterVariant{1, false}, ClusterVariant{2, false}, ClusterVariant{4, false},
                                    ClusterVariant{8, false}, ClusterVariant{16, false}, ClusterVariant{4, true},
                                    ClusterVariant{8, true}, ClusterVariant{16, true}}) {
        const std::string tuning = "cluster=" + std::to_string(cv.cluster) + ",cdense=" + (cv.dense ? "1" : "0");
        variants.push_back({Strategy::Shared, tuning, [cv](const StrategyChoice& choice) {
                                if (jointTiles(choice.reason) != 1)
                                    return std::string();
                                return "joint fast cluster " + std::to_string(cv.cluster)
                                    + (cv.dense ? ", cluster rows + reduce" : ", atomics");
                            }});
    }
    // Joint tiles merged per block: fast 16-bit, generic 16-bit, generic 32-bit.
    for (std::uint32_t dense : {8u, 0u, 1000000u})
        for (int form : {0, 1, 2}) {
            if (form > 0 && dense != 8)
                continue;
            const std::string tuning = "cluster=0,dense=" + std::to_string(dense) + ",packed16=" + (form < 2 ? "1" : "0")
                + ",fast=" + (form == 0 ? "1" : "0");
            const std::string merge = dense == 0 ? "sparse merge" : dense == 8 ? "sparse/dense merge" : "dense merge";
            variants.push_back({Strategy::Shared, tuning, [form, merge](const StrategyChoice& choice) {
                                    const int tiles = jointTiles(choice.reason);
                                    if (tiles < 1 || tiles > 8)
                                        return std::string();
                                    return "joint " + std::string(form == 0 ? "fast" : "generic") + " tiles " + std::to_string(tiles)
                                        + "x" + counterBits(choice.reason) + ", " + merge;
                                }});
        }
    // The strategies with the default tuning.
    variants.push_back({Strategy::Shared, "", [](const StrategyChoice& choice) {
                            return "shared, default tuning: " + std::string(runsStrips(choice.reason) ? "strips " : "joint ")
                                + counterBits(choice.reason);
                        }});
    variants.push_back({Strategy::GlobalAtomic, "", [](const StrategyChoice&) { return std::string("global atomics"); }});
    variants.push_back({Strategy::Cub, "", [](const StrategyChoice&) { return std::string("CUB HistogramEven, fused cell iterator"); }});
    variants.push_back({Strategy::Auto, "", [](const StrategyChoice& choice) {
                            return "auto (" + std::string(strategyName(choice.strategy)) + ")";
                        }});
    return variants;
}

// One variant's run through the facade: medians of its phases over the timed runs.
struct Measured {
    bool applies = true;      // false: `name` refused the engine's choice
    bool refused = false;     // the engine refused the strategy for this request (cub past 2^20 cells)
    Status status;            // the refusal's words, or a failure while counting
    std::string name;
    StrategyChoice choice;
    std::string difference;   // from the reference; empty when exact
    double clearMs = 0, tallyMs = 0, downloadMs = 0, clearTallyMs = 0, wallMs = 0;
};

Measured measure(const Variant& variant, const Histogram2DRequest& deviceRequest, const Histogram2DResult& reference, int warmup,
                 int repeats)
{
    Measured m;
    setenv("HISTOSCOPE_2D_TUNING", variant.tuning.c_str(), 1);
    Histogram2DRequest request = deviceRequest;
    request.strategy = variant.strategy;
    {
        // The exactness run: device counters poisoned before every count, a poisoned result.
        setenv("HISTOSCOPE_POISON_2D", "1", 1);
        Histogram2DEngine checker;
        unsetenv("HISTOSCOPE_POISON_2D");
        if (!checker.hasGpu()) {
            m.status = Status::error(ErrorCode::NoDevice, checker.notice());
            return m;
        }
        m.status = checker.chooseStrategy(request, m.choice);
        if (!m.status) {
            m.refused = m.status.code == ErrorCode::UnsupportedStrategy;
            m.name = variant.name(StrategyChoice{variant.strategy, m.status.message});
            if (m.name.empty())
                m.name = std::string(strategyName(variant.strategy)) + " [" + variant.tuning + "]";
            return m;
        }
        m.name = variant.name(m.choice);
        if (m.name.empty()) {
            m.applies = false;
            return m;
        }
        Histogram2DResult result = testing::poisoned2D();
        m.status = checker.compute(request, result);
        if (!m.status)
            return m;
        m.difference = testing::describeDifference2D(reference, result);
    }
    Histogram2DEngine engine;
    if (!engine.hasGpu()) {
        m.status = Status::error(ErrorCode::NoDevice, engine.notice());
        return m;
    }
    Histogram2DResult result;
    std::vector<double> clear, tally, download, clearTally, wall;
    for (int i = 0; i < warmup + repeats; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        m.status = engine.compute(request, result);
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        if (!m.status)
            return m;
        if (i < warmup)
            continue;
        clear.push_back(result.timings.clearMs);
        tally.push_back(result.timings.tallyMs);
        download.push_back(result.timings.downloadMs);
        clearTally.push_back(result.timings.clearMs + result.timings.tallyMs);
        wall.push_back(ms);
    }
    m.choice = {result.strategyRan, result.strategyReason};
    m.clearMs = medianOf(clear);
    m.tallyMs = medianOf(tally);
    m.downloadMs = medianOf(download);
    m.clearTallyMs = medianOf(clearTally);
    m.wallMs = medianOf(wall);
    return m;
}

struct Row {
    std::string frame, scope, variant;
    double ms = 0;            // the row's figure: the tally events' median (the facade rows: their own)
    double xProbe = 0;
    bool exact = false;
    bool refused = false;     // the engine refused the strategy: not timed
    std::string note;
    double clearMs = 0, tallyMs = 0, downloadMs = 0, wallMs = 0;
    std::string strategy, tuning;
};

int runBench(const std::string& prefix, int repeats)
{
    const int W = 3840, H = 2160;
    const int warmup = 5;
    HistogramEngine engine1d;   // uploads and the read probe
    const std::optional<DeviceInfo> info = engine1d.deviceInfo();
    if (!engine1d.hasGpu() || !info) {
        std::printf("scopes bench: no CUDA device (%s)\n", engine1d.notice().c_str());
        return 1;
    }
    std::mt19937_64 rng(20261130);
    std::vector<Row> rows;
    std::ostringstream log;
    log << "device: " << info->name << ", " << info->multiprocessors << " SMs, " << info->sharedPerBlockOptin / 1024
        << " KiB shared per block (opt-in)\n";
    const std::vector<Variant> variants = sweepVariants();
    DeviceArray d_frame;
    for (const char* content : {"photo", "noise", "constant"}) {
        const Frame4K frame = makeFrame(content, W, H, rng);
        if (const Status s = copyToDevice(engine1d, frame.bytes.data(), frame.bytes.size(), d_frame); !s) {
            std::printf("scopes bench: upload of the %s frame: %s\n", content, s.message.c_str());
            return 1;
        }
        Status probeStatus;
        const double probeMs = medianRunMs(10, repeats, [&] {
            double ms = 0;
            probeStatus = readProbe(engine1d, d_frame.data(), frame.bytes.size(), ms);
            return probeStatus ? ms : -1.0;
        });
        if (!probeStatus || probeMs <= 0) {
            std::printf("scopes bench: read probe: %s\n", probeStatus ? "no time" : probeStatus.message.c_str());
            return 1;
        }
        Row probe;
        probe.frame = content;
        probe.scope = "read-probe";
        probe.variant = "16-byte loads";
        probe.ms = probe.tallyMs = probeMs;
        probe.xProbe = 1.0;
        probe.exact = true;
        probe.note = std::to_string(frame.bytes.size() / probeMs / 1e6) + " GB/s";
        probe.strategy = "read-probe";
        rows.push_back(probe);

        for (const Scope& scope : scopesOf(frame, W, H)) {
            Histogram2DResult reference;
            if (const Status s = referenceHistogram2D(scope.request, reference); !s) {
                std::printf("scopes bench: reference of %s %s: %s\n", content, scope.name.c_str(), s.message.c_str());
                return 1;
            }
            Histogram2DRequest onDevice = scope.request;
            onDevice.image.data = d_frame.data();
            onDevice.image.space = MemorySpace::Device;
            for (const Variant& v : variants) {
                const Measured m = measure(v, onDevice, reference, warmup, repeats);
                if (!m.applies)
                    continue;
                Row row;
                row.frame = content;
                row.scope = scope.name;
                row.variant = m.name;
                row.strategy = std::string(strategyName(m.status ? m.choice.strategy : v.strategy));
                row.tuning = v.tuning;
                if (!m.refused) {
                    row.ms = m.tallyMs;
                    row.xProbe = m.tallyMs / probeMs;
                    row.exact = m.status && m.difference.empty();
                    row.note = !m.status ? m.status.message : !m.difference.empty() ? m.difference : "";
                    row.clearMs = m.clearMs;
                    row.tallyMs = m.tallyMs;
                    row.downloadMs = m.downloadMs;
                    row.wallMs = m.wallMs;
                    std::printf("row %s %s %s: %.4f ms, %.2fx probe, exact %s %s\n", content, scope.name.c_str(), row.variant.c_str(),
                                row.ms, row.xProbe, row.exact ? "yes" : "NO", row.note.c_str());
                } else {
                    row.refused = true;
                    row.exact = true;
                    row.note = m.status.message;
                    std::printf("row %s %s %s: refused: %s\n", content, scope.name.c_str(), row.variant.c_str(), row.note.c_str());
                }
                std::fflush(stdout);
                rows.push_back(row);
                if (m.status.code == ErrorCode::NoDevice || m.status.code == ErrorCode::DeviceLost) {
                    std::printf("scopes bench: %s\n", m.status.message.c_str());
                    return 1;
                }
                // The facade end to end, as the earlier bench gave it beside its direct launches:
                // clear and tally events, and the host's wall time with download and widening.
                if (v.strategy == Strategy::Auto && !m.refused && m.status) {
                    Row events = row;
                    events.variant = "facade auto (" + row.strategy + "): clear+tally events";
                    events.ms = m.clearTallyMs;
                    events.xProbe = m.clearTallyMs / probeMs;
                    events.note = m.choice.reason;
                    Row wall = row;
                    wall.variant = "facade auto: wall, download + widening to 64 bits included";
                    wall.ms = m.wallMs;
                    wall.xProbe = m.wallMs / probeMs;
                    rows.push_back(events);
                    rows.push_back(wall);
                }
            }
        }
    }
    unsetenv("HISTOSCOPE_2D_TUNING");
    // Summary: per frame and scope, the best variant against the probe and CUB.
    std::ostringstream table, csv;
    csv << "frame,scope,variant,median_ms,x_probe,exact,clear_ms,tally_ms,download_ms,wall_ms,strategy,tuning\n";
    table << log.str() << "frame: " << W << "x" << H << " u8 RGB (" << W * H * 3 / 1e6 << " MB); CUDA-event medians of " << repeats
          << " runs after warm-up (the backend's tally phase, through Histogram2DEngine::compute); input and counters on the device\n";
    char line[512];
    std::snprintf(line, sizeof line, "%-9s %-16s %-72s %10s %8s %6s\n", "frame", "scope", "variant", "ms", "x probe", "exact");
    table << line;
    for (const Row& r : rows) {
        if (r.refused) {
            std::snprintf(line, sizeof line, "%-9s %-16s %-72s %10s %8s %6s\n", r.frame.c_str(), r.scope.c_str(),
                          r.variant.substr(0, 72).c_str(), "-", "-", "refused");
            table << line << "          " << r.note << "\n";
            continue;   // not timed: no CSV row
        }
        std::snprintf(line, sizeof line, "%-9s %-16s %-72s %10.4f %8.2f %6s\n", r.frame.c_str(), r.scope.c_str(),
                      r.variant.substr(0, 72).c_str(), r.ms, r.xProbe, r.exact ? "yes" : "NO");
        table << line;
        csv << r.frame << "," << r.scope << ",\"" << r.variant << "\"," << r.ms << "," << r.xProbe << "," << r.exact << ","
            << r.clearMs << "," << r.tallyMs << "," << r.downloadMs << "," << r.wallMs << "," << r.strategy << ",\"" << r.tuning
            << "\"\n";
        if (!r.note.empty() && (r.variant.rfind("facade", 0) == 0 || !r.exact))
            table << "          " << r.note << "\n";
    }
    table << "\nbest per scope (x probe; x best CUB):\n";
    for (const char* content : {"photo", "noise", "constant"})
        for (const char* scope : {"parade", "waveform-luma", "vectorscope-709"}) {
            double best = 1e30, cub = 1e30, probe = 0;
            std::string bestName;
            for (const Row& r : rows) {
                if (r.frame != content)
                    continue;
                if (r.scope == "read-probe")
                    probe = r.ms;
                if (r.scope != scope || r.refused || !r.exact || r.ms <= 0 || r.variant.rfind("facade", 0) == 0)
                    continue;
                if (r.variant.rfind("CUB", 0) == 0)
                    cub = std::min(cub, r.ms);
                else if (r.ms < best)
                    best = r.ms, bestName = r.variant;
            }
            if (cub < 1e30)
                std::snprintf(line, sizeof line, "  %-9s %-16s %8.4f ms  %5.2fx probe  %5.2fx faster than CUB (%7.4f ms)  [%s]\n",
                              content, scope, best, best / probe, cub / best, cub, bestName.c_str());
            else
                std::snprintf(line, sizeof line, "  %-9s %-16s %8.4f ms  %5.2fx probe  (CUB refused or not exact)          [%s]\n",
                              content, scope, best, best / probe, bestName.c_str());
            table << line;
        }
    std::fputs(table.str().c_str(), stdout);
    if (!prefix.empty()) {
        std::ofstream(prefix + "_summary.txt") << table.str();
        std::ofstream(prefix + ".csv") << csv.str();
    }
    bool allExact = true;
    for (const Row& r : rows)
        allExact = allExact && r.exact;
    return allExact ? 0 : 1;
}

// The facade's whole call on a 4K frame, host and device input (issue 21: a host frame's parade
// within 2 ms, upload and download included): `auto` with the default tuning, each scope checked
// exact once into a poisoned result, then the medians of its wall and phases, the result reused
// from call to call as a live scope reuses it (the last call's counts checked exact too).
int runFacade(int repeats)
{
    const int W = 3840, H = 2160, warmup = 5;
    HistogramEngine engine1d;
    if (!engine1d.hasGpu()) {
        std::printf("scopes facade: no CUDA device (%s)\n", engine1d.notice().c_str());
        return 1;
    }
    std::mt19937_64 rng(20261203);
    int failed = 0;
    DeviceArray d_frame;
    for (const char* content : {"photo", "noise", "constant"}) {
        const Frame4K frame = makeFrame(content, W, H, rng);
        if (const Status s = copyToDevice(engine1d, frame.bytes.data(), frame.bytes.size(), d_frame); !s) {
            std::printf("scopes facade: upload of the %s frame: %s\n", content, s.message.c_str());
            return 1;
        }
        for (const auto& [scope, hostRequest] : scopesOf(frame, W, H)) {
            Histogram2DResult reference;
            if (const Status s = referenceHistogram2D(hostRequest, reference); !s) {
                std::printf("scopes facade: reference of %s %s: %s\n", content, scope.c_str(), s.message.c_str());
                return 1;
            }
            for (const bool device : {false, true}) {
                Histogram2DRequest request = hostRequest;
                if (device) {
                    request.image.data = d_frame.data();
                    request.image.space = MemorySpace::Device;
                }
                Histogram2DEngine engine;
                Histogram2DResult result = testing::poisoned2D();
                Status status = engine.compute(request, result);
                const std::string difference = status ? testing::describeDifference2D(reference, result) : status.message;
                std::vector<double> wall, upload, clear, tally, download, host;
                for (int i = 0; status && i < warmup + repeats; ++i) {
                    const auto t0 = std::chrono::steady_clock::now();
                    status = engine.compute(request, result);
                    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
                    if (i < warmup)
                        continue;
                    const PhaseTimings& t = result.timings;
                    wall.push_back(ms);
                    upload.push_back(t.uploadMs);
                    clear.push_back(t.clearMs);
                    tally.push_back(t.tallyMs);
                    download.push_back(t.downloadMs);
                    host.push_back(ms - t.uploadMs - t.clearMs - t.tallyMs - t.downloadMs);
                }
                // The timed calls reused their result's grids: the last of them is checked too.
                const std::string reused = status ? testing::describeDifference2D(reference, result) : std::string();
                const bool exact = status && difference.empty() && reused.empty();
                failed += exact ? 0 : 1;
                if (!status || wall.empty()) {
                    std::printf("facade %-8s %-16s %-6s: FAILED: %s\n", content, scope.c_str(), device ? "device" : "host",
                                (status ? difference : status.message).c_str());
                    continue;
                }
                std::printf("facade %-8s %-16s %-6s: wall %7.3f ms | upload %6.3f clear %6.3f tally %6.3f download %6.3f | "
                            "host beyond the phases %6.3f | %s | exact %s%s\n",
                            content, scope.c_str(), device ? "device" : "host", medianOf(wall), medianOf(upload), medianOf(clear),
                            medianOf(tally), medianOf(download), medianOf(host), std::string(strategyName(result.strategyRan)).c_str(),
                            exact ? "yes" : "NO ", exact ? "" : (" " + difference + " " + reused).c_str());
                std::fflush(stdout);
            }
        }
    }
    std::printf("scopes facade: %d of 18 not exact (medians of %d calls after %d)\n", failed, repeats, warmup);
    return failed ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv)
{
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "--help") {
        std::printf("usage: histoscope-scopes check [--quick] [--light] [--gpu-only] | bench [--out PREFIX] [--repeats N]"
                    " | facade [--repeats N]\n");
        return args.empty() ? 2 : 0;
    }
    if (args[0] == "check") {
        auto has = [&](const char* flag) { return std::find(args.begin(), args.end(), flag) != args.end(); };
        return runCheck({has("--quick"), has("--light"), has("--gpu-only")});
    }
    if (args[0] == "bench") {
        std::string prefix;
        int repeats = 50;
        for (std::size_t i = 1; i + 1 < args.size(); ++i) {
            if (args[i] == "--out")
                prefix = args[i + 1];
            if (args[i] == "--repeats")
                repeats = std::max(3, std::atoi(args[i + 1].c_str()));
        }
        return runBench(prefix, repeats);
    }
    if (args[0] == "facade") {
        int repeats = 30;
        for (std::size_t i = 1; i + 1 < args.size(); ++i)
            if (args[i] == "--repeats")
                repeats = std::max(3, std::atoi(args[i + 1].c_str()));
        return runFacade(repeats);
    }
    std::printf("unknown command '%s'\n", args[0].c_str());
    return 2;
}
