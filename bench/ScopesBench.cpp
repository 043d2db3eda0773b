// histoscope-scopes: the 2-D histograms' H200 self-check and the benchmark's scopes section.
// Qt-free (the GPU machine has neither Qt nor OpenCV).
//
//   histoscope-scopes check [--quick] [--light] [--gpu-only]
//                                       the 2-D exactness matrix x every strategy x host and device
//                                       inputs x every tuning variant, against the serial reference
//   histoscope-scopes bench [--out PREFIX] [--repeats N]
//                                       a 4K 8-bit RGB frame's parade (3 x 3840 x 256 cells), luma
//                                       waveform and vectorscope: each family and tuning variant,
//                                       CUB (fused and materialized) and global atomics, against a
//                                       read probe of the same bytes; CUDA-event medians after
//                                       warm-up, device-resident input and counters; each timed
//                                       variant's counters checked against the reference once.
#include "gpu/testing/Histogram2DCases.h"
#include "gpu/testing/TestCases.h"

#include "../gpu/cuda/CudaCheck.h"
#include "../gpu/cuda/DeviceMemory.h"
#include "../gpu/cuda/kernels/Histogram2DKernels.h"
#include "../gpu/src/Histogram2DPlan.h"

#include "histoscope/EngineDiagnostics.h"
#include "histoscope/Histogram2D.h"
#include "histoscope/HistogramEngine.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
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

struct Timer {
    detail::CudaEvent start, stop;
    Status create()
    {
        HS_TRY(start.create());
        return stop.create();
    }
};

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

// Median over `repeats` of the work on `stream`, timed with events, after `warmup` runs.
Status timeMedian(const std::function<Status()>& work, cudaStream_t stream, int warmup, int repeats, double& ms)
{
    Timer t;
    HS_TRY(t.create());
    for (int i = 0; i < warmup; ++i)
        HS_TRY(work());
    HS_CUDA_TRY(cudaStreamSynchronize(stream));
    std::vector<double> times;
    for (int i = 0; i < repeats; ++i) {
        HS_CUDA_TRY(cudaEventRecord(t.start.get(), stream));
        HS_TRY(work());
        HS_CUDA_TRY(cudaEventRecord(t.stop.get(), stream));
        HS_CUDA_TRY(cudaEventSynchronize(t.stop.get()));
        float f = 0;
        HS_CUDA_TRY(cudaEventElapsedTime(&f, t.start.get(), t.stop.get()));
        times.push_back(f);
    }
    ms = median(times);
    return Status::success();
}

struct Row {
    std::string frame, scope, variant;
    double ms = 0;
    double xProbe = 0;
    bool exact = false;
    std::string note;
};

