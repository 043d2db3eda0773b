// The GPU machine has no Qt, so this runs the same exactness matrix as tests/tst_strategies.cpp
// against the reference, for every strategy, from host and from device memory; then equalization
// and LUT application (histogram matching) against the CPU backend.
#include "bench/BenchCommand.h"
#include "gpu/testing/TestCases.h"

#include "histoscope/EngineDiagnostics.h"
#include "histoscope/HistogramEngine.h"
#include "histoscope/HistogramMatching.h"
#include "histoscope/ReferenceHistogram.h"

#include <algorithm>
#include <array>
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

// The same count with its counts kept in poisoned device memory (HistogramRequest::deviceCounts):
// the margins and extremes delivered, the counts read back, all equal to the reference.
void checkDeviceCounts(HistogramEngine& engine, HistogramRequest request, const HistogramResult& expected,
                       const std::string& label, Tally& tally)
{
    std::size_t words = 0;
    for (const ChannelHistogram& h : expected.channels)
        words += h.counts.size();
    const std::vector<unsigned char> poison(std::max<std::size_t>(words, 1) * sizeof(std::uint64_t), 0xA5);
    DeviceArray counts;
    if (Status s = copyToDevice(engine, poison.data(), poison.size(), counts); !s) {
        ++tally.failed;
        std::cout << "FAIL " << label << ": device counts: " << s.message << "\n";
        return;
    }
    request.deviceCounts = counts.data();
    HistogramResult result = testing::poisonedResult();
    Status s = engine.compute(request, result);
    std::string problem;
    if (!s)
        problem = "error: " + s.message;
    else if (!result.countsOnDevice)
        problem = "the result does not say its counts are on the device";
    for (const ChannelHistogram& h : result.channels)
        if (s && !h.counts.empty())
            problem += "a channel carries host counts too; ";
    if (s && problem.empty() && result.channels.size() == expected.channels.size()) {
        std::vector<std::uint64_t> host(words);
        s = copyFromDevice(engine, counts.data(), words * sizeof(std::uint64_t), host.data());
        std::size_t at = 0;
        for (std::size_t i = 0; s && i < result.channels.size(); ++i) {
            const std::size_t bins = expected.channels[i].counts.size();
            result.channels[i].counts.assign(host.begin() + std::ptrdiff_t(at), host.begin() + std::ptrdiff_t(at + bins));
            at += bins;
        }
        problem = s ? testing::describeDifference(expected, result) : "download: " + s.message;
        if (s && result.samples != expected.samples)
            problem += "sample count " + std::to_string(result.samples) + " != " + std::to_string(expected.samples);
    } else if (s && problem.empty()) {
        problem = std::to_string(result.channels.size()) + " channels, not " + std::to_string(expected.channels.size());
    }
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
                       Strategy::PerLane, Strategy::Partition, Strategy::Packed}) {
        request.strategy = s;
        request.image = keysView(device ? array.data() : keys.data(), count, SampleType::U8,
                                 device ? MemorySpace::Device : MemorySpace::Host);
        check(engine, request, expected, std::string("big-bin/") + (device ? "device/" : "host/") + std::string(strategyName(s)), tally);
    }
}

