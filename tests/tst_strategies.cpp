// Every strategy against the single-threaded reference, bit for bit, over the exactness matrix
// of issue #2. Inputs are fresh random images (the seed is printed, and HISTOSCOPE_SEED replays
// it, row by row); results are poisoned first. The float-binning oracle at the end tests the
// binning definition itself, with code that shares nothing with SlotMapping.h.
#include "gpu/testing/TestCases.h"

#include "histoscope/EngineDiagnostics.h"
#include "histoscope/HistogramEngine.h"
#include "histoscope/ReferenceHistogram.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

using namespace hs;

class TestStrategies : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void exactness_data();
    void exactness();
    void deviceInput_data();
    void deviceInput();
    void deviceCounts_data();
    void deviceCounts();
    void binBeyond32Bits();
    void accumulateAddsFrames();
    void strategiesRefuseWhatTheyCannotCount();
    void floatBinningOracle_data();
    void floatBinningOracle();
    void floatBinningSweep_data();
    void floatBinningSweep();

private:
    // A generator for the running test row alone, so a printed seed replays any single row.
    std::mt19937_64 rowRng() const;
    // The running row's case on the device: its reference, and the request pointed at a copy of
    // its pixels in `input`.
    void prepareDeviceRow(HistogramRequest& request, HistogramResult& expected, DeviceArray& input);
    std::vector<Strategy> strategiesHere(SampleType type, std::uint32_t bins) const;

    std::unique_ptr<HistogramEngine> m_engine;
    std::uint64_t m_seed = 0;
};

void TestStrategies::initTestCase()
{
    m_engine = std::make_unique<HistogramEngine>();
    m_seed = testing::runSeed();
    qInfo("seed %llu (HISTOSCOPE_SEED=%llu replays it), backend: %s", static_cast<unsigned long long>(m_seed),
          static_cast<unsigned long long>(m_seed),
          m_engine->hasGpu() ? m_engine->deviceInfo()->name.c_str() : m_engine->notice().c_str());
}

std::mt19937_64 TestStrategies::rowRng() const
{
    const char* tag = QTest::currentDataTag();
    return testing::caseRng(m_seed, std::string(QTest::currentTestFunction()) + "/" + (tag ? tag : ""));
}

std::vector<Strategy> TestStrategies::strategiesHere(SampleType type, std::uint32_t bins) const
{
    std::vector<Strategy> strategies{Strategy::Cpu, Strategy::Auto};
    if (m_engine->hasGpu())
        for (Strategy s : gpuStrategies())
            if (strategyAccepts(s, type, bins))
                strategies.push_back(s);
    return strategies;
}

static void addMatrixRows(bool gpuOnly)
{
    QTest::addColumn<int>("caseIndex");
    QTest::addColumn<int>("strategy");
    const auto cases = testing::exactnessMatrix();
    for (int i = 0; i < int(cases.size()); ++i)
        for (Strategy s : allStrategies()) {
            if ((gpuOnly && !isGpuStrategy(s)) || !strategyAccepts(s, cases[i].type, cases[i].bins))
                continue;
            const QByteArray name = QByteArray::fromStdString(cases[i].name + "/" + std::string(strategyName(s)));
            QTest::newRow(name.constData()) << i << int(s);
        }
}

static void compareWithReference(HistogramEngine& engine, HistogramRequest request, const HistogramResult& expected)
{
    HistogramResult result = testing::poisonedResult();
    const Status status = engine.compute(request, result);
    QVERIFY2(status.ok(), status.message.c_str());
    const std::string difference = testing::describeDifference(expected, result);
    QVERIFY2(difference.empty(), difference.c_str());
    QCOMPARE(result.samples, expected.samples);
    if (request.strategy != Strategy::Auto)
        QCOMPARE(int(result.strategyRan), int(request.strategy));
}

void TestStrategies::exactness_data() { addMatrixRows(false); }

