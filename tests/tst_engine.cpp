// The engine facade: input validation with clear messages, backend selection, strategy names,
// the asynchronous submit/finish pair used from worker threads, the one-engine-per-thread
// contract, and the record of which strategy ran and why.
#include "gpu/testing/TestCases.h"

#include "histoscope/EngineDiagnostics.h"
#include "histoscope/Histogram2D.h"
#include "histoscope/HistogramEngine.h"
#include "histoscope/ReferenceHistogram.h"

#include <QTest>

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>

using namespace hs;

class TestEngine : public QObject {
    Q_OBJECT

private slots:
    void strategyNamesRoundTrip_data();
    void strategyNamesRoundTrip();
    void rejectsBadInput_data();
    void rejectsBadInput();
    void noDeviceMeansCpuWithNotice();
    void gpuStrategyWithoutDeviceIsAnError();
    void deviceCountsAreRefusedWhereTheyCannotBeWritten_data();
    void deviceCountsAreRefusedWhereTheyCannotBeWritten();
    void submitFinishFromWorkerThread();
    void anotherThreadIsRefused();
    void lostDeviceStaysLost_data();
    void lostDeviceStaysLost();
    void readProbeWaitsForFinish();
    void strategyRecordsWhatRanAndWhy();
    void autoSteersEachDeviceInputByItsOwnSample_data();
    void autoSteersEachDeviceInputByItsOwnSample();
    void integerRangeBinning_data();
    void integerRangeBinning();
    void floatEdgesAndSpecials();
    void countsNamedAtFinishNeedTheirOwnFinish();
    void callMomentsFollowTheCall_data();
    void callMomentsFollowTheCall();
};

void TestEngine::strategyNamesRoundTrip_data()
{
    QTest::addColumn<int>("strategy");
    for (Strategy s : allStrategies())
        QTest::newRow(strategyName(s).data()) << int(s);
}

void TestEngine::strategyNamesRoundTrip()
{
    QFETCH(int, strategy);
    const auto name = strategyName(Strategy(strategy));
    QVERIFY(!name.empty());
    QCOMPARE(int(strategyFromName(name).value()), strategy);
}

void TestEngine::rejectsBadInput_data()
{
    QTest::addColumn<int>("channels");
    QTest::addColumn<qint64>("width");
    QTest::addColumn<qint64>("height");
    QTest::addColumn<int>("stride");
    QTest::addColumn<uint>("bins");
    QTest::addColumn<double>("lo");
    QTest::addColumn<double>("hi");
    QTest::addColumn<int>("roiX");
    QTest::addColumn<int>("type");
    QTest::addColumn<QString>("expected");
    QTest::newRow("five channels") << 5 << qint64(4) << qint64(4) << 0 << 256u << 0.0 << 256.0 << 0 << int(SampleType::U8) << "channel count 5";
    QTest::newRow("negative width") << 1 << qint64(-4) << qint64(4) << 0 << 256u << 0.0 << 256.0 << 0 << int(SampleType::U8) << "negative";
    QTest::newRow("short stride") << 3 << qint64(10) << qint64(4) << 20 << 256u << 0.0 << 256.0 << 0 << int(SampleType::U8) << "shorter than a row";
    QTest::newRow("stride not multiple of sample") << 1 << qint64(10) << qint64(4) << 21 << 256u << 0.0 << 256.0 << 0 << int(SampleType::U16) << "multiple of the sample size";
    QTest::newRow("zero bins") << 1 << qint64(4) << qint64(4) << 0 << 0u << 0.0 << 256.0 << 0 << int(SampleType::U8) << "bin count 0";
    QTest::newRow("too many bins") << 1 << qint64(4) << qint64(4) << 0 << (kMaxBins + 1) << 0.0 << 256.0 << 0 << int(SampleType::U8) << "outside 1..";
    QTest::newRow("empty float range") << 1 << qint64(4) << qint64(4) << 0 << 16u << 1.0 << 1.0 << 0 << int(SampleType::F32) << "empty or not finite";
    QTest::newRow("nan range") << 1 << qint64(4) << qint64(4) << 0 << 16u << std::nan("") << 1.0 << 0 << int(SampleType::F32) << "empty or not finite";
    QTest::newRow("float range of denormals") << 1 << qint64(4) << qint64(4) << 0 << 1024u << 0.0 << 1e-44 << 0 << int(SampleType::F32) << "too narrow for 1024 bins";
    QTest::newRow("float range wider than float") << 1 << qint64(4) << qint64(4) << 0 << 16u << -3e38 << 3e38 << 0 << int(SampleType::F32) << "too narrow or too wide";
    QTest::newRow("roi outside") << 1 << qint64(4) << qint64(4) << 0 << 256u << 0.0 << 256.0 << 3 << int(SampleType::U8) << "outside the 4x4 image";
}

