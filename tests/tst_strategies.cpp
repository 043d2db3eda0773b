// Every strategy against the single-threaded reference, bit for bit, over the exactness matrix
// of issue #2. Inputs are fresh random frames (the seed is printed); results are poisoned first.
#include "TestCases.h"

#include "histoscope/HistogramEngine.h"
#include "histoscope/ReferenceHistogram.h"

#include <QTest>

using namespace hs;

class TestStrategies : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void exactness_data();
    void exactness();
    void deviceInput_data();
    void deviceInput();
    void binBeyond32Bits();
    void accumulateAddsFrames();

private:
    std::unique_ptr<HistogramEngine> m_engine;
    std::mt19937_64 m_rng;
};

void TestStrategies::initTestCase()
{
    m_engine = std::make_unique<HistogramEngine>();
    const std::uint64_t seed = testing::freshSeed();
    m_rng.seed(seed);
    qInfo("seed %llu, backend: %s", static_cast<unsigned long long>(seed),
          m_engine->hasGpu() ? m_engine->deviceInfo()->name.c_str() : m_engine->notice().c_str());
}

static void addMatrixRows(bool gpuOnly)
{
    QTest::addColumn<int>("caseIndex");
    QTest::addColumn<int>("strategy");
    const auto cases = testing::exactnessMatrix();
    for (int i = 0; i < int(cases.size()); ++i)
        for (Strategy s : allStrategies()) {
            if (gpuOnly && !isGpuStrategy(s))
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
    const testing::Frame frame = testing::makeFrame(c, m_rng);
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

void TestStrategies::deviceInput()
{
    QFETCH(int, caseIndex);
    QFETCH(int, strategy);
    if (!m_engine->hasGpu())
        QSKIP("no CUDA device");
    const testing::Case c = testing::exactnessMatrix()[caseIndex];
    const testing::Frame frame = testing::makeFrame(c, m_rng);
    HistogramRequest request = testing::makeCaseRequest(c, frame, Strategy(strategy));
    HistogramResult expected;
    QVERIFY(referenceHistogram(request, expected).ok());
    DeviceArray array;
    QVERIFY(m_engine->copyToDevice(frame.bytes.data(), frame.bytes.size(), array).ok());
    request.image.data = array.data();
    request.image.space = MemorySpace::Device;
    compareWithReference(*m_engine, request, expected);
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
    const std::uint8_t hot = std::uint8_t(1 + m_rng() % 255);
    std::fill(keys.begin(), keys.end(), hot);
    std::uint64_t notHot = 0;
    for (int i = 0; i < 5000; ++i) {
        std::uint8_t& k = keys[m_rng() % count];
        const std::uint8_t v = std::uint8_t(hot + 1 + m_rng() % 254);
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
        for (Strategy s : {Strategy::Shared, Strategy::RunLength, Strategy::Cub}) {
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
    const testing::Frame a = testing::makeFrame(c, m_rng);
    const testing::Frame b = testing::makeFrame(c, m_rng);
    HistogramResult sum;
    QVERIFY(m_engine->compute(testing::makeCaseRequest(c, a, Strategy::Auto), sum).ok());
    QVERIFY(m_engine->accumulate(testing::makeCaseRequest(c, b, Strategy::Auto), sum).ok());
    HistogramResult ra, rb;
    QVERIFY(referenceHistogram(testing::makeCaseRequest(c, a, Strategy::Cpu), ra).ok());
    QVERIFY(referenceHistogram(testing::makeCaseRequest(c, b, Strategy::Cpu), rb).ok());
    for (std::size_t i = 0; i < ra.channels[0].counts.size(); ++i)
        QCOMPARE(sum.channels[0].counts[i], ra.channels[0].counts[i] + rb.channels[0].counts[i]);
    QCOMPARE(sum.samples, ra.samples + rb.samples);

    // A histogram with other bins is refused, not silently mixed.
    c.bins = 16;
    c.hi = 16;
    const Status refused = m_engine->accumulate(testing::makeCaseRequest(c, a, Strategy::Auto), sum);
    QCOMPARE(int(refused.code), int(ErrorCode::InvalidArgument));
}

QTEST_GUILESS_MAIN(TestStrategies)
#include "tst_strategies.moc"