void TestStrategies::exactness()
{
    QFETCH(int, caseIndex);
    QFETCH(int, strategy);
    if (isGpuStrategy(Strategy(strategy)) && !m_engine->hasGpu())
        QSKIP("no CUDA device");
    const testing::Case c = testing::exactnessMatrix()[caseIndex];
    std::mt19937_64 rng = rowRng();
    const testing::SyntheticImage frame = testing::makeSyntheticImage(c, rng);
    const HistogramRequest request = testing::makeCaseRequest(c, frame, Strategy(strategy));
    HistogramResult expected;
    QVERIFY(referenceHistogram(request, expected).ok());
    // The reference itself must see every sample of the region, counted once per active channel.
    std::uint64_t total = 0;
    for (const ChannelHistogram& h : expected.channels)
        total += h.total();
    QCOMPARE(total, expected.samples);
    compareWithReference(*m_engine, request, expected);
}

void TestStrategies::deviceInput_data() { addMatrixRows(true); }

void TestStrategies::prepareDeviceRow(HistogramRequest& request, HistogramResult& expected, DeviceArray& input)
{
    QFETCH(int, caseIndex);
    QFETCH(int, strategy);
    const testing::Case c = testing::exactnessMatrix()[caseIndex];
    std::mt19937_64 rng = rowRng();
    const testing::SyntheticImage frame = testing::makeSyntheticImage(c, rng);
    request = testing::makeCaseRequest(c, frame, Strategy(strategy));
    QVERIFY(referenceHistogram(request, expected).ok());
    QVERIFY(copyToDevice(*m_engine, frame.bytes.data(), frame.bytes.size(), input).ok());
    request.image.data = input.data();
    request.image.space = MemorySpace::Device;
}

void TestStrategies::deviceInput()
{
    if (!m_engine->hasGpu())
        QSKIP("no CUDA device");
    HistogramRequest request;
    HistogramResult expected;
    DeviceArray input;
    prepareDeviceRow(request, expected, input);
    if (QTest::currentTestFailed())
        return;
    compareWithReference(*m_engine, request, expected);
}

void TestStrategies::deviceCounts_data() { addMatrixRows(true); }

// Counts kept in poisoned device memory: the result says so and carries no host counts, its
// margins and extremes are the reference's, and the counts read back are too; then with the first
// active channel's bins not delivered.
void TestStrategies::deviceCounts()
{
    if (!m_engine->hasGpu())
        QSKIP("no CUDA device");
    HistogramRequest request;
    HistogramResult expected;
    DeviceArray input, counts;
    prepareDeviceRow(request, expected, input);
    if (QTest::currentTestFailed())
        return;
    std::size_t words = 0;
    for (const ChannelHistogram& h : expected.channels)
        words += h.counts.size();
    const std::vector<unsigned char> poison(words * sizeof(std::uint64_t), 0xA5);
    std::vector<std::uint64_t> host(words);
    // The device counts read back, and laid into the result's channels from `first` on, packed.
    auto readBack = [&](HistogramResult& r, std::size_t first) {
        std::fill(host.begin(), host.end(), 0);
        const bool read = copyFromDevice(*m_engine, counts.data(), words * sizeof(std::uint64_t), host.data()).ok();
        std::size_t at = 0;
        for (std::size_t i = first; i < r.channels.size(); ++i) {
            const std::size_t bins = expected.channels[i].counts.size();
            r.channels[i].counts.assign(host.begin() + std::ptrdiff_t(at), host.begin() + std::ptrdiff_t(at + bins));
            at += bins;
        }
        return read;
    };
    auto noHostCounts = [](const HistogramResult& r) {
        return r.countsOnDevice
            && std::all_of(r.channels.begin(), r.channels.end(), [](const ChannelHistogram& h) { return h.counts.empty(); });
    };
    QVERIFY(copyToDevice(*m_engine, poison.data(), poison.size(), counts).ok());
    request.deviceCounts = counts.data();
    HistogramResult result = testing::poisonedResult();
    const Status s = m_engine->compute(request, result);
    QVERIFY2(s.ok(), s.message.c_str());
    QVERIFY(noHostCounts(result));
    QCOMPARE(result.channels.size(), expected.channels.size());
    QVERIFY(readBack(result, 0));
    QVERIFY2(result == expected, testing::describeDifference(expected, result).c_str());
    QCOMPARE(result.samples, expected.samples);

    // The same counts named only at finish (deviceCountsAtFinish): submit(), then finishInto().
    QVERIFY(copyToDevice(*m_engine, poison.data(), poison.size(), counts).ok());
    request.deviceCounts = nullptr;
    request.deviceCountsAtFinish = true;
    result = testing::poisonedResult();
    const Status submitted = m_engine->submit(request);
    QVERIFY2(submitted.ok(), submitted.message.c_str());
    const Status finished = m_engine->finishInto(counts.data(), result);
    QVERIFY2(finished.ok(), finished.message.c_str());
    QVERIFY(noHostCounts(result));
    QVERIFY(readBack(result, 0));
    QVERIFY2(result == expected, testing::describeDifference(expected, result).c_str());
    request.deviceCounts = counts.data();
    request.deviceCountsAtFinish = false;
    if (expected.channels.size() < 2)
        return;

    // The first active channel's bins left out (HistogramRequest::deviceCountsChannels): the
    // others' bins packed from the start, nothing written past them, every channel's margins
    // and extremes still the reference's.
    const std::size_t skipped = expected.channels[0].counts.size();
    QVERIFY(copyToDevice(*m_engine, poison.data(), poison.size(), counts).ok());
    request.deviceCountsChannels = ~(1u << expected.channels[0].channel);
    result = testing::poisonedResult();
    const Status masked = m_engine->compute(request, result);
    QVERIFY2(masked.ok(), masked.message.c_str());
    QVERIFY(readBack(result, 1));
    for (std::size_t w = words - skipped; w < words; ++w)
        QCOMPARE(host[w], 0xA5A5A5A5A5A5A5A5ull);
    result.channels[0].counts = expected.channels[0].counts;
    QVERIFY2(result == expected, testing::describeDifference(expected, result).c_str());
}