void TestEngine::rejectsBadInput()
{
    QFETCH(int, channels);
    QFETCH(qint64, width);
    QFETCH(qint64, height);
    QFETCH(int, stride);
    QFETCH(uint, bins);
    QFETCH(double, lo);
    QFETCH(double, hi);
    QFETCH(int, roiX);
    QFETCH(int, type);
    QFETCH(QString, expected);
    std::vector<std::uint32_t> data(1024, 7);
    ImageView view;
    view.data = data.data();
    view.type = SampleType(type);
    view.width = width;
    view.height = height;
    view.channels = channels;
    view.strideBytes = std::size_t(stride);
    if (roiX)
        view.roi = Rect{roiX, 0, 2, 2};
    ChannelBinning b;
    b.bins = bins;
    b.lo = lo;
    b.hi = hi;
    HistogramEngine engine(EngineOptions{false});
    HistogramResult result = testing::poisonedResult();
    const Status s = engine.compute(makeRequest(view, b), result);
    QCOMPARE(int(s.code), int(ErrorCode::InvalidArgument));
    QVERIFY2(QString::fromStdString(s.message).contains(expected), s.message.c_str());
}

void TestEngine::noDeviceMeansCpuWithNotice()
{
    HistogramEngine engine;
    if (HistogramEngine::cudaDeviceCount() > 0)
        QSKIP("a CUDA device is present");
    QCOMPARE(int(engine.backend()), int(BackendKind::Cpu));
    QVERIFY(QString::fromStdString(engine.notice()).contains("CPU"));
    HistogramEngine disabled(EngineOptions{false});
    QCOMPARE(int(disabled.backend()), int(BackendKind::Cpu));
    QVERIFY(!disabled.notice().empty());
}

void TestEngine::gpuStrategyWithoutDeviceIsAnError()
{
    HistogramEngine engine(EngineOptions{false});
    std::vector<std::uint8_t> data(64, 9);
    HistogramResult result;
    const Status s = engine.compute(makeRequest(keysView(data.data(), data.size(), SampleType::U8),
                                                defaultBinning(SampleType::U8), Strategy::Shared), result);
    QCOMPARE(int(s.code), int(ErrorCode::NoDevice));
    QVERIFY(QString::fromStdString(s.message).contains("shared"));
}

void TestEngine::deviceCountsAreRefusedWhereTheyCannotBeWritten_data()
{
    QTest::addColumn<int>("strategy");
    QTest::addColumn<bool>("accumulate");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("words");
    QTest::newRow("cpu engine, auto") << int(Strategy::Auto) << false << int(ErrorCode::NoDevice) << "GPU engine";
    QTest::newRow("cpu engine, cpu") << int(Strategy::Cpu) << false << int(ErrorCode::NoDevice) << "GPU engine";
    QTest::newRow("accumulate") << int(Strategy::Auto) << true << int(ErrorCode::InvalidArgument) << "accumulate";
}

