// `histoscope-bench fault`: a real GPU fault (the test hook's out-of-bounds kernel), then the
// proof that the engines survive it. Every engine of the faulted context answers DeviceLost
// (never a wrong count, never a crash), engines built before the fault and destroyed after the
// reset release nothing twice, and the first engine built after it resets the device once and
// counts every strategy exactly again, 1-D and 2-D, from host and device memory. On a machine
// without a GPU it proves the same of the CPU engines (the hook then answers DeviceLost).
// Never run it under compute-sanitizer: the fault is on purpose.
#include "bench/BenchCommand.h"

#include "gpu/testing/Histogram2DCases.h"
#include "gpu/testing/TestCases.h"

#include "histoscope/EngineDiagnostics.h"
#include "histoscope/Histogram2D.h"
#include "histoscope/HistogramEngine.h"
#include "histoscope/ReferenceHistogram.h"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace hs::bench {

namespace {

struct FaultTally {
    int passed = 0;
    int failed = 0;
    void expect(bool ok, const std::string& what, const std::string& detail = {})
    {
        ok ? ++passed : ++failed;
        std::printf("%s %s%s%s\n", ok ? "ok  " : "FAIL", what.c_str(), detail.empty() ? "" : ": ", detail.c_str());
    }
};

std::vector<Strategy> strategiesOf(const HistogramEngine& engine)
{
    std::vector<Strategy> s{Strategy::Cpu, Strategy::Auto};
    if (engine.hasGpu())
        s.insert(s.end(), gpuStrategies().begin(), gpuStrategies().end());
    return s;
}

// Every strategy of `engine` on a few fresh cases, host and device memory, against the reference.
void checkExact(HistogramEngine& engine, std::uint64_t seed, const std::string& label, FaultTally& tally)
{
    int ok = 0, bad = 0;
    std::string first;
    for (const testing::Case& c : testing::exactnessMatrix()) {
        if (c.name.find("dist-") != 0 && c.name.find("bins-65536") != 0 && c.name.find("channels-3") != 0)
            continue;
        std::mt19937_64 rng = testing::caseRng(seed, label + c.name);
        const testing::SyntheticImage frame = testing::makeSyntheticImage(c, rng);
        HistogramRequest request = testing::makeCaseRequest(c, frame, Strategy::Cpu);
        HistogramResult expected;
        if (!referenceHistogram(request, expected))
            continue;
        DeviceArray onDevice;
        const bool device = engine.hasGpu() && copyToDevice(engine, frame.bytes.data(), frame.bytes.size(), onDevice);
        for (Strategy s : strategiesOf(engine)) {
            if (!strategyAccepts(s, c.type, c.bins))
                continue;
            for (bool onGpu : {false, true}) {
                if (onGpu && (!device || s == Strategy::Cpu))
                    continue;
                request.strategy = s;
                request.image = frame.view;
                if (onGpu) {
                    request.image.data = onDevice.data();
                    request.image.space = MemorySpace::Device;
                }
                HistogramResult result = testing::poisonedResult();
                const Status st = engine.compute(request, result);
                const std::string diff = st ? testing::describeDifference(expected, result) : st.message;
                if (diff.empty()) {
                    ++ok;
                } else {
                    ++bad;
                    if (first.empty())
                        first = c.name + "/" + std::string(strategyName(s)) + ": " + diff;
                }
            }
        }
    }
    tally.expect(bad == 0 && ok > 0, label + ": " + std::to_string(ok) + " counts exact, " + std::to_string(bad) + " wrong", first);
}

void check2DExact(Histogram2DEngine& engine, std::uint64_t seed, const std::string& label, FaultTally& tally)
{
    int ok = 0, bad = 0;
    std::string first;
    for (const testing::Case2D& c : testing::histogram2DMatrix()) {
        if (c.width * c.height > 100000)
            continue;
        std::mt19937_64 rng = testing::caseRng(seed, label + c.name);
        const testing::Image2D image = testing::makeImage2D(c, rng);
        Histogram2DResult expected;
        if (!referenceHistogram2D(testing::makeRequest2D(c, image.view, Strategy::Cpu), expected))
            continue;
        const std::vector<Strategy> strategies = engine.hasGpu()
            ? std::vector<Strategy>{Strategy::Auto, Strategy::GlobalAtomic, Strategy::Shared}
            : std::vector<Strategy>{Strategy::Auto, Strategy::Cpu};
        for (Strategy s : strategies) {
            Histogram2DResult result = testing::poisoned2D();
            const Status st = engine.compute(testing::makeRequest2D(c, image.view, s), result);
            const std::string diff = st ? testing::describeDifference2D(expected, result) : st.message;
            diff.empty() ? ++ok : ++bad;
            if (!diff.empty() && first.empty())
                first = c.name + "/" + std::string(strategyName(s)) + ": " + diff;
        }
    }
    tally.expect(bad == 0 && ok > 0, label + ": " + std::to_string(ok) + " 2-D counts exact, " + std::to_string(bad) + " wrong", first);
}

// One small count, to see what an engine answers now.
Status probe(HistogramEngine& engine)
{
    std::vector<unsigned char> bytes(4096);
    for (std::size_t i = 0; i < bytes.size(); ++i)
        bytes[i] = static_cast<unsigned char>(i * 37 + 11);
    HistogramResult result;
    return engine.compute(makeRequest(keysView(bytes.data(), bytes.size(), SampleType::U8), defaultBinning(SampleType::U8)), result);
}

Status probe2D(Histogram2DEngine& engine)
{
    const testing::Case2D c = testing::histogram2DMatrix().front();
    std::mt19937_64 rng(7);
    const testing::Image2D image = testing::makeImage2D(c, rng);
    Histogram2DResult result;
    return engine.compute(testing::makeRequest2D(c, image.view, Strategy::Auto), result);
}

std::string describe(const HistogramEngine& e)
{
    return e.hasGpu() ? "GPU " + e.deviceInfo()->name : "CPU (" + e.notice() + ")";
}

}  // namespace