void TestStrategies::binBeyond32Bits()
{
    // 2^32 + 2^16 + 5 one-byte keys, nearly all equal: that bin passes 2^32.
    const std::size_t count = (std::size_t(1) << 32) + (std::size_t(1) << 16) + 5;
    std::vector<std::uint8_t> keys;
    try {
        keys.assign(count, 0);
    } catch (const std::bad_alloc&) {
        QSKIP("not enough memory for 4.3 GB of keys");
    }
    std::mt19937_64 rng = rowRng();
    const std::uint8_t hot = std::uint8_t(1 + rng() % 255);
    std::fill(keys.begin(), keys.end(), hot);
    std::uint64_t notHot = 0;
    for (int i = 0; i < 5000; ++i) {
        std::uint8_t& k = keys[rng() % count];
        const std::uint8_t v = std::uint8_t(hot + 1 + rng() % 254);
        notHot += k == hot;
        k = v;
    }
    HistogramRequest request = makeRequest(keysView(keys.data(), count, SampleType::U8), defaultBinning(SampleType::U8),
                                           Strategy::Cpu);
    HistogramResult result = testing::poisonedResult();
    QVERIFY(m_engine->compute(request, result).ok());
    QCOMPARE(result.channels.size(), std::size_t(1));
    QCOMPARE(result.channels[0].counts[hot], std::uint64_t(count) - notHot);
    QVERIFY(result.channels[0].counts[hot] > (std::uint64_t(1) << 32));
    QCOMPARE(result.channels[0].total(), std::uint64_t(count));
    if (m_engine->hasGpu()) {
        for (Strategy s : {Strategy::Shared, Strategy::RunLength, Strategy::Cub, Strategy::PerLane, Strategy::Partition,
                           Strategy::Packed}) {
            request.strategy = s;
            HistogramResult gpu = testing::poisonedResult();
            QVERIFY(m_engine->compute(request, gpu).ok());
            QVERIFY2(gpu == result, strategyName(s).data());
        }
    }
}