void TestEngine::deviceCountsAreRefusedWhereTheyCannotBeWritten()
{
    QFETCH(int, strategy);
    QFETCH(bool, accumulate);
    QFETCH(int, code);
    QFETCH(QString, words);
    HistogramEngine engine(EngineOptions{false});
    std::vector<std::uint8_t> data(1000);
    std::mt19937_64 rng(testing::runSeed());
    for (std::uint8_t& v : data)
        v = std::uint8_t(rng());
    std::vector<std::uint64_t> where(256, 0xA5A5A5A5A5A5A5A5ull);
    HistogramRequest request = makeRequest(keysView(data.data(), data.size(), SampleType::U8), defaultBinning(SampleType::U8),
                                           Strategy(strategy));
    request.deviceCounts = where.data();
    HistogramResult result = testing::poisonedResult();
    const HistogramResult before = result;
    const Status s = accumulate ? engine.accumulate(request, result) : engine.compute(request, result);
    QCOMPARE(int(s.code), code);
    QVERIFY2(QString::fromStdString(s.message).contains(words), s.message.c_str());
    QVERIFY(result == before);  // nothing delivered
    QVERIFY(std::all_of(where.begin(), where.end(), [](std::uint64_t w) { return w == 0xA5A5A5A5A5A5A5A5ull; }));
    // Misaligned memory is refused by every engine, before anything is counted.
    request.deviceCounts = reinterpret_cast<unsigned char*>(where.data()) + 4;
    request.strategy = Strategy::Auto;
    QCOMPARE(int(engine.compute(request, result).code), int(ErrorCode::InvalidArgument));
}

void TestEngine::submitFinishFromWorkerThread()
{
    const std::uint64_t seed = testing::runSeed();
    qInfo("seed %llu", static_cast<unsigned long long>(seed));
    std::mt19937_64 rng = testing::caseRng(seed, "submitFinishFromWorkerThread");
    std::vector<std::uint16_t> keys(200000);
    testing::fillSamples(keys.data(), keys.size(), SampleType::U16, testing::Distribution::Zipf, 1000, 0, 1000, rng);
    ChannelBinning b;
    b.bins = 1000;
    b.hi = 1000;
    b.identity = true;
    const HistogramRequest request = makeRequest(keysView(keys.data(), keys.size(), SampleType::U16), b);
    HistogramResult expected;
    QVERIFY(referenceHistogram(request, expected).ok());
    HistogramEngine engine;
    // A thread of its own: a QFuture's result() may run the task on the waiting thread itself.
    HistogramResult result = testing::poisonedResult();
    std::thread worker([&] {
        if (engine.submit(request).ok())
            engine.finish(result);
    });
    worker.join();
    QVERIFY2(result == expected, testing::describeDifference(expected, result).c_str());
    // The worker thread owns the engine now: this thread is refused, pending work or not.
    QCOMPARE(int(engine.finish(result).code), int(ErrorCode::WrongThread));
}

void TestEngine::anotherThreadIsRefused()
{
    std::vector<std::uint8_t> data(4096, 17);
    const HistogramRequest request =
        makeRequest(keysView(data.data(), data.size(), SampleType::U8), defaultBinning(SampleType::U8));
    HistogramEngine engine;
    HistogramResult mine;
    QVERIFY(engine.compute(request, mine).ok());  // binds the engine to this thread
    // QTest's checks belong on the test thread: the other thread only records what it got.
    struct Seen {
        Status computed, submitted, accumulated, copied;
        Strategy chosen = Strategy::Cpu;
        std::uint64_t samplesAfter = 0;
        bool hasGpu = false;
        std::string notice;
    };
    // A thread of its own: a QFuture's result() may run the task on the waiting thread itself.
    Seen seen;
    std::thread other([&] {
        Seen& s = seen;
        HistogramResult theirs = testing::poisonedResult();
        s.computed = engine.compute(request, theirs);
        s.submitted = engine.submit(request);
        s.accumulated = engine.accumulate(request, theirs);
        s.chosen = engine.chooseStrategy(request);
        DeviceArray array;
        s.copied = copyToDevice(engine, data.data(), data.size(), array);
        s.samplesAfter = theirs.samples;
        s.hasGpu = engine.hasGpu();     // read-only members answer from any thread
        s.notice = engine.notice();
    });
    other.join();
    for (const Status* s : {&seen.computed, &seen.submitted, &seen.accumulated, &seen.copied})
        QCOMPARE(int(s->code), int(ErrorCode::WrongThread));
    QVERIFY(QString::fromStdString(seen.computed.message).contains("another thread"));
    QCOMPARE(int(seen.chosen), int(Strategy::Auto));
    QCOMPARE(seen.samplesAfter, testing::poisonedResult().samples);  // the result was left alone
    QCOMPARE(seen.hasGpu, engine.hasGpu());   // the same answers as on the owner's thread
    QCOMPARE(seen.notice, engine.notice());
    QCOMPARE(engine.hasGpu(), HistogramEngine::cudaDeviceCount() > 0);
    QVERIFY(engine.hasGpu() || engine.notice().find("CPU") != std::string::npos);
    QVERIFY(engine.compute(request, mine).ok());  // still this thread's engine
    QCOMPARE(mine.channels.at(0).counts[17], std::uint64_t(data.size()));
}

