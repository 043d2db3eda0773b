// The GPU machine has no Qt, so this runs the same exactness matrix as tests/tst_strategies.cpp
// against the reference, for every strategy, from host and from device memory.
#include "bench/BenchCommand.h"
#include "gpu/testing/TestCases.h"

#include "histoscope/EngineDiagnostics.h"
#include "histoscope/HistogramEngine.h"
#include "histoscope/ReferenceHistogram.h"

#include <cstring>
#include <iostream>

namespace hs::bench {

namespace {

struct Tally {
    int passed = 0;
    int failed = 0;
};

void check(HistogramEngine& engine, const HistogramRequest& request, const HistogramResult& expected,
           const std::string& label, Tally& tally)
{
    HistogramResult result = testing::poisonedResult();
    const Status s = engine.compute(request, result);
    std::string problem = s ? testing::describeDifference(expected, result) : "error: " + s.message;
    if (s && result.samples != expected.samples)
        problem += "sample count " + std::to_string(result.samples) + " != " + std::to_string(expected.samples);
    if (problem.empty()) {
        ++tally.passed;
    } else {
        ++tally.failed;
        std::cout << "FAIL " << label << ": " << problem << "\n";
    }
}

void checkBigBin(HistogramEngine& engine, std::uint64_t seed, Tally& tally, bool device)
{
    // 2^32 + 2^20 + 7 samples: most are 200, so bin 200 passes 2^32.
    const std::size_t count = (std::size_t(1) << 32) + (std::size_t(1) << 20) + 7;
    std::vector<std::uint8_t> keys(count, 200);
    std::mt19937_64 rng = testing::caseRng(seed, "big-bin");
    for (int i = 0; i < 100000; ++i)
        keys[rng() % count] = std::uint8_t(rng());
    HistogramRequest request = makeRequest(keysView(keys.data(), count, SampleType::U8), defaultBinning(SampleType::U8));
    HistogramResult expected;
    request.strategy = Strategy::Cpu;
    engine.compute(request, expected);
    // Check the CPU result itself against a direct count.
    std::uint64_t twoHundred = 0;
    for (std::uint8_t k : keys)
        twoHundred += k == 200;
    if (expected.channels.empty() || expected.channels[0].counts[200] != twoHundred) {
        ++tally.failed;
        std::cout << "FAIL big-bin cpu\n";
        return;
    }
    DeviceArray array;
    if (device && !copyToDevice(engine, keys.data(), count, array)) {
        ++tally.failed;
        std::cout << "FAIL big-bin: could not upload 4.3 GB\n";
        return;
    }
    for (Strategy s : {Strategy::Auto, Strategy::GlobalAtomic, Strategy::Shared, Strategy::RunLength, Strategy::Cub,
                       Strategy::PerLane}) {
        request.strategy = s;
        request.image = keysView(device ? array.data() : keys.data(), count, SampleType::U8,
                                 device ? MemorySpace::Device : MemorySpace::Host);
        check(engine, request, expected, std::string("big-bin/") + (device ? "device/" : "host/") + std::string(strategyName(s)), tally);
    }
}

// A comma-separated list of name fragments; empty matches everything.
bool matchesFilter(const std::string& name, const std::string& filter)
{
    if (filter.empty())
        return true;
    std::size_t start = 0;
    while (start <= filter.size()) {
        const std::size_t comma = std::min(filter.find(',', start), filter.size());
        if (comma > start && name.find(filter.substr(start, comma - start)) != std::string::npos)
            return true;
        start = comma + 1;
    }
    return false;
}

// Equalization on the engine's backend against the CPU backend, exactly, LUTs and pixels.
void checkEqualize(HistogramEngine& engine, std::uint64_t seed, Tally& tally)
{
    HistogramEngine cpu(EngineOptions{false});
    for (SampleType type : {SampleType::U8, SampleType::U16})
        for (int channels : {1, 3, 4})
            for (testing::Distribution d : testing::allDistributions()) {
                testing::Case c;
                c.type = type;
                c.width = 641;
                c.height = 357;
                c.channels = channels;
                c.bins = type == SampleType::U8 ? 256 : 65536;
                c.hi = c.bins;
                c.distribution = d;
                const std::string label = "equalize/" + std::string(sampleTypeName(type)) + "/c" + std::to_string(channels)
                                        + "/" + std::string(testing::distributionName(d));
                std::mt19937_64 rng = testing::caseRng(seed, label);
                const testing::SyntheticImage frame = testing::makeSyntheticImage(c, rng);
                std::vector<unsigned char> expectedPixels(frame.bytes.size()), pixels(frame.bytes.size(), 0xa5);
                EqualizeResult expected, actual;
                const Status a = cpu.equalize(frame.view, expectedPixels.data(), 0, expected);
                const Status b = engine.equalize(frame.view, pixels.data(), 0, actual);
                const std::size_t used = std::size_t(c.width) * c.height * channels * sampleSize(type);
                if (a && b && expected.luts == actual.luts
                    && std::equal(pixels.begin(), pixels.begin() + used, expectedPixels.begin())) {
                    ++tally.passed;
                } else {
                    ++tally.failed;
                    std::cout << "FAIL " << label << ": " << (a ? (b ? "LUT or pixels differ" : b.message) : a.message) << "\n";
                }
            }
}

}  // namespace

int runSelfCheck(const SelfCheckOptions& options)
{
    HistogramEngine engine;
    std::cout << "engine: " << (engine.hasGpu() ? "CUDA " + engine.deviceInfo()->name : std::string("CPU"));
    if (!engine.notice().empty())
        std::cout << " (" << engine.notice() << ")";
    std::cout << "\n";
    std::vector<Strategy> strategies{Strategy::Cpu, Strategy::Auto};
    if (engine.hasGpu())
        strategies.insert(strategies.end(), gpuStrategies().begin(), gpuStrategies().end());

    const std::uint64_t seed = testing::runSeed();
    std::cout << "seed: " << seed << " (HISTOSCOPE_SEED=" << seed << " replays it)\n";
    Tally tally;
    for (const testing::Case& c : testing::exactnessMatrix()) {
        if (!matchesFilter(c.name, options.filter))
            continue;
        std::mt19937_64 rng = testing::caseRng(seed, c.name);
        const testing::SyntheticImage frame = testing::makeSyntheticImage(c, rng);
        HistogramRequest request = testing::makeCaseRequest(c, frame, Strategy::Cpu);
        HistogramResult expected;
        if (Status s = referenceHistogram(request, expected); !s) {
            std::cout << "FAIL " << c.name << ": reference: " << s.message << "\n";
            ++tally.failed;
            continue;
        }
        DeviceArray onDevice;
        const bool device = engine.hasGpu() && !options.hostOnly
            && copyToDevice(engine, frame.bytes.data(), frame.bytes.size(), onDevice);
        for (Strategy s : strategies) {
            if (!strategyAccepts(s, c.type, c.bins))
                continue;
            request.strategy = s;
            request.image = frame.view;
            check(engine, request, expected, c.name + "/host/" + std::string(strategyName(s)), tally);
            if (device && s != Strategy::Cpu) {
                request.image.data = onDevice.data();
                request.image.space = MemorySpace::Device;
                check(engine, request, expected, c.name + "/device/" + std::string(strategyName(s)), tally);
            }
        }
    }
    if (matchesFilter("equalize", options.filter))
        checkEqualize(engine, seed, tally);
    if (options.big) {
        const int before = tally.passed + tally.failed;
        checkBigBin(engine, seed, tally, false);
        if (engine.hasGpu())
            checkBigBin(engine, seed, tally, true);
        std::cout << "big-bin (2^32 + 2^20 + 7 samples, one bin past 2^32): "
                  << tally.passed + tally.failed - before << " checks\n";
    }
    std::cout << "selfcheck: " << tally.passed << " passed, " << tally.failed << " failed\n";
    return tally.failed ? 1 : 0;
}

}  // namespace hs::bench