// `auto` steers each device input by a sample of its own: after calls on uniform keys, a hot
// input of the same shape in another buffer takes the hot cache on its first call, and is exact.
// (Session 17 found eight calls steered by the last input's estimate: 5.6 ms against 0.049.)
void checkAutoFollowsItsInput(HistogramEngine& engine, std::uint64_t seed, Tally& tally)
{
    constexpr std::size_t kCount = std::size_t(1) << 22;
    constexpr std::uint32_t kBins = 1000000;
    std::mt19937_64 rng = testing::caseRng(seed, "auto-follows-its-input");
    const std::uint32_t hotKey = std::uint32_t(rng() % kBins);
    std::vector<std::uint32_t> uniform(kCount), hot(kCount);
    for (std::size_t i = 0; i < kCount; ++i) {
        uniform[i] = std::uint32_t(rng() % kBins);
        hot[i] = rng() % 10 ? hotKey : std::uint32_t(rng() % kBins);
    }
    DeviceArray first, second;
    if (!copyToDevice(engine, uniform.data(), kCount * sizeof(std::uint32_t), first)
        || !copyToDevice(engine, hot.data(), kCount * sizeof(std::uint32_t), second)) {
        ++tally.failed;
        std::cout << "FAIL auto-follows-its-input: upload\n";
        return;
    }
    ChannelBinning binning;
    binning.bins = kBins;
    binning.lo = 0;
    binning.hi = kBins;
    binning.identity = true;
    HistogramRequest request = makeRequest(keysView(first.data(), kCount, SampleType::U32, MemorySpace::Device), binning);
    HistogramResult result;
    for (int i = 0; i < 3; ++i)
        engine.compute(request, result);
    HistogramResult expected;
    HistogramRequest onHost = makeRequest(keysView(hot.data(), kCount, SampleType::U32), binning, Strategy::Cpu);
    if (Status s = referenceHistogram(onHost, expected); !s) {
        ++tally.failed;
        std::cout << "FAIL auto-follows-its-input: reference: " << s.message << "\n";
        return;
    }
    request.image = keysView(second.data(), kCount, SampleType::U32, MemorySpace::Device);
    result = testing::poisonedResult();
    const Status s = engine.compute(request, result);
    std::string problem = s ? testing::describeDifference(expected, result) : "error: " + s.message;
    if (s && (result.strategyRan != Strategy::LargeBins || result.strategyReason.find("hot cache") == std::string::npos))
        problem += "ran " + std::string(strategyName(result.strategyRan)) + " (" + result.strategyReason
                 + "), not large-bins' hot cache";
    if (problem.empty()) {
        ++tally.passed;
    } else {
        ++tally.failed;
        std::cout << "FAIL auto-follows-its-input: " << problem << "\n";
    }
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

constexpr unsigned char kPoison = 0xa5;

std::uint32_t sampleAt(const unsigned char* row, SampleType type, std::size_t i)
{
    if (type == SampleType::U8)
        return row[i];
    std::uint16_t v = 0;
    std::memcpy(&v, row + 2 * i, sizeof v);
    return v;
}

// The LUTs applied by hand: where `out` differs from what applyLuts must write, in words (empty
// when it does not). Other channels keep their samples; the padding between rows keeps the poison.
std::string lutOutputProblem(const ImageView& in, const std::vector<std::vector<std::uint32_t>>& luts,
                             const std::array<bool, kMaxChannels>& mask, const std::vector<unsigned char>& out,
                             std::size_t outStride)
{
    const std::size_t rowBytes = std::size_t(in.width) * std::size_t(in.channels) * sampleSize(in.type);
    const std::size_t inStride = in.strideBytes ? in.strideBytes : rowBytes;
    std::array<const std::vector<std::uint32_t>*, kMaxChannels> byChannel{};
    for (int c = 0, k = 0; c < in.channels; ++c)
        if (mask[std::size_t(c)])
            byChannel[std::size_t(c)] = &luts[std::size_t(k++)];
    for (std::int64_t y = 0; y < in.height; ++y) {
        const unsigned char* src = static_cast<const unsigned char*>(in.data) + std::size_t(y) * inStride;
        const unsigned char* dst = out.data() + std::size_t(y) * outStride;
        for (std::int64_t x = 0; x < in.width; ++x)
            for (int c = 0; c < in.channels; ++c) {
                const std::size_t i = std::size_t(x) * std::size_t(in.channels) + std::size_t(c);
                const std::uint32_t v = sampleAt(src, in.type, i);
                const std::uint32_t expected = byChannel[std::size_t(c)] ? (*byChannel[std::size_t(c)])[v] : v;
                if (sampleAt(dst, in.type, i) != expected)
                    return "pixel (" + std::to_string(x) + ", " + std::to_string(y) + ") channel " + std::to_string(c) + ": "
                         + std::to_string(sampleAt(dst, in.type, i)) + ", expected " + std::to_string(expected);
            }
        for (std::size_t b = rowBytes; b < outStride; ++b)
            if (dst[b] != kPoison)
                return "the padding of output row " + std::to_string(y) + " was written";
    }
    return {};
}

// One bin per value of the masked channels, counted by `engine`.
Status valueHistograms(HistogramEngine& engine, const ImageView& view, const std::array<bool, kMaxChannels>& mask,
                       HistogramResult& result)
{
    HistogramRequest request = makeRequest(view, defaultBinning(view.type));
    for (int c = 0; c < kMaxChannels; ++c)
        request.binning[c].active = mask[std::size_t(c)] && c < view.channels;
    return engine.compute(request, result);
}

// HistogramEngine::applyLuts on the engine's backend against the CPU backend, byte for byte, and
// the CPU backend against the LUTs applied by hand: u8 and u16, 1 to 4 channels, packed and padded
// rows in and out (odd paddings, and a packed input with a padded output, which unfolds the
// contiguous plan), a channel left out, random LUTs and matching LUTs, host and device input.
void checkApplyLuts(HistogramEngine& engine, std::uint64_t seed, bool hostOnly, Tally& tally)
{
    HistogramEngine cpu(EngineOptions{false});
    const char* layouts[] = {"packed", "in-padded", "out-padded", "both-padded"};
    for (SampleType type : {SampleType::U8, SampleType::U16})
        for (int channels = 1; channels <= kMaxChannels; ++channels)
            for (int layout = 0; layout < 4; ++layout) {
                const std::uint32_t levels = type == SampleType::U8 ? 256 : 65536;
                const std::size_t sample = sampleSize(type);
                testing::Case c;
                c.type = type;
                c.width = 333;
                c.height = 97;
                c.channels = channels;
                c.bins = levels;
                c.hi = levels;
                c.extraStrideSamples = layout & 1 ? 3 : 0;
                const bool matching = layout == 0 || layout == 3;
                // Odd layouts leave channel 1 out, where there is one: its samples are copied.
                std::array<bool, kMaxChannels> mask{true, !(layout & 1), true, true};
                const std::string label = "applyluts/" + std::string(sampleTypeName(type)) + "/c" + std::to_string(channels)
                                        + "/" + layouts[layout] + (matching ? "/matching" : "/random");
                std::mt19937_64 rng = testing::caseRng(seed, label);
                const testing::SyntheticImage frame = testing::makeSyntheticImage(c, rng);
                std::vector<std::vector<std::uint32_t>> luts;
                std::string problem;
                if (matching) {
                    testing::Case r = c;
                    r.width = 211;
                    r.height = 63;
                    r.extraStrideSamples = 0;
                    r.distribution = testing::Distribution::Zipf;
                    const testing::SyntheticImage reference = testing::makeSyntheticImage(r, rng);
                    HistogramResult mine, theirs;
                    const Status a = valueHistograms(cpu, frame.view, mask, mine);
                    const Status b = valueHistograms(cpu, reference.view, mask, theirs);
                    if (!a || !b)
                        problem = "histograms: " + (a ? b.message : a.message);
                    for (std::size_t i = 0; problem.empty() && i < mine.channels.size(); ++i)
                        luts.push_back(matchingLut(mine.channels[i].counts, theirs.channels[i].counts));
                } else {
                    for (int ch = 0; ch < channels; ++ch)
                        if (mask[std::size_t(ch)]) {
                            std::vector<std::uint32_t> lut(levels);
                            for (std::uint32_t& v : lut)
                                v = std::uint32_t(rng() % levels);
                            luts.push_back(std::move(lut));
                        }
                }
                const std::size_t packed = std::size_t(c.width) * std::size_t(channels) * sample;
                const std::size_t outStride = layout >= 2 ? packed + 5 * sample : packed;
                const std::size_t outBytes = outStride * std::size_t(c.height);
                std::vector<unsigned char> expected(outBytes, kPoison), actual(outBytes, kPoison);
                if (problem.empty()) {
                    const Status s = cpu.applyLuts(frame.view, luts, mask, expected.data(), layout >= 2 ? outStride : 0);
                    problem = s ? lutOutputProblem(frame.view, luts, mask, expected, outStride) : "cpu: " + s.message;
                    if (!problem.empty())
                        problem = "cpu backend: " + problem;
                }
                auto run = [&](const ImageView& view, const std::string& where) {
                    std::fill(actual.begin(), actual.end(), kPoison);
                    PhaseTimings timings;
                    const Status s = engine.applyLuts(view, luts, mask, actual.data(), layout >= 2 ? outStride : 0, &timings);
                    std::string failure = problem;
                    if (failure.empty() && !s)
                        failure = s.message;
                    else if (failure.empty() && actual != expected)
                        failure = "output differs from the CPU backend's: " + lutOutputProblem(frame.view, luts, mask, actual, outStride);
                    else if (failure.empty() && !(timings.totalMs() >= 0))
                        failure = "no timings";
                    if (failure.empty()) {
                        ++tally.passed;
                    } else {
                        ++tally.failed;
                        std::cout << "FAIL " << label << "/" << where << ": " << failure << "\n";
                    }
                };
                run(frame.view, "host");
                DeviceArray onDevice;
                if (engine.hasGpu() && !hostOnly) {
                    if (Status s = copyToDevice(engine, frame.bytes.data(), frame.bytes.size(), onDevice); !s) {
                        ++tally.failed;
                        std::cout << "FAIL " << label << "/device: upload: " << s.message << "\n";
                        continue;
                    }
                    ImageView view = frame.view;
                    view.data = onDevice.data();
                    view.space = MemorySpace::Device;
                    run(view, "device");
                }
            }
}

// Bad arguments to applyLuts are refused with InvalidArgument, by every backend alike.
void checkApplyLutsErrors(HistogramEngine& engine, Tally& tally)
{
    std::vector<std::uint8_t> pixels(16 * 8 * 3, 7);
    std::vector<unsigned char> out(pixels.size() + 64, kPoison);
    ImageView view;
    view.data = pixels.data();
    view.width = 16;
    view.height = 8;
    view.channels = 3;
    const std::array<bool, kMaxChannels> all{true, true, true, true};
    const std::vector<std::uint32_t> identity = [] {
        std::vector<std::uint32_t> lut(256);
        for (std::uint32_t v = 0; v < 256; ++v)
            lut[v] = v;
        return lut;
    }();
    std::vector<std::uint32_t> beyond = identity;
    beyond[17] = 256;
    auto expectRefused = [&](const std::string& what, const ImageView& v, const std::vector<std::vector<std::uint32_t>>& luts,
                             const std::array<bool, kMaxChannels>& mask, void* output, std::size_t stride) {
        const Status s = engine.applyLuts(v, luts, mask, output, stride);
        if (s.code == ErrorCode::InvalidArgument && !s.message.empty()) {
            ++tally.passed;
        } else {
            ++tally.failed;
            std::cout << "FAIL applyluts/errors/" << what << ": " << (s ? std::string("accepted") : s.message) << "\n";
        }
    };
    const std::vector<std::vector<std::uint32_t>> three(3, identity);
    expectRefused("two-luts-for-three-channels", view, {identity, identity}, all, out.data(), 0);
    expectRefused("255-entries", view, {identity, identity, std::vector<std::uint32_t>(255)}, all, out.data(), 0);
    expectRefused("u16-sized-lut-on-u8", view, {identity, std::vector<std::uint32_t>(65536), identity}, all, out.data(), 0);
    expectRefused("entry-beyond-255", view, {identity, beyond, identity}, all, out.data(), 0);
    expectRefused("null-output", view, three, all, nullptr, 0);
    expectRefused("short-output-stride", view, three, all, out.data(), 16 * 3 - 1);
    expectRefused("no-channel-selected", view, {}, {false, false, false, false}, out.data(), 0);
    ImageView region = view;
    region.roi = Rect{1, 1, 4, 4};
    expectRefused("region", region, three, all, out.data(), 0);
    ImageView floats = view;
    floats.type = SampleType::F32;
    floats.width = 4;
    expectRefused("f32-samples", floats, three, all, out.data(), 0);
    if (std::any_of(out.begin(), out.end(), [](unsigned char b) { return b != kPoison; })) {
        ++tally.failed;
        std::cout << "FAIL applyluts/errors: a refused call wrote its output\n";
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
            if (engine.hasGpu() && s == Strategy::Auto)
                checkDeviceCounts(engine, request, expected, c.name + "/host-device-counts/auto", tally);
            if (device && s != Strategy::Cpu) {
                request.image.data = onDevice.data();
                request.image.space = MemorySpace::Device;
                check(engine, request, expected, c.name + "/device/" + std::string(strategyName(s)), tally);
                checkDeviceCounts(engine, request, expected, c.name + "/device-counts/" + std::string(strategyName(s)), tally);
            }
        }
    }
    if (engine.hasGpu() && !options.hostOnly && matchesFilter("auto-follows-its-input", options.filter))
        checkAutoFollowsItsInput(engine, seed, tally);
    if (matchesFilter("equalize", options.filter))
        checkEqualize(engine, seed, tally);
    if (matchesFilter("applyluts", options.filter)) {
        checkApplyLuts(engine, seed, options.hostOnly, tally);
        checkApplyLutsErrors(engine, tally);
    }
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