void TestEngine::readProbeWaitsForFinish()
{
    std::vector<std::uint8_t> data(4096, 3);
    HistogramEngine engine;
    QVERIFY(engine.submit(makeRequest(keysView(data.data(), data.size(), SampleType::U8), defaultBinning(SampleType::U8))).ok());
    double ms = 0;
    const Status refused = readProbe(engine, data.data(), data.size(), ms);
    QCOMPARE(int(refused.code), int(ErrorCode::InvalidArgument));
    QVERIFY(QString::fromStdString(refused.message).contains("finish()"));
    HistogramResult result;
    QVERIFY(engine.finish(result).ok());
    QCOMPARE(result.channels.at(0).counts[3], std::uint64_t(data.size()));
}

void TestEngine::strategyRecordsWhatRanAndWhy()
{
    std::vector<std::uint16_t> keys(100000);
    for (std::size_t i = 0; i < keys.size(); ++i)
        keys[i] = std::uint16_t(i * 7919u);
    HistogramEngine engine;
    for (std::uint32_t bins : {256u, 32768u, 65536u}) {
        ChannelBinning b;
        b.bins = bins;
        b.hi = 65536;
        const HistogramRequest request = makeRequest(keysView(keys.data(), keys.size(), SampleType::U16), b);
        StrategyChoice choice;
        QVERIFY(engine.chooseStrategy(request, choice).ok());
        HistogramResult result;
        QVERIFY(engine.compute(request, result).ok());
        QCOMPARE(int(result.strategyRan), int(choice.strategy));
        QCOMPARE(result.strategyReason, choice.reason);
        QVERIFY2(result.strategyReason.rfind("auto: ", 0) == 0, result.strategyReason.c_str());
        QVERIFY2(result.strategyReason.find(strategyName(result.strategyRan)) != std::string::npos,
                 result.strategyReason.c_str());
    }
    HistogramResult named;
    if (engine.hasGpu()) {  // a GPU count words its reason after its launch: the same words
        QVERIFY(engine.compute(makeRequest(keysView(keys.data(), keys.size(), SampleType::U16),
                                           defaultBinning(SampleType::U16), Strategy::Shared),
                               named).ok());
        QCOMPARE(named.strategyReason, std::string("requested: shared"));
    }
    QVERIFY(engine.compute(makeRequest(keysView(keys.data(), keys.size(), SampleType::U16), defaultBinning(SampleType::U16),
                                       Strategy::Cpu),
                           named).ok());
    QCOMPARE(int(named.strategyRan), int(Strategy::Cpu));
    QCOMPARE(named.strategyReason, std::string("requested: cpu"));
}

void TestEngine::autoSteersEachDeviceInputByItsOwnSample_data()
{
    QTest::addColumn<bool>("earlierHot");
    QTest::addColumn<int>("expected");
    QTest::newRow("hot keys after uniform ones") << false << int(Strategy::LargeBins);
    QTest::newRow("uniform keys after hot ones") << true << int(Strategy::Partition);
}