void TestStrategies::accumulateAddsFrames()
{
    testing::Case c = testing::exactnessMatrix()[0];
    std::mt19937_64 rng = rowRng();
    const testing::SyntheticImage a = testing::makeSyntheticImage(c, rng);
    const testing::SyntheticImage b = testing::makeSyntheticImage(c, rng);
    HistogramResult sum;
    QVERIFY(m_engine->compute(testing::makeCaseRequest(c, a, Strategy::Auto), sum).ok());
    QVERIFY(m_engine->accumulate(testing::makeCaseRequest(c, b, Strategy::Auto), sum).ok());
    HistogramResult ra, rb;
    QVERIFY(referenceHistogram(testing::makeCaseRequest(c, a, Strategy::Cpu), ra).ok());
    QVERIFY(referenceHistogram(testing::makeCaseRequest(c, b, Strategy::Cpu), rb).ok());
    for (std::size_t i = 0; i < ra.channels[0].counts.size(); ++i)
        QCOMPARE(sum.channels[0].counts[i], ra.channels[0].counts[i] + rb.channels[0].counts[i]);
    QCOMPARE(sum.samples, ra.samples + rb.samples);
    // The extremes of the two frames together.
    QVERIFY(sum.channels[0].hasValues);
    QCOMPARE(sum.channels[0].minValue, std::min(ra.channels[0].minValue, rb.channels[0].minValue));
    QCOMPARE(sum.channels[0].maxValue, std::max(ra.channels[0].maxValue, rb.channels[0].maxValue));

    // A histogram with other bins is refused, not silently mixed.
    c.bins = 16;
    c.hi = 16;
    const Status refused = m_engine->accumulate(testing::makeCaseRequest(c, a, Strategy::Auto), sum);
    QCOMPARE(int(refused.code), int(ErrorCode::InvalidArgument));
}

void TestStrategies::strategiesRefuseWhatTheyCannotCount()
{
    std::vector<std::uint16_t> wide(64, 5);
    HistogramResult result = testing::poisonedResult();
    const Status refused = m_engine->compute(makeRequest(keysView(wide.data(), wide.size(), SampleType::U16),
                                                         defaultBinning(SampleType::U16), Strategy::PerLane),
                                             result);
    QCOMPARE(int(refused.code), int(ErrorCode::UnsupportedStrategy));
    QVERIFY2(QString::fromStdString(refused.message).contains("u16"), refused.message.c_str());
    QVERIFY(strategyAccepts(Strategy::PerLane, SampleType::U8));
    QVERIFY(!strategyAccepts(Strategy::PerLane, SampleType::F32));
    QVERIFY(strategyAccepts(Strategy::Cub, SampleType::U32, kCubMaxBins));
    QVERIFY(!strategyAccepts(Strategy::Cub, SampleType::U32, kCubMaxBins + 1));
    // `packed` takes every type and any bin count (beyond one pass of 16-bit counters, several).
    QVERIFY(strategyAccepts(Strategy::Packed, SampleType::F32, kMaxBins));
    QVERIFY(strategyAccepts(Strategy::Packed, SampleType::U8));
    QCOMPARE(strategyFromName("packed"), std::optional<Strategy>(Strategy::Packed));
    std::vector<std::uint32_t> keys(64, 5);
    ChannelBinning huge;
    huge.bins = kMaxBins;
    huge.hi = kMaxBins;
    huge.identity = true;
    const Status tooMany = m_engine->compute(makeRequest(keysView(keys.data(), keys.size(), SampleType::U32), huge, Strategy::Cub),
                                             result);
    QCOMPARE(int(tooMany.code), int(ErrorCode::UnsupportedStrategy));
}