int runFaultCheck()
{
    const std::uint64_t seed = testing::runSeed();
    std::printf("fault check: seed %llu (HISTOSCOPE_SEED replays it)\n", (unsigned long long)seed);
    FaultTally tally;
    for (int round = 1; round <= 2; ++round) {
        const std::string r = "round " + std::to_string(round) + ": ";
        auto faulting = std::make_unique<HistogramEngine>();
        auto bystander = std::make_unique<HistogramEngine>();   // another holder's engine, same context
        auto scopes = std::make_unique<Histogram2DEngine>();
        auto stale = std::make_unique<HistogramEngine>();       // kept alive across the reset
        const bool gpu = faulting->hasGpu();
        std::printf("%sengines on %s\n", r.c_str(), describe(*faulting).c_str());
        checkExact(*faulting, seed, r + "before the fault", tally);
        tally.expect(bool(probe(*bystander)) && bool(probe2D(*scopes)) && bool(probe(*stale)), r + "every engine counts before the fault");

        injectDeviceLost({1});   // the next working call faults
        const Status fault = probe(*faulting);
        tally.expect(fault.code == ErrorCode::DeviceLost, r + "the injected fault answers DeviceLost", fault.message);
        const Status again = probe(*faulting);
        tally.expect(again.code == ErrorCode::DeviceLost, r + "the faulted engine stays lost", again.message);
        if (gpu) {
            const Status other = probe(*bystander);
            tally.expect(other.code == ErrorCode::DeviceLost, r + "an engine of the same context answers DeviceLost", other.message);
            const Status other2D = probe2D(*scopes);
            tally.expect(other2D.code == ErrorCode::DeviceLost, r + "a 2-D engine of the same context answers DeviceLost",
                         other2D.message);
        }
        faulting.reset();
        bystander.reset();
        scopes.reset();

        auto rebuilt = std::make_unique<HistogramEngine>();
        std::printf("%srebuilt engine on %s\n", r.c_str(), describe(*rebuilt).c_str());
        // CUDA may refuse the device for the rest of the process after a sticky fault: then the
        // rebuilt engine is on the CPU and says why. Either way it must count exactly.
        tally.expect(rebuilt->hasGpu() || !gpu || rebuilt->notice().find("fault") != std::string::npos,
                     r + "the rebuilt engine is on the " + (rebuilt->hasGpu() ? "GPU" : "CPU, with a notice that names the fault"),
                     rebuilt->notice());
        checkExact(*rebuilt, seed, r + "after the rebuild", tally);
        if (gpu) {
            const Status old = probe(*stale);
            tally.expect(old.code == ErrorCode::DeviceLost, r + "an engine of the reset context answers DeviceLost", old.message);
        }
        stale.reset();   // releases nothing of the old context
        Histogram2DEngine scopesAfter;
        tally.expect(scopesAfter.hasGpu() || !gpu || scopesAfter.notice().find("fault") != std::string::npos,
                     r + "the rebuilt 2-D engine is on the " + (scopesAfter.hasGpu() ? "GPU" : "CPU, with a notice that names the fault"),
                     scopesAfter.notice());
        check2DExact(scopesAfter, seed, r + "2-D after the rebuild", tally);
        checkExact(*rebuilt, seed, r + "the rebuilt engine still exact after the 2-D engine's start", tally);
    }
    injectDeviceLost({});
    std::printf("fault check: %d passed, %d failed\n", tally.passed, tally.failed);
    return tally.failed ? 1 : 0;
}

}  // namespace hs::bench