// Two device buffers of one shape (4 M keys into 1 M bins): the second's first `auto` call is
// steered by a sample of its own, not by the estimate the first buffer's calls left behind.
void TestEngine::autoSteersEachDeviceInputByItsOwnSample()
{
    QFETCH(bool, earlierHot);
    QFETCH(int, expected);
    HistogramEngine engine;
    if (!engine.hasGpu())
        QSKIP("no CUDA device");
    constexpr std::uint32_t kBins = 1000000;
    std::mt19937_64 rng = testing::caseRng(testing::runSeed(), QTest::currentDataTag());
    const std::uint32_t hotKey = std::uint32_t(rng() % kBins);
    auto keysOf = [&](bool hot) {
        std::vector<std::uint32_t> keys(std::size_t(1) << 22);
        for (std::uint32_t& k : keys)
            k = hot && rng() % 10 ? hotKey : std::uint32_t(rng() % kBins);
        return keys;
    };
    const std::vector<std::uint32_t> earlier = keysOf(earlierHot), later = keysOf(!earlierHot);
    DeviceArray earlierOnDevice, laterOnDevice;
    QVERIFY(copyToDevice(engine, earlier.data(), earlier.size() * sizeof(std::uint32_t), earlierOnDevice).ok());
    QVERIFY(copyToDevice(engine, later.data(), later.size() * sizeof(std::uint32_t), laterOnDevice).ok());
    ChannelBinning binning;
    binning.bins = kBins;
    binning.hi = kBins;
    binning.identity = true;
    HistogramResult result;
    for (int call = 0; call < 3; ++call)
        QVERIFY(engine.compute(makeRequest(keysView(earlierOnDevice.data(), earlier.size(), SampleType::U32,
                                                    MemorySpace::Device), binning),
                               result).ok());
    HistogramResult reference;
    QVERIFY(referenceHistogram(makeRequest(keysView(later.data(), later.size(), SampleType::U32), binning, Strategy::Cpu),
                               reference).ok());
    result = testing::poisonedResult();
    QVERIFY(engine.compute(makeRequest(keysView(laterOnDevice.data(), later.size(), SampleType::U32, MemorySpace::Device),
                                       binning),
                           result).ok());
    QVERIFY2(int(result.strategyRan) == expected, result.strategyReason.c_str());
    QVERIFY2(result == reference, testing::describeDifference(reference, result).c_str());
}

void TestEngine::integerRangeBinning_data()
{
    QTest::addColumn<double>("lo");
    QTest::addColumn<double>("hi");
    QTest::addColumn<uint>("bins");
    QTest::newRow("shift") << 0.0 << 256.0 << 16u;
    QTest::newRow("divide") << 0.0 << 300.0 << 100u;
    QTest::newRow("general") << 3.0 << 250.0 << 7u;
    QTest::newRow("more bins than values") << 10.0 << 20.0 << 64u;
    QTest::newRow("fractional bounds round up") << 9.5 << 100.2 << 10u;
}

void TestEngine::integerRangeBinning()
{
    QFETCH(double, lo);
    QFETCH(double, hi);
    QFETCH(uint, bins);
    std::vector<std::uint8_t> values(256);
    for (int v = 0; v < 256; ++v)
        values[v] = std::uint8_t(v);
    ChannelBinning b;
    b.bins = bins;
    b.lo = lo;
    b.hi = hi;
    HistogramEngine engine(EngineOptions{false});
    HistogramResult result;
    QVERIFY(engine.compute(makeRequest(keysView(values.data(), values.size(), SampleType::U8), b), result).ok());
    const auto ilo = std::int64_t(std::ceil(lo)), ihi = std::int64_t(std::ceil(hi));
    std::vector<std::uint64_t> expected(bins, 0);
    std::uint64_t below = 0, above = 0;
    for (int v = 0; v < 256; ++v) {
        if (v < ilo) ++below;
        else if (v >= ihi) ++above;
        else ++expected[std::size_t((v - ilo) * std::int64_t(bins) / (ihi - ilo))];
    }
    QCOMPARE(result.channels[0].counts, expected);
    QCOMPARE(result.channels[0].below, below);
    QCOMPARE(result.channels[0].above, above);
}

void TestEngine::floatEdgesAndSpecials()
{
    const float values[] = {0.0f, 0.25f, 0.5f, std::nextafter(1.0f, 0.0f), 1.0f, -0.0f, -1e-9f,
                            std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity()};
    ChannelBinning b;
    b.bins = 4;
    b.lo = 0;
    b.hi = 1;
    HistogramEngine engine(EngineOptions{false});
    HistogramResult result;
    QVERIFY(engine.compute(makeRequest(keysView(values, std::size(values), SampleType::F32), b), result).ok());
    const ChannelHistogram& h = result.channels[0];
    QCOMPARE(h.counts, (std::vector<std::uint64_t>{2, 1, 1, 1}));  // 0 and -0 share bin 0
    QCOMPARE(h.below, std::uint64_t(2));                            // -1e-9 and -inf
    QCOMPARE(h.above, std::uint64_t(2));                            // 1.0 and +inf
    QCOMPARE(h.nan, std::uint64_t(1));
}