// ---- The float-binning oracle -------------------------------------------------------------
// The definition (HistogramTypes.h): lo and hi are rounded to float; a sample below lo counts as
// below, at or above hi (+inf too) as above, NaN as NaN; otherwise
//   bin = trunc(float(float(v - lo) * float(float(bins) / float(hi - lo)))), at most bins - 1.
// The oracle computes each step in long double and rounds it to float once, as IEEE float
// arithmetic does: the differences and the product are exact in long double's 64-bit mantissa
// (the operands are floats within 2^40 of each other here), so each rounding is the only one;
// the quotient is rounded twice, which can differ from one rounding only when the long double
// lands exactly on a float tie, and a quotient of two floats is never within 2^-64 of one for
// these ranges. Half samples are decoded here too, from the IEEE 754 binary16 layout.
namespace {

constexpr long long kBelowSlot = -1, kAboveSlot = -2, kNanSlot = -3;

long long oracleFloatSlot(double lo, double hi, std::uint32_t bins, float v)
{
    if (std::isnan(v))
        return kNanSlot;
    const float flo = static_cast<float>(lo), fhi = static_cast<float>(hi);
    const long double x = v;
    if (x < flo)
        return kBelowSlot;
    if (x >= fhi)
        return kAboveSlot;
    const float width = static_cast<float>(static_cast<long double>(fhi) - flo);
    const float scale = static_cast<float>(static_cast<long double>(bins) / width);
    const float offset = static_cast<float>(x - flo);
    const float product = static_cast<float>(static_cast<long double>(offset) * scale);
    const long long bin = static_cast<long long>(std::floor(static_cast<long double>(product)));
    return std::min<long long>(bin, static_cast<long long>(bins) - 1);
}

// The bin of exact arithmetic over [float(lo), float(hi)): the float definition may differ
// from it by one bin near an edge, never more.
long long exactFloatSlot(double lo, double hi, std::uint32_t bins, float v)
{
    const long double flo = static_cast<float>(lo), fhi = static_cast<float>(hi);
    return static_cast<long long>(std::floor((static_cast<long double>(v) - flo) * bins / (fhi - flo)));
}

float halfBitsToFloat(std::uint16_t h)
{
    const int exponent = (h >> 10) & 0x1f;
    const int mantissa = h & 0x3ff;
    const float sign = (h & 0x8000) ? -1.0f : 1.0f;
    if (exponent == 0x1f)
        return mantissa ? std::numeric_limits<float>::quiet_NaN() : sign * std::numeric_limits<float>::infinity();
    if (exponent == 0)
        return sign * std::ldexp(static_cast<float>(mantissa), -24);
    return sign * std::ldexp(static_cast<float>(1024 + mantissa), exponent - 25);
}

// The engine's slot for each sample: one request per strategy over all of them.
struct SlotCounts {
    std::vector<std::uint64_t> counts;
    std::uint64_t below = 0, above = 0, nan = 0;
};

SlotCounts oracleCounts(double lo, double hi, std::uint32_t bins, const std::vector<float>& values)
{
    SlotCounts expected;
    expected.counts.assign(bins, 0);
    for (float v : values) {
        const long long slot = oracleFloatSlot(lo, hi, bins, v);
        if (slot == kBelowSlot) ++expected.below;
        else if (slot == kAboveSlot) ++expected.above;
        else if (slot == kNanSlot) ++expected.nan;
        else ++expected.counts[std::size_t(slot)];
    }
    return expected;
}

}  // namespace

