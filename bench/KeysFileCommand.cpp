// `histoscope-bench keys FILE`: counts a headerless file of keys (the peers script's data) on
// the GPU with one strategy, checks nothing itself, writes the exact counts for the caller to
// compare, and reports the CUDA-event median of the counting phases and the read probe of the
// same bytes. bench/peers.py runs it beside torch.bincount and cupy.bincount on the same file.
#include "bench/BenchCommand.h"

#include "histoscope/EngineDiagnostics.h"
#include "histoscope/HistogramEngine.h"
#include "histoscope/RunTiming.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <vector>

namespace hs::bench {

int runKeysFile(const KeysFileOptions& o)
{
    const auto type = sampleTypeFromName(o.type);
    if (!type || isFloatType(*type)) {
        std::cerr << "histoscope-bench keys: --type takes u8, u16, i32 or u32\n";
        return 2;
    }
    std::ifstream in(o.path, std::ios::binary | std::ios::ate);
    if (!in) {
        std::cerr << "histoscope-bench keys: " << o.path << ": cannot be opened\n";
        return 1;
    }
    const std::streamsize bytes = in.tellg();
    const std::size_t sampleBytes = sampleSize(*type);
    if (bytes <= 0 || std::size_t(bytes) % sampleBytes != 0) {
        std::cerr << "histoscope-bench keys: " << o.path << ": size is not a whole number of " << o.type << " keys\n";
        return 1;
    }
    std::vector<unsigned char> host(static_cast<std::size_t>(bytes));
    in.seekg(0);
    if (!in.read(reinterpret_cast<char*>(host.data()), bytes)) {
        std::cerr << "histoscope-bench keys: " << o.path << ": read failed\n";
        return 1;
    }
    HistogramEngine engine;
    if (!engine.hasGpu()) {
        std::cerr << "histoscope-bench keys: " << engine.notice() << "\n";
        return 1;
    }
    const auto strategy = strategyFromName(o.strategy);
    if (!strategy) {
        std::cerr << "histoscope-bench keys: unknown strategy " << o.strategy << "\n";
        return 2;
    }
    DeviceArray d_keys;
    if (Status s = copyToDevice(engine, host.data(), host.size(), d_keys); !s) {
        std::cerr << "histoscope-bench keys: " << s.message << "\n";
        return 1;
    }
    const std::size_t num_keys = host.size() / sampleBytes;
    ChannelBinning binning;
    binning.bins = o.bins;
    binning.lo = 0;
    binning.hi = double(o.bins);
    binning.identity = true;
    const HistogramRequest request = makeRequest(keysView(d_keys.data(), num_keys, *type, MemorySpace::Device), binning, *strategy);
    HistogramResult result;
    Status status;
    std::vector<double> walls;
    const double gpuMs = medianRunMs(3, o.repeats, [&] {
        const auto t0 = std::chrono::steady_clock::now();
        status = engine.compute(request, result);
        walls.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        return status ? result.timings.clearMs + result.timings.tallyMs + result.timings.mergeMs : -1.0;
    });
    if (!status) {
        std::cerr << "histoscope-bench keys: " << status.message << "\n";
        return 1;
    }
    walls.erase(walls.begin(), walls.begin() + 3);
    double probeMs = 0;
    const double medianProbe = medianRunMs(3, o.repeats, [&] {
        return readProbe(engine, d_keys.data(), host.size(), probeMs) ? probeMs : -1.0;
    });
    if (!o.countsPath.empty()) {
        std::ofstream out(o.countsPath, std::ios::binary | std::ios::trunc);
        const auto& counts = result.channels.front().counts;
        out.write(reinterpret_cast<const char*>(counts.data()), std::streamsize(counts.size() * sizeof(std::uint64_t)));
        out.flush();
        if (!out) {
            std::cerr << "histoscope-bench keys: " << o.countsPath << ": write failed\n";
            return 1;
        }
    }
    std::printf("{\"strategy\":\"%s\",\"ran\":\"%s\",\"keys\":%zu,\"bins\":%u,\"gpu_ms\":%.5f,\"wall_ms\":%.5f,\"probe_ms\":%.5f,"
                "\"above\":%llu}\n",
                std::string(strategyName(*strategy)).c_str(), std::string(strategyName(result.strategyRan)).c_str(), num_keys,
                o.bins, gpuMs, medianOf(walls), medianProbe, static_cast<unsigned long long>(result.channels.front().above));
    return 0;
}

}  // namespace hs::bench