// deviceCountsAtFinish: refused by the CPU engine, by compute() and accumulate(), and beside
// deviceCounts; finishInto() ends no other submit, and leaves that one to finish().
void TestEngine::countsNamedAtFinishNeedTheirOwnFinish()
{
    HistogramEngine engine(EngineOptions{false});
    std::vector<std::uint8_t> data(4096);
    std::mt19937_64 rng(testing::runSeed());
    for (std::uint8_t& v : data)
        v = std::uint8_t(rng());
    std::vector<std::uint64_t> where(256, 0xA5A5A5A5A5A5A5A5ull);
    HistogramRequest request = makeRequest(keysView(data.data(), data.size(), SampleType::U8), defaultBinning(SampleType::U8));
    request.deviceCountsAtFinish = true;
    HistogramResult result = testing::poisonedResult();
    Status s = engine.compute(request, result);
    QCOMPARE(int(s.code), int(ErrorCode::InvalidArgument));
    QVERIFY2(QString::fromStdString(s.message).contains("finishInto"), s.message.c_str());
    s = engine.accumulate(request, result);
    QCOMPARE(int(s.code), int(ErrorCode::InvalidArgument));
    s = engine.submit(request);
    QCOMPARE(int(s.code), int(ErrorCode::NoDevice));
    request.deviceCounts = where.data();
    s = engine.submit(request);
    QCOMPARE(int(s.code), int(ErrorCode::InvalidArgument));
    QVERIFY2(QString::fromStdString(s.message).contains("both"), s.message.c_str());
    s = engine.finishInto(where.data(), result);
    QCOMPARE(int(s.code), int(ErrorCode::InvalidArgument));
    QVERIFY2(QString::fromStdString(s.message).contains("nothing was submitted"), s.message.c_str());
    QVERIFY(std::all_of(where.begin(), where.end(), [](std::uint64_t w) { return w == 0xA5A5A5A5A5A5A5A5ull; }));

    // A plain submit: finishInto() refuses it, finish() still delivers it.
    request.deviceCounts = nullptr;
    request.deviceCountsAtFinish = false;
    QVERIFY(engine.submit(request).ok());
    s = engine.finishInto(where.data(), result);
    QCOMPARE(int(s.code), int(ErrorCode::InvalidArgument));
    QVERIFY2(QString::fromStdString(s.message).contains("use finish()"), s.message.c_str());
    QVERIFY(engine.finish(result).ok());
    std::vector<std::uint64_t> expected(256, 0);
    for (std::uint8_t v : data)
        ++expected[v];
    QCOMPARE(result.channels.at(0).counts, expected);
}

void TestEngine::callMomentsFollowTheCall_data()
{
    QTest::addColumn<bool>("gpu");
    QTest::newRow("cpu backend") << false;
    QTest::newRow("gpu backend") << true;
}

// The host moments of PhaseTimings lie inside the call, in the order the call passes them, on
// the clock of steady_clock; the CPU backend has no GPU moments.
void TestEngine::callMomentsFollowTheCall()
{
    QFETCH(bool, gpu);
    HistogramEngine engine(EngineOptions{gpu});
    if (gpu && !engine.hasGpu())
        QSKIP("no CUDA device");
    std::mt19937 rng(std::random_device{}());
    std::vector<std::uint8_t> values(1 << 20);
    for (std::uint8_t& v : values)
        v = std::uint8_t(rng());
    auto now = [] {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count();
    };
    const HistogramRequest request = makeRequest(keysView(values.data(), values.size(), SampleType::U8),
                                                 defaultBinning(SampleType::U8));
    HistogramResult result;
    result.timings.gpuQueuedNs = result.timings.syncedNs = -1;  // poisoned: the call sets every moment
    const std::int64_t before = now();
    QVERIFY(engine.submit(request).ok());
    const std::int64_t between = now();
    QVERIFY(engine.finish(result).ok());
    const std::int64_t after = now();
    const PhaseTimings& t = result.timings;
    QVERIFY(before <= t.enteredNs);
    QVERIFY(t.enteredNs <= t.submittedNs);
    QVERIFY(t.submittedNs <= between);
    QVERIFY(between <= t.finishedNs);
    QVERIFY(t.finishedNs <= after);
    if (gpu) {
        QVERIFY(t.enteredNs <= t.gpuQueuedNs && t.gpuQueuedNs <= t.submittedNs);
        QVERIFY(between <= t.syncedNs && t.syncedNs <= t.finishedNs);
    } else {
        QCOMPARE(t.gpuQueuedNs, std::int64_t(0));
        QCOMPARE(t.syncedNs, std::int64_t(0));
    }
    std::uint64_t total = 0;
    for (std::uint64_t c : result.channels.at(0).counts)
        total += c;
    QCOMPARE(total, std::uint64_t(values.size()));
}