void TestStrategies::floatBinningOracle_data()
{
    // Each expected slot is derived by hand from the definition above (-1 below, -2 above, -3 NaN).
    QTest::addColumn<double>("lo");
    QTest::addColumn<double>("hi");
    QTest::addColumn<uint>("bins");
    QTest::addColumn<float>("value");
    QTest::addColumn<qlonglong>("slot");
    const float inf = std::numeric_limits<float>::infinity();
    const float denormMin = std::numeric_limits<float>::denorm_min();
    QTest::newRow("lower edge") << 0.0 << 1.0 << 4u << 0.0f << 0ll;
    QTest::newRow("negative zero is zero") << 0.0 << 1.0 << 4u << -0.0f << 0ll;
    QTest::newRow("inner edge") << 0.0 << 1.0 << 4u << 0.25f << 1ll;
    QTest::newRow("last bin") << 0.0 << 1.0 << 4u << 0.75f << 3ll;
    QTest::newRow("just below hi") << 0.0 << 1.0 << 4u << std::nextafter(1.0f, 0.0f) << 3ll;
    QTest::newRow("hi itself is above") << 0.0 << 1.0 << 4u << 1.0f << kAboveSlot;
    QTest::newRow("+inf is above") << 0.0 << 1.0 << 4u << inf << kAboveSlot;
    QTest::newRow("-inf is below") << 0.0 << 1.0 << 4u << -inf << kBelowSlot;
    QTest::newRow("NaN") << 0.0 << 1.0 << 4u << std::numeric_limits<float>::quiet_NaN() << kNanSlot;
    QTest::newRow("smallest denormal") << 0.0 << 1.0 << 4u << denormMin << 0ll;
    QTest::newRow("negative denormal is below") << 0.0 << 1.0 << 4u << -denormMin << kBelowSlot;
    // [0, 2^-126) in two bins: scale 2^127, so the denormal 2^-127 lands exactly on bin 1.
    QTest::newRow("denormal range, upper half") << 0.0 << double(std::numeric_limits<float>::min()) << 2u
                                                << std::ldexp(1.0f, -127) << 1ll;
    QTest::newRow("denormal range, lowest") << 0.0 << double(std::numeric_limits<float>::min()) << 2u << denormMin << 0ll;
    // 1 - 2^-24 minus -1 is 2 - 2^-24, a tie that rounds to 2: the product reaches bins, clamped.
    QTest::newRow("rounds onto hi, clamped") << -1.0 << 1.0 << 4u << std::nextafter(1.0f, 0.0f) << 3ll;
    // float(0.3) = 0.3000000119; scale = float(3 / 0.3000000119) = 10 exactly; 0.1f * 10 rounds
    // to 1.0: bin 1, where exact arithmetic gives 0.99999997, bin 0.
    QTest::newRow("float rounding crosses an edge") << 0.0 << 0.3 << 3u << 0.1f << 1ll;
    QTest::newRow("lo rounded to float") << 0.1 << 1.0 << 9u << 0.1f << 0ll;
    QTest::newRow("just below lo") << 0.1 << 1.0 << 9u << std::nextafter(0.1f, 0.0f) << kBelowSlot;
    QTest::newRow("negative range") << -3.0 << -1.0 << 8u << -2.0f << 4ll;
    QTest::newRow("one bin") << -1e30 << 1e30 << 1u << 12345.0f << 0ll;
}

void TestStrategies::floatBinningOracle()
{
    QFETCH(double, lo);
    QFETCH(double, hi);
    QFETCH(uint, bins);
    QFETCH(float, value);
    QFETCH(qlonglong, slot);
    QCOMPARE(oracleFloatSlot(lo, hi, bins, value), slot);  // the oracle agrees with the hand derivation
    if (slot >= 0)
        QVERIFY(std::llabs(exactFloatSlot(lo, hi, bins, value) - slot) <= 1);
    const std::vector<float> values{value};
    const SlotCounts expected = oracleCounts(lo, hi, bins, values);
    ChannelBinning b;
    b.bins = bins;
    b.lo = lo;
    b.hi = hi;
    for (Strategy s : strategiesHere(SampleType::F32, bins)) {
        HistogramResult result = testing::poisonedResult();
        const Status status = m_engine->compute(makeRequest(keysView(values.data(), 1, SampleType::F32), b, s), result);
        QVERIFY2(status.ok(), status.message.c_str());
        const ChannelHistogram& h = result.channels.at(0);
        QVERIFY2(h.counts == expected.counts && h.below == expected.below && h.above == expected.above
                     && h.nan == expected.nan,
                 strategyName(s).data());
    }
}

void TestStrategies::floatBinningSweep_data()
{
    QTest::addColumn<int>("type");
    QTest::addColumn<double>("lo");
    QTest::addColumn<double>("hi");
    QTest::addColumn<uint>("bins");
    QTest::newRow("f32 unit, 7 bins") << int(SampleType::F32) << 0.0 << 1.0 << 7u;
    QTest::newRow("f32 [-1, 3), 1000 bins") << int(SampleType::F32) << -1.0 << 3.0 << 1000u;
    QTest::newRow("f32 [0.1, 0.7), 4096 bins") << int(SampleType::F32) << 0.1 << 0.7 << 4096u;
    QTest::newRow("f32 [-1e-3, 2e-3), 99991 bins") << int(SampleType::F32) << -1e-3 << 2e-3 << 99991u;
    QTest::newRow("f32 [1000, 1001), 65536 bins") << int(SampleType::F32) << 1000.0 << 1001.0 << 65536u;
    QTest::newRow("f16 every value, [-1, 1), 256 bins") << int(SampleType::F16) << -1.0 << 1.0 << 256u;
    QTest::newRow("f16 every value, [0, 65504), 1000 bins") << int(SampleType::F16) << 0.0 << 65504.0 << 1000u;
}

