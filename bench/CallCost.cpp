// `histoscope-bench calls`: where the wall time of a count of device input goes, through the
// public API (issue 19's goal: a call within 20 us of the engine's GPU time). For each workload
// the engine counts device memory into device counts, as the Python module does, and reports
// medians of: compute()'s wall, its GPU phases (CUDA events), submit()'s wall (the host's work
// before and while enqueueing), finish()'s wall (the wait and the unpacking), and the same
// compute() in the legacy default stream (PyTorch's and CuPy's default) and with the counts
// downloaded, each after warm-up runs. Every count is checked
// against the CPU reference first.
#include "bench/BenchCommand.h"

#include "histoscope/EngineDiagnostics.h"
#include "histoscope/HistogramEngine.h"
#include "histoscope/ReferenceHistogram.h"
#include "histoscope/RunTiming.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <iostream>
#include <random>
#include <string>
#include <vector>

namespace hs::bench {

namespace {

struct CallWorkload {
    std::string name;
    SampleType type;
    int channels;
    std::int64_t width;
    std::int64_t height;
    std::uint32_t bins;       // per channel, identity from 0
    std::uint32_t values;     // keys drawn from [0, values)
    Strategy strategy = Strategy::Auto;
};

double msSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double gpuMs(const PhaseTimings& t) { return t.uploadMs + t.clearMs + t.tallyMs + t.mergeMs + t.downloadMs; }

std::vector<unsigned char> randomSamples(const CallWorkload& w, std::mt19937_64& rng)
{
    const std::size_t samples = std::size_t(w.width) * std::size_t(w.height) * std::size_t(w.channels);
    std::vector<unsigned char> bytes(samples * sampleSize(w.type));
    std::uniform_int_distribution<std::uint32_t> value(0, w.values - 1);
    for (std::size_t i = 0; i < samples; ++i) {
        const std::uint32_t v = value(rng);
        if (w.type == SampleType::U8)
            bytes[i] = static_cast<unsigned char>(v);
        else
            std::memcpy(&bytes[i * 4], &v, 4);
    }
    return bytes;
}

int measure(HistogramEngine& engine, const CallWorkload& w, int repeats, std::mt19937_64& rng)
{
    const std::vector<unsigned char> host = randomSamples(w, rng);
    DeviceArray d_input, d_counts;
    Status s = copyToDevice(engine, host.data(), host.size(), d_input);
    const std::size_t countBytes = std::size_t(w.bins) * std::size_t(w.channels) * sizeof(std::uint64_t);
    if (s)
        s = allocateDevice(engine, countBytes, d_counts);
    if (!s) {
        std::cerr << "histoscope-bench calls: " << w.name << ": " << s.message << "\n";
        return 1;
    }
    ImageView view;
    view.data = d_input.data();
    view.space = MemorySpace::Device;
    view.type = w.type;
    view.width = w.width;
    view.height = w.height;
    view.channels = w.channels;
    ChannelBinning binning;
    binning.bins = w.bins;
    binning.lo = 0;
    binning.hi = double(w.bins);
    binning.identity = true;
    HistogramRequest request = makeRequest(view, binning, w.strategy);

    // Exact first: the downloaded counts and the device counts against the CPU reference.
    HistogramRequest hostRequest = request;
    hostRequest.image.data = host.data();
    hostRequest.image.space = MemorySpace::Host;
    HistogramResult expected, downloaded, kept;
    s = referenceHistogram(hostRequest, expected);
    if (s)
        s = engine.compute(request, downloaded);
    request.deviceCounts = d_counts.data();
    if (s)
        s = engine.compute(request, kept);
    std::vector<std::uint64_t> onDevice(countBytes / sizeof(std::uint64_t), ~0ull);
    if (s)
        s = copyFromDevice(engine, d_counts.data(), countBytes, onDevice.data());
    if (!s) {
        std::cerr << "histoscope-bench calls: " << w.name << ": " << s.message << "\n";
        return 1;
    }
    bool exact = downloaded.channels.size() == expected.channels.size();
    for (std::size_t c = 0; exact && c < expected.channels.size(); ++c) {
        const auto& want = expected.channels[c].counts;
        exact = downloaded.channels[c].counts == want
             && std::equal(want.begin(), want.end(), onDevice.begin() + std::ptrdiff_t(c * w.bins))
             && kept.channels[c].maxValue == expected.channels[c].maxValue;
    }
    if (!exact) {
        std::cerr << "histoscope-bench calls: " << w.name << ": counts differ from the CPU reference\n";
        return 1;
    }

    std::vector<double> wall, gpu, submitWall, finishWall, downloadWall, downloadGpu, legacyWall, legacyGpu;
    // Where wall - GPU goes, from the engine's host moments (PhaseTimings): before its first GPU
    // work, the wait beyond the phases, and after the wait; the last also with counts downloaded.
    std::vector<double> before, beyond, after, downloadAfter, downloadPhase;
    auto momentsMs = [](std::int64_t from, std::int64_t to) { return double(to - from) * 1e-6; };
    HistogramResult result;
    for (int i = 0; i < 10 + repeats && s; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        s = engine.compute(request, result);
        const double computeMs = msSince(t0);
        if (!s)
            break;
        const double phases = gpuMs(result.timings);
        const PhaseTimings moments = result.timings;
        t0 = std::chrono::steady_clock::now();
        s = engine.submit(request);
        const double submitMs = msSince(t0);
        t0 = std::chrono::steady_clock::now();
        if (s)
            s = engine.finish(result);
        const double finishMs = msSince(t0);
        HistogramRequest plain = request;
        plain.deviceCounts = nullptr;
        t0 = std::chrono::steady_clock::now();
        if (s)
            s = engine.compute(plain, downloaded);
        const double plainMs = msSince(t0);
        // PyTorch's and CuPy's default stream is the legacy default stream, which the module names.
        HistogramRequest legacy = request;
        legacy.stream = 1;  // cudaStreamLegacy
        t0 = std::chrono::steady_clock::now();
        if (s)
            s = engine.compute(legacy, result);
        const double legacyMs = msSince(t0);
        if (i >= 10) {
            wall.push_back(computeMs);
            gpu.push_back(phases);
            submitWall.push_back(submitMs);
            finishWall.push_back(finishMs);
            downloadWall.push_back(plainMs);
            downloadGpu.push_back(gpuMs(downloaded.timings));
            legacyWall.push_back(legacyMs);
            legacyGpu.push_back(gpuMs(result.timings));
            before.push_back(momentsMs(moments.enteredNs, moments.gpuQueuedNs));
            beyond.push_back(momentsMs(moments.gpuQueuedNs, moments.syncedNs) - phases);
            after.push_back(momentsMs(moments.syncedNs, moments.finishedNs));
            downloadAfter.push_back(momentsMs(downloaded.timings.syncedNs, downloaded.timings.finishedNs));
            downloadPhase.push_back(downloaded.timings.downloadMs);
        }
    }
    if (!s) {
        std::cerr << "histoscope-bench calls: " << w.name << ": " << s.message << "\n";
        return 1;
    }
    const double us = 1e3;
    std::printf("calls: %-22s %-4s %-10s compute wall %8.1f us, GPU phases %8.1f us, wall - GPU %5.1f us | submit %5.1f us, "
                "finish %8.1f us | legacy stream: wall - GPU %5.1f us | counts downloaded: wall - GPU %6.1f us\n",
                w.name.c_str(), w.strategy == Strategy::Auto ? "auto" : "",
                std::string(strategyName(result.strategyRan)).c_str(), medianOf(wall) * us,
                medianOf(gpu) * us, (medianOf(wall) - medianOf(gpu)) * us, medianOf(submitWall) * us,
                medianOf(finishWall) * us, (medianOf(legacyWall) - medianOf(legacyGpu)) * us,
                (medianOf(downloadWall) - medianOf(downloadGpu)) * us);
    std::printf("calls: %-22s %-4s %-10s host moments: before the GPU %5.1f us, wait beyond the phases %5.1f us, after "
                "the wait %5.1f us | counts downloaded: after the wait %6.1f us, their download (a GPU phase) %6.1f us\n",
                w.name.c_str(), w.strategy == Strategy::Auto ? "auto" : "",
                std::string(strategyName(result.strategyRan)).c_str(), medianOf(before) * us, medianOf(beyond) * us,
                medianOf(after) * us, medianOf(downloadAfter) * us, medianOf(downloadPhase) * us);
    return 0;
}

}  // namespace

int runCallCost(int repeats)
{
    HistogramEngine engine;
    if (!engine.hasGpu()) {
        std::cout << "histoscope-bench calls: " << engine.notice() << " (nothing to time)\n";
        return 0;
    }
    const std::vector<CallWorkload> workloads = {
        {"4K RGB 8-bit, 256 bins", SampleType::U8, 3, 3840, 2160, 256, 256},
        {"64M keys, 64 bins", SampleType::U32, 1, 64 << 20, 1, 64, 64},
        {"100M keys, 128000 bins", SampleType::I32, 1, 100'000'000, 1, 128'000, 128'000},
        {"100M keys, 128000 bins", SampleType::I32, 1, 100'000'000, 1, 128'000, 128'000, Strategy::Replicated},
        {"1M keys, 256 bins", SampleType::U32, 1, 1 << 20, 1, 256, 256},
        // Issue 21's whole-call case: a million bins, whose counts (8 MB) are the download.
        {"16M keys, 1M bins", SampleType::U32, 1, 16 << 20, 1, 1'000'000, 1'000'000},
    };
    std::mt19937_64 rng(20261202);
    int rc = 0;
    for (const CallWorkload& w : workloads)
        rc |= measure(engine, w, repeats, rng);
    return rc;
}

}  // namespace hs::bench