int runBench(const std::string& prefix, int repeats)
{
    const int W = 3840, H = 2160;
    int deviceCount = 0;
    if (cudaGetDeviceCount(&deviceCount) != cudaSuccess || deviceCount == 0) {
        std::printf("scopes bench: no CUDA device\n");
        return 1;
    }
    cudaDeviceProp prop{};
    cudaGetDeviceProperties(&prop, 0);
    detail::Device2D device;
    device.multiprocessors = prop.multiProcessorCount;
    device.sharedOptin = prop.sharedMemPerBlockOptin;
    device.sharedPerMultiprocessor = prop.sharedMemPerMultiprocessor;
    device.maxThreadsPerMultiprocessor = prop.maxThreadsPerMultiProcessor;
    device.computeMajor = prop.major;
    detail::CudaStream stream;
    if (!stream.create())
        return 1;
    const cudaStream_t s = stream.get();
    std::mt19937_64 rng(20261130);
    std::vector<Row> rows;
    std::ostringstream log;
    log << "device: " << prop.name << ", " << prop.multiProcessorCount << " SMs, " << prop.sharedMemPerBlockOptin / 1024
        << " KiB shared per block (opt-in)\n";
    for (const char* content : {"photo", "noise", "constant"}) {
        const Frame4K frame = makeFrame(content, W, H, rng);
        detail::DeviceBuffer d_frame, d_counts, d_sink;
        detail::CubScratch2D cub;
        detail::JointScratch scratch;
        if (!d_frame.reserve(frame.bytes.size()) || !d_sink.reserve(8))
            return 1;
        cudaMemcpy(d_frame.get(), frame.bytes.data(), frame.bytes.size(), cudaMemcpyHostToDevice);
        ImageView view;
        view.data = frame.bytes.data();
        view.width = W;
        view.height = H;
        view.channels = 3;
        detail::Region2D region{d_frame.get<unsigned char>(), std::size_t(W) * 3, W, H, 0};
        double probeMs = 0;
        Status ps = timeMedian([&] { return detail::launchReadProbe2D(region, 3, d_sink.get<unsigned long long>(), device, s); },
                               s, 10, repeats, probeMs);
        if (!ps) {
            std::printf("probe: %s\n", ps.message.c_str());
            return 1;
        }
        rows.push_back({content, "read-probe", "16-byte loads", probeMs, 1.0, true,
                        std::to_string(frame.bytes.size() / probeMs / 1e6) + " GB/s"});

        struct Scope {
            std::string name;
            Histogram2DRequest request;
        };
        const std::vector<Scope> scopes{
            {"parade", paradeRequest(view, {0, 1, 2})},
            {"waveform-luma", lumaWaveformRequest(view, YCbCrStandard::Bt709, {0, 1, 2})},
            {"vectorscope-709", vectorscopeRequest(view, YCbCrStandard::Bt709, {0, 1, 2})},
        };
        for (const Scope& scope : scopes) {
            detail::Plan2D plan;
            if (!detail::buildPlan2D(scope.request, plan))
                return 1;
            Histogram2DResult reference;
            referenceHistogram2D(scope.request, reference);
            std::vector<std::uint64_t> refSlots(plan.map.numSlots, 0);
            for (int i = 0; i < plan.map.numPairs; ++i)
                std::copy(reference.histograms[i].grid.begin(), reference.histograms[i].grid.end(),
                          refSlots.begin() + plan.map.pair[i].base);
            const std::size_t countBytes = std::size_t(plan.map.numSlots) * 4;
            if (!d_counts.reserve(countBytes))
                return 1;
            detail::Launch2D L;
            L.type = plan.type;
            L.channels = plan.channels;
            L.region = region;
            L.map = plan.map;
            L.d_counts = d_counts.get<std::uint32_t>();
            auto exact = [&]() {
                std::vector<std::uint32_t> got(plan.map.numSlots);
                cudaStreamSynchronize(s);
                cudaMemcpy(got.data(), L.d_counts, countBytes, cudaMemcpyDeviceToHost);
                for (std::size_t k = 0; k < got.size(); ++k)
                    if (got[k] != refSlots[k])
                        return false;
                return true;
            };
            auto poison = [&]() { cudaMemsetAsync(L.d_counts, 0xa5, countBytes, s); };
            auto clear = [&]() { return detail::cudaStatus(cudaMemsetAsync(L.d_counts, 0, countBytes, s), "memset"); };
            struct Variant {
                std::string name;
                std::function<Status()> run;
            };
            std::vector<Variant> variants;
            if (plan.columnStrips) {
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
                    detail::Tuning2D t;
                    t.stripColumns = sv.cols;
                    t.packed16 = sv.p16;
                    t.fast = sv.fast;
                    t.fastStripThreads = sv.threads;
                    t.stripBatch = sv.batch;
                    t.stripPad = sv.pad;
                    const detail::StripPlan sp = detail::planStrips(L, device, t);
                    if (!sp.fits)
                        continue;
                    variants.push_back({"strips " + std::string(sv.fast ? "fast " : "generic ") + std::to_string(sv.cols) + " cols x"
                                            + std::to_string(sv.fast ? sv.threads : 256) + (sv.fast ? " b" + std::to_string(sv.batch) : "")
                                            + (sv.pad ? " pad" : "") + " " + (sp.packed16 ? "16-bit" : "32-bit") + " ("
                                            + std::to_string(sp.blocks) + " blocks, " + std::to_string(sp.sharedBytes / 1024) + " KiB)",
                                        [&L, &scratch, &device, sp, t, s] { return detail::launchStrips(L, sp, t, scratch.cache, device, s); }});
                }
            }
            // Fast joint tiles merged per cluster (blocks per cluster asked; the launch may take fewer).
            struct ClusterVariant {
                int cluster;
                bool dense;
            };
            for (const ClusterVariant cv : {ClusterVariant{1, false}, ClusterVariant{2, false}, ClusterVariant{4, false},
                                            ClusterVariant{8, false}, ClusterVariant{16, false}, ClusterVariant{4, true},
                                            ClusterVariant{8, true}, ClusterVariant{16, true}}) {
                detail::Tuning2D t;
                t.cluster = cv.cluster;
                t.clusterDense = cv.dense;
                const detail::JointPlan jp = detail::planJoint(L, device, t);
                if (plan.columnStrips || jp.tiles != 1)
                    continue;
                variants.push_back({"joint fast cluster " + std::to_string(cv.cluster) + (cv.dense ? ", cluster rows + reduce" : ", atomics"),
                                    [&, jp, t] {
                                        HS_TRY(clear());
                                        return detail::launchJoint(L, jp, scratch, device, t, s);
                                    }});
            }
            for (std::uint32_t dense : {8u, 0u, 1000000u})
                for (int form : {0, 1, 2}) {  // fast 16-bit, generic 16-bit, generic 32-bit
                    detail::Tuning2D t;
                    t.cluster = 0;
                    t.denseDivisor = dense;
                    t.packed16 = form < 2;
                    t.fast = form == 0;
                    const detail::JointPlan jp = detail::planJoint(L, device, t);
                    if (jp.tiles > 8 || (form > 0 && dense != 8))
                        continue;
                    const std::string merge = dense == 0 ? "sparse merge" : dense == 8 ? "sparse/dense merge" : "dense merge";
                    variants.push_back({"joint " + std::string(form == 0 ? "fast" : "generic") + " tiles " + std::to_string(jp.tiles) + "x"
                                            + (jp.packed16 ? "16-bit" : "32-bit") + ", " + merge,
                                        [&, jp, t] {
                                            HS_TRY(clear());
                                            return detail::launchJoint(L, jp, scratch, device, t, s);
                                        }});
                }
            variants.push_back({"global atomics", [&] {
                                    HS_TRY(clear());
                                    return detail::launchGlobal2D(L, device, s);
                                }});
            variants.push_back({"CUB HistogramEven, fused cell iterator", [&] { return detail::launchCub2D(L, cub, s); }});
            variants.push_back({"CUB HistogramEven, materialized cells", [&] {
                                    return detail::launchCubMaterialized2D(L, cub, device, s);
                                }});
            for (const Variant& v : variants) {
                poison();
                scratch.lastCluster = -1;
                Status st = v.run();
                const bool ok = st && exact();
                const std::string name = scratch.lastCluster > 0 ? v.name + " (ran " + std::to_string(scratch.lastCluster) + ")" : v.name;
                double ms = 0;
                if (st)
                    st = timeMedian(v.run, s, 5, repeats, ms);
                rows.push_back({content, scope.name, name, ms, ms / probeMs, ok && bool(st), st ? "" : st.message});
                std::printf("row %s %s %s: %.4f ms, %.2fx probe, exact %s %s\n", content, scope.name.c_str(), name.c_str(), ms,
                            ms / probeMs, rows.back().exact ? "yes" : "NO", rows.back().note.c_str());
                std::fflush(stdout);
            }
            // The facade end to end (device input): counting, download and widening included.
            {
                Histogram2DEngine engine;
                Histogram2DRequest r = scope.request;
                r.image.data = d_frame.get();
                r.image.space = MemorySpace::Device;
                Histogram2DResult result;
                engine.compute(r, result);
                std::vector<double> wall, tally;
                for (int i = 0; i < std::max(5, repeats / 4); ++i) {
                    const auto t0 = std::chrono::steady_clock::now();
                    engine.compute(r, result);
                    wall.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
                    tally.push_back(result.timings.clearMs + result.timings.tallyMs);
                }
                rows.push_back({content, scope.name, "facade auto (" + std::string(strategyName(result.strategyRan)) + "): clear+tally events",
                                median(tally), median(tally) / probeMs, result == reference, result.strategyReason});
                rows.push_back({content, scope.name, "facade auto: wall, download + widening to 64 bits included", median(wall),
                                median(wall) / probeMs, result == reference, ""});
            }
        }
    }
    // Summary: per frame and scope, the best of each family against the probe and the best CUB.
    std::ostringstream table, csv;
    csv << "frame,scope,variant,median_ms,x_probe,exact\n";
    table << log.str() << "frame: 3840x2160 u8 RGB (" << W * H * 3 / 1e6 << " MB); CUDA-event medians of " << repeats
          << " runs after warm-up; input and counters on the device\n";
    char line[512];
    std::snprintf(line, sizeof line, "%-9s %-16s %-72s %10s %8s %6s\n", "frame", "scope", "variant", "ms", "x probe", "exact");
    table << line;
    for (const Row& r : rows) {
        std::snprintf(line, sizeof line, "%-9s %-16s %-72s %10.4f %8.2f %6s\n", r.frame.c_str(), r.scope.c_str(),
                      r.variant.substr(0, 72).c_str(), r.ms, r.xProbe, r.exact ? "yes" : "NO");
        table << line;
        csv << r.frame << "," << r.scope << ",\"" << r.variant << "\"," << r.ms << "," << r.xProbe << "," << r.exact << "\n";
        if (!r.note.empty() && r.variant.rfind("facade", 0) == 0)
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
                if (r.scope != scope || !r.exact || r.ms <= 0 || r.variant.rfind("facade", 0) == 0)
                    continue;
                if (r.variant.rfind("CUB", 0) == 0)
                    cub = std::min(cub, r.ms);
                else if (r.ms < best)
                    best = r.ms, bestName = r.variant;
            }
            std::snprintf(line, sizeof line, "  %-9s %-16s %8.4f ms  %5.2fx probe  %5.2fx faster than CUB (%7.4f ms)  [%s]\n",
                          content, scope, best, best / probe, cub / best, cub, bestName.c_str());
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

}  // namespace

int main(int argc, char** argv)
{
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "--help") {
        std::printf("usage: histoscope-scopes check [--quick] [--light] [--gpu-only] | bench [--out PREFIX] [--repeats N]\n");
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
    std::printf("unknown command '%s'\n", args[0].c_str());
    return 2;
}