void TestStrategies::floatBinningSweep()
{
    QFETCH(int, type);
    QFETCH(double, lo);
    QFETCH(double, hi);
    QFETCH(uint, bins);
    std::vector<float> values;
    std::vector<std::uint16_t> halves;
    if (SampleType(type) == SampleType::F16) {
        for (std::uint32_t h = 0; h < 65536; ++h) {  // every half, NaNs and infinities included
            halves.push_back(std::uint16_t(h));
            values.push_back(halfBitsToFloat(std::uint16_t(h)));
        }
    } else {
        // Every bin edge of exact arithmetic with its float neighbours, the range's own ends,
        // denormals, specials, and uniform samples around the range.
        std::mt19937_64 rng = rowRng();
        const float flo = float(lo), fhi = float(hi);
        for (std::uint32_t k = 0; k <= bins; ++k) {
            const float edge = float(static_cast<long double>(flo) + (static_cast<long double>(fhi) - flo) * k / bins);
            values.insert(values.end(), {edge, std::nextafter(edge, -INFINITY), std::nextafter(edge, INFINITY)});
        }
        const float specials[] = {std::numeric_limits<float>::quiet_NaN(), INFINITY, -INFINITY, 0.0f, -0.0f,
                                  std::numeric_limits<float>::denorm_min(), -std::numeric_limits<float>::denorm_min(),
                                  std::numeric_limits<float>::min(), std::numeric_limits<float>::max(),
                                  std::numeric_limits<float>::lowest()};
        values.insert(values.end(), std::begin(specials), std::end(specials));
        std::uniform_real_distribution<double> around(lo - 0.1 * (hi - lo), hi + 0.1 * (hi - lo));
        for (int i = 0; i < 200000; ++i)
            values.push_back(float(around(rng)));
        std::shuffle(values.begin(), values.end(), rng);
    }
    const SlotCounts expected = oracleCounts(lo, hi, bins, values);
    for (float v : values) {
        const long long slot = oracleFloatSlot(lo, hi, bins, v);
        if (slot >= 0)
            QVERIFY2(std::llabs(exactFloatSlot(lo, hi, bins, v) - slot) <= 1, "float binning strays from exact arithmetic");
    }
    ChannelBinning b;
    b.bins = bins;
    b.lo = lo;
    b.hi = hi;
    const void* data = halves.empty() ? static_cast<const void*>(values.data()) : halves.data();
    for (Strategy s : strategiesHere(SampleType(type), bins)) {
        HistogramResult result = testing::poisonedResult();
        const Status status =
            m_engine->compute(makeRequest(keysView(data, values.size(), SampleType(type)), b, s), result);
        QVERIFY2(status.ok(), status.message.c_str());
        const ChannelHistogram& h = result.channels.at(0);
        std::string where;
        for (std::uint32_t bin = 0; bin < bins && where.empty(); ++bin)
            if (h.counts[bin] != expected.counts[bin])
                where = "bin " + std::to_string(bin) + ": " + std::to_string(h.counts[bin]) + " != "
                      + std::to_string(expected.counts[bin]);
        if (h.below != expected.below || h.above != expected.above || h.nan != expected.nan)
            where += " below/above/nan " + std::to_string(h.below) + "/" + std::to_string(h.above) + "/"
                   + std::to_string(h.nan);
        QVERIFY2(where.empty(), (std::string(strategyName(s)) + ": " + where).c_str());
    }
}

QTEST_GUILESS_MAIN(TestStrategies)
#include "tst_strategies.moc"