QTEST_GUILESS_MAIN(TestEngine)
void TestEngine::lostDeviceStaysLost_data()
{
    // A GPU row would cost this process its device for good (CUDA refuses a device after a
    // sticky fault): `histoscope-bench fault` proves the GPU path in a process of its own.
    QTest::addColumn<bool>("useGpu");
    QTest::newRow("CPU engine") << false;
}

// The test hook's fault: the call answers DeviceLost, every later call of that engine too
// (as after a sticky CUDA error), the result is left alone, and a new engine counts exactly.
void TestEngine::lostDeviceStaysLost()
{
    QFETCH(bool, useGpu);
    std::mt19937_64 rng = testing::caseRng(testing::runSeed(), "lost");
    std::vector<std::uint8_t> data(6000);
    for (std::uint8_t& v : data)
        v = std::uint8_t(rng());
    const HistogramRequest request = makeRequest(keysView(data.data(), data.size(), SampleType::U8), defaultBinning(SampleType::U8));
    HistogramResult expected;
    QVERIFY(referenceHistogram(request, expected).ok());
    HistogramEngine engine(EngineOptions{useGpu});
    Histogram2DEngine scopes(EngineOptions{useGpu});
    injectDeviceLost({1, 3});
    HistogramResult result = testing::poisonedResult();
    QCOMPARE(int(engine.compute(request, result).code), int(ErrorCode::DeviceLost));
    QCOMPARE(result.samples, testing::poisonedResult().samples);   // left alone
    QCOMPARE(int(engine.compute(request, result).code), int(ErrorCode::DeviceLost));   // not a counted call: lost
    QCOMPARE(int(engine.accumulate(request, result).code), int(ErrorCode::DeviceLost));
    std::vector<std::uint8_t> out(data.size());
    EqualizeResult eq;
    QCOMPARE(int(engine.equalize(keysView(data.data(), data.size(), SampleType::U8), out.data(), 0, eq).code),
             int(ErrorCode::DeviceLost));
    HistogramEngine rebuilt(EngineOptions{useGpu});
    result = testing::poisonedResult();
    QVERIFY(rebuilt.compute(request, result).ok());   // call 2
    QVERIFY2(result == expected, testing::describeDifference(expected, result).c_str());
    // The 2-D engine the same way (call 3).
    ImageView rgb = keysView(data.data(), data.size(), SampleType::U8);
    rgb.channels = 3;
    rgb.width = std::int64_t(data.size() / 3);
    const Histogram2DRequest parade = paradeRequest(rgb, {0, 1, 2});
    Histogram2DResult grid;
    QVERIFY(referenceHistogram2D(parade, grid).ok());   // a previous frame's grids, reused by compute()
    QCOMPARE(int(scopes.compute(parade, grid).code), int(ErrorCode::DeviceLost));
    QVERIFY(grid.histograms.empty());   // a failed compute leaves no partly counted grids
    QCOMPARE(grid.pixels, std::uint64_t(0));
    QCOMPARE(int(scopes.compute(parade, grid).code), int(ErrorCode::DeviceLost));
    injectDeviceLost({});
    Histogram2DEngine scopesAgain(EngineOptions{useGpu});
    Histogram2DResult expectedGrid;
    QVERIFY(referenceHistogram2D(parade, expectedGrid).ok());
    QVERIFY(scopesAgain.compute(parade, grid).ok());
    QCOMPARE(grid.histograms.size(), expectedGrid.histograms.size());
    for (std::size_t i = 0; i < grid.histograms.size(); ++i)
        QVERIFY(grid.histograms[i].grid == expectedGrid.histograms[i].grid);
}

#include "tst_engine.moc"
