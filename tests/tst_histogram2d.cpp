// 2-D histograms (issue 13): every strategy against the serial reference, bit for bit, over the
// 2-D exactness matrix (gpu/testing/Histogram2DCases.cpp), host and device inputs; results are
// poisoned before each run and the device counters too (HISTOSCOPE_POISON_2D); inputs are fresh
// random frames (the seed is printed, HISTOSCOPE_SEED replays it). Then oracles written here from
// docs/SCOPES.md: what a parade cell means, the integer luma/Cb/Cr formulas, hue and saturation.
#include "gpu/testing/Histogram2DCases.h"
#include "gpu/testing/TestCases.h"

#include "histoscope/EngineDiagnostics.h"
#include "histoscope/Histogram2D.h"
#include "histoscope/HistogramEngine.h"

#include <QTest>

#include <cmath>
#include <memory>

using namespace hs;

class TestHistogram2D : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void exactness_data();
    void exactness();
    void deviceInput_data();
    void deviceInput();
    void accumulateAddsFrames();
    void resultIsReusedAcrossFrames_data();
    void resultIsReusedAcrossFrames();
    void paradeCountsColumnValues();
    void vectorscopeIntegerFormulas_data();
    void vectorscopeIntegerFormulas();
    void lumaWaveformFormula();
    void hueSaturationValues();
    void marginsPerAxis();
    void invalidRequests_data();
    void invalidRequests();
    void strategyReasons();

private:
    std::mt19937_64 rowRng() const;
    void compare(Histogram2DEngine& engine, const Histogram2DRequest& request, const Histogram2DResult& expected);

    std::unique_ptr<Histogram2DEngine> m_gpu;   // the GPU when there is one, else the CPU
    std::unique_ptr<Histogram2DEngine> m_cpu;
    std::unique_ptr<HistogramEngine> m_engine1d;  // device memory for device inputs
    std::uint64_t m_seed = 0;
};

void TestHistogram2D::initTestCase()
{
    qputenv("HISTOSCOPE_POISON_2D", "1");
    m_gpu = std::make_unique<Histogram2DEngine>();
    m_cpu = std::make_unique<Histogram2DEngine>(EngineOptions{false});
    m_engine1d = std::make_unique<HistogramEngine>();
    m_seed = testing::runSeed();
    qInfo("seed %llu (HISTOSCOPE_SEED=%llu replays it), 2-D backend: %s", static_cast<unsigned long long>(m_seed),
          static_cast<unsigned long long>(m_seed), m_gpu->hasGpu() ? "CUDA" : m_gpu->notice().c_str());
}

std::mt19937_64 TestHistogram2D::rowRng() const
{
    const char* tag = QTest::currentDataTag();
    return testing::caseRng(m_seed, std::string(QTest::currentTestFunction()) + "/" + (tag ? tag : ""));
}

void TestHistogram2D::compare(Histogram2DEngine& engine, const Histogram2DRequest& request,
                              const Histogram2DResult& expected)
{
    Histogram2DResult result = testing::poisoned2D();
    const Status s = engine.compute(request, result);
    QVERIFY2(s.ok(), s.message.c_str());
    const std::string diff = testing::describeDifference2D(expected, result);
    QVERIFY2(diff.empty(), (std::string(strategyName(request.strategy)) + " ran " + std::string(strategyName(result.strategyRan))
                            + ": " + diff).c_str());
    QCOMPARE(result.pixels, expected.pixels);
}

static const Strategy kStrategies[] = {Strategy::Cpu, Strategy::Auto, Strategy::GlobalAtomic, Strategy::Shared,
                                       Strategy::Cub};

void TestHistogram2D::exactness_data()
{
    QTest::addColumn<int>("caseIndex");
    QTest::addColumn<int>("strategy");
    const auto matrix = testing::histogram2DMatrix();
    for (std::size_t i = 0; i < matrix.size(); ++i)
        for (Strategy s : kStrategies)
            QTest::newRow((matrix[i].name + "/" + std::string(strategyName(s))).c_str()) << int(i) << int(s);
}

void TestHistogram2D::exactness()
{
    QFETCH(int, caseIndex);
    QFETCH(int, strategy);
    const Strategy s = Strategy(strategy);
    if (isGpuStrategy(s) && !m_gpu->hasGpu())
        QSKIP("no CUDA device");
    const testing::Case2D c = testing::histogram2DMatrix()[caseIndex];
    std::mt19937_64 rng = rowRng();
    const testing::Image2D image = testing::makeImage2D(c, rng);
    const Histogram2DRequest request = testing::makeRequest2D(c, image.view, s);
    Histogram2DResult expected;
    const Status rs = referenceHistogram2D(request, expected);
    QVERIFY2(rs.ok(), rs.message.c_str());
    std::uint64_t total = 0;
    for (const Histogram2D& h : expected.histograms)
        total += h.total();
    QCOMPARE(total, expected.pixels * expected.histograms.size());  // nothing dropped
    compare(s == Strategy::Cpu ? *m_cpu : *m_gpu, request, expected);
}

void TestHistogram2D::deviceInput_data()
{
    QTest::addColumn<int>("caseIndex");
    QTest::addColumn<int>("strategy");
    const auto matrix = testing::histogram2DMatrix();
    for (std::size_t i = 0; i < matrix.size(); i += 3)  // a third of the matrix, every kind among it
        for (Strategy s : {Strategy::Auto, Strategy::GlobalAtomic, Strategy::Shared, Strategy::Cub})
            QTest::newRow((matrix[i].name + "/" + std::string(strategyName(s))).c_str()) << int(i) << int(s);
}

void TestHistogram2D::deviceInput()
{
    QFETCH(int, caseIndex);
    QFETCH(int, strategy);
    if (!m_gpu->hasGpu() || !m_engine1d->hasGpu())
        QSKIP("no CUDA device");
    const testing::Case2D c = testing::histogram2DMatrix()[caseIndex];
    std::mt19937_64 rng = rowRng();
    const testing::Image2D image = testing::makeImage2D(c, rng);
    Histogram2DRequest request = testing::makeRequest2D(c, image.view, Strategy(strategy));
    Histogram2DResult expected;
    QVERIFY(referenceHistogram2D(request, expected).ok());
    DeviceArray array;
    QVERIFY(copyToDevice(*m_engine1d, image.bytes.data(), image.bytes.size(), array).ok());
    request.image.data = array.data();
    request.image.space = MemorySpace::Device;
    compare(*m_gpu, request, expected);
}

void TestHistogram2D::accumulateAddsFrames()
{
    std::mt19937_64 rng = rowRng();
    testing::Case2D c = testing::histogram2DMatrix()[0];
    const testing::Image2D a = testing::makeImage2D(c, rng);
    const testing::Image2D b = testing::makeImage2D(c, rng);
    for (Histogram2DEngine* engine : {m_cpu.get(), m_gpu.get()}) {
        Histogram2DResult ra, rb, sum;
        QVERIFY(referenceHistogram2D(testing::makeRequest2D(c, a.view, Strategy::Cpu), ra).ok());
        QVERIFY(referenceHistogram2D(testing::makeRequest2D(c, b.view, Strategy::Cpu), rb).ok());
        QVERIFY(engine->compute(testing::makeRequest2D(c, a.view, Strategy::Auto), sum).ok());
        QVERIFY(engine->accumulate(testing::makeRequest2D(c, b.view, Strategy::Auto), sum).ok());
        QCOMPARE(sum.pixels, ra.pixels + rb.pixels);
        for (std::size_t i = 0; i < sum.histograms.size(); ++i)
            for (std::size_t k = 0; k < sum.histograms[i].grid.size(); ++k)
                QCOMPARE(sum.histograms[i].grid[k], ra.histograms[i].grid[k] + rb.histograms[i].grid[k]);
        // Another shape is refused, not mixed in.
        Histogram2DRequest other = vectorscopeRequest(a.view, YCbCrStandard::Bt601, {0, 1, 2});
        QCOMPARE(engine->accumulate(other, sum).code, ErrorCode::InvalidArgument);
    }
}

void TestHistogram2D::resultIsReusedAcrossFrames_data()
{
    QTest::addColumn<bool>("gpu");
    QTest::newRow("cpu") << false;
    QTest::newRow("gpu") << true;
}

// A live scope counts frame after frame into one result, whose grids the engine keeps: the
// second frame must replace the first's counts entirely, and another shape must rebuild them.
void TestHistogram2D::resultIsReusedAcrossFrames()
{
    QFETCH(bool, gpu);
    if (gpu && !m_gpu->hasGpu())
        QSKIP("no CUDA device");
    Histogram2DEngine& engine = gpu ? *m_gpu : *m_cpu;
    std::mt19937_64 rng = rowRng();
    const testing::Case2D c = testing::histogram2DMatrix()[0];
    const testing::Image2D a = testing::makeImage2D(c, rng);
    const testing::Image2D b = testing::makeImage2D(c, rng);
    Histogram2DResult result, expected;
    QVERIFY(engine.compute(testing::makeRequest2D(c, a.view, Strategy::Auto), result).ok());
    QVERIFY(referenceHistogram2D(testing::makeRequest2D(c, b.view, Strategy::Cpu), expected).ok());
    QVERIFY(engine.compute(testing::makeRequest2D(c, b.view, Strategy::Auto), result).ok());
    QVERIFY2(testing::describeDifference2D(expected, result).empty(), testing::describeDifference2D(expected, result).c_str());
    QCOMPARE(result.pixels, expected.pixels);
    QVERIFY(engine.accumulate(testing::makeRequest2D(c, a.view, Strategy::Auto), result).ok());
    QCOMPARE(result.pixels, std::uint64_t(2) * expected.pixels);

    const Histogram2DRequest scope = vectorscopeRequest(b.view, YCbCrStandard::Bt709, {0, 1, 2});  // 3 channels
    QVERIFY(referenceHistogram2D(scope, expected).ok());
    QVERIFY(engine.compute(scope, result).ok());
    QVERIFY2(testing::describeDifference2D(expected, result).empty(), testing::describeDifference2D(expected, result).c_str());
}

// counts[x][v] is the number of pixels of column x whose channel value is v: counted here with
// plain loops over the bytes, nothing shared with the engine.
void TestHistogram2D::paradeCountsColumnValues()
{
    std::mt19937_64 rng = rowRng();
    const int w = 53, h = 31;
    std::vector<std::uint8_t> rgb(std::size_t(w) * h * 3);
    for (auto& v : rgb)
        v = std::uint8_t(rng() % 7 * 40);  // few values: many repeated cells
    ImageView view;
    view.data = rgb.data();
    view.width = w;
    view.height = h;
    view.channels = 3;
    for (Histogram2DEngine* engine : {m_cpu.get(), m_gpu.get()}) {
        Histogram2DResult result;
        QVERIFY(engine->compute(paradeRequest(view, {0, 1, 2}), result).ok());
        QCOMPARE(result.histograms.size(), std::size_t(3));
        for (int c = 0; c < 3; ++c) {
            const Histogram2D& hist = result.histograms[c];
            QCOMPARE(hist.axes.x.binning.bins, std::uint32_t(w));
            QCOMPARE(hist.axes.y.binning.bins, 256u);
            for (int x = 0; x < w; ++x) {
                std::vector<std::uint64_t> expect(256, 0);
                for (int y = 0; y < h; ++y)
                    ++expect[rgb[(std::size_t(y) * w + x) * 3 + c]];
                for (int v = 0; v < 256; ++v)
                    QCOMPARE(hist.count(x, v), expect[v]);
            }
            QCOMPARE(hist.inRange(), std::uint64_t(w) * h);
        }
    }
}

// The vectorscope's integer arithmetic, written out again from docs/SCOPES.md.
void TestHistogram2D::vectorscopeIntegerFormulas_data()
{
    QTest::addColumn<int>("standard");
    QTest::addColumn<int>("r");
    QTest::addColumn<int>("g");
    QTest::addColumn<int>("b");
    QTest::addColumn<int>("cb");
    QTest::addColumn<int>("cr");
    // Known points: grey at the centre, full blue and full red at the edges (floor keeps 8 bits).
    QTest::newRow("601 grey") << 601 << 77 << 77 << 77 << 128 << 128;
    QTest::newRow("601 blue") << 601 << 0 << 0 << 255 << 255 << 107;
    QTest::newRow("601 yellow") << 601 << 255 << 255 << 0 << 0 << 148;
    QTest::newRow("601 red") << 601 << 255 << 0 << 0 << 84 << 255;
    QTest::newRow("601 cyan") << 601 << 0 << 255 << 255 << 171 << 0;
    QTest::newRow("709 grey") << 709 << 200 << 200 << 200 << 128 << 128;
    QTest::newRow("709 blue") << 709 << 0 << 0 << 255 << 255 << 116;
    QTest::newRow("709 red") << 709 << 255 << 0 << 0 << 98 << 255;
    QTest::newRow("709 green") << 709 << 0 << 255 << 0 << 29 << 12;
}

void TestHistogram2D::vectorscopeIntegerFormulas()
{
    QFETCH(int, standard);
    QFETCH(int, r);
    QFETCH(int, g);
    QFETCH(int, b);
    QFETCH(int, cb);
    QFETCH(int, cr);
    // The oracle: Cb = 128 + floor((kbr R + kbg G + 32768 B) / 65536), Cr likewise.
    const bool bt709 = standard == 709;
    const std::int64_t kbr = bt709 ? -7509 : -11058, kbg = bt709 ? -25259 : -21710;
    const std::int64_t krg = bt709 ? -29763 : -27439, krb = bt709 ? -3005 : -5329;
    auto floorDiv = [](std::int64_t a) { return a >= 0 ? a / 65536 : -((-a + 65535) / 65536); };
    QCOMPARE(128 + floorDiv(kbr * r + kbg * g + 32768 * b), std::int64_t(cb));
    QCOMPARE(128 + floorDiv(32768 * r + krg * g + krb * b), std::int64_t(cr));
    const std::uint8_t px[3] = {std::uint8_t(r), std::uint8_t(g), std::uint8_t(b)};
    ImageView view;
    view.data = px;
    view.width = 1;
    view.height = 1;
    view.channels = 3;
    for (Histogram2DEngine* engine : {m_cpu.get(), m_gpu.get()}) {
        Histogram2DResult result;
        QVERIFY(engine->compute(vectorscopeRequest(view, bt709 ? YCbCrStandard::Bt709 : YCbCrStandard::Bt601, {0, 1, 2}), result).ok());
        QCOMPARE(result.histograms[0].count(cb, cr), std::uint64_t(1));
    }
}

void TestHistogram2D::lumaWaveformFormula()
{
    // Y = floor((kr R + kg G + kb B + 32768) / 65536) for every 8-bit grey and the primaries.
    std::vector<std::uint8_t> px;
    for (int v = 0; v < 256; ++v)
        px.insert(px.end(), {std::uint8_t(v), std::uint8_t(v), std::uint8_t(v)});
    px.insert(px.end(), {255, 0, 0, 0, 255, 0, 0, 0, 255});
    ImageView view;
    view.data = px.data();
    view.width = std::int64_t(px.size() / 3);
    view.height = 1;
    view.channels = 3;
    for (YCbCrStandard standard : {YCbCrStandard::Bt601, YCbCrStandard::Bt709}) {
        const std::int64_t kr = standard == YCbCrStandard::Bt709 ? 13933 : 19595;
        const std::int64_t kg = standard == YCbCrStandard::Bt709 ? 46871 : 38470;
        const std::int64_t kb = 65536 - kr - kg;
        for (Histogram2DEngine* engine : {m_cpu.get(), m_gpu.get()}) {
            Histogram2DResult result;
            QVERIFY(engine->compute(lumaWaveformRequest(view, standard, {0, 1, 2}), result).ok());
            const Histogram2D& h = result.histograms[0];
            for (int x = 0; x < int(view.width); ++x) {
                const std::int64_t y = (kr * px[x * 3] + kg * px[x * 3 + 1] + kb * px[x * 3 + 2] + 32768) / 65536;
                if (x < 256)
                    QCOMPARE(y, std::int64_t(x));  // grey keeps its code
                QCOMPARE(h.count(x, std::uint32_t(y)), std::uint64_t(1));
            }
        }
    }
}

void TestHistogram2D::hueSaturationValues()
{
    // red, yellow, green, cyan, blue, magenta, grey, black, half-saturated orange
    const std::uint8_t px[] = {255, 0, 0, 255, 255, 0, 0, 255, 0, 0, 255, 255, 0, 0, 255, 255, 0, 255,
                               90, 90, 90, 0, 0, 0, 200, 150, 100};
    const int hueBin[] = {0, 60, 120, 180, 240, 300, 0, 0, 30};
    const int satBin[] = {255, 255, 255, 255, 255, 255, 0, 0, 128};
    ImageView view;
    view.data = px;
    view.width = 9;
    view.height = 1;
    view.channels = 3;
    for (Histogram2DEngine* engine : {m_cpu.get(), m_gpu.get()}) {
        Histogram2DResult result;
        QVERIFY(engine->compute(hueSaturationRequest(view, {0, 1, 2}), result).ok());
        const Histogram2D& h = result.histograms[0];
        QCOMPARE(h.inRange(), std::uint64_t(9));  // saturation 1 is in range: its upper edge is inclusive
        for (int i = 0; i < 9; ++i)
            QVERIFY2(h.count(hueBin[i], satBin[i]) >= 1, qPrintable(QStringLiteral("pixel %1").arg(i)));
    }
}

void TestHistogram2D::marginsPerAxis()
{
    // A float pixel with NaN red lands in the NaN slot of both colour axes; an out-of-range
    // channel value lands in its axis's margin while the other axis keeps its bin.
    const float px[] = {NAN, 0.5f, 0.5f, 2.0f, 0.25f, 0.5f, -1.0f, 0.75f, 0.5f};
    ImageView view;
    view.data = px;
    view.type = SampleType::F32;
    view.width = 3;
    view.height = 1;
    view.channels = 3;
    for (Histogram2DEngine* engine : {m_cpu.get(), m_gpu.get()}) {
        Histogram2DResult result;
        Histogram2DRequest joint = jointRequest(view, 0, 1);
        QVERIFY(engine->compute(joint, result).ok());
        const Histogram2D& h = result.histograms[0];
        QCOMPARE(h.outsideX().nan, std::uint64_t(1));
        QCOMPARE(h.outsideX().above, std::uint64_t(1));
        QCOMPARE(h.outsideX().below, std::uint64_t(1));
        QCOMPARE(h.slot(256 + 1, 64), std::uint64_t(1));   // x above, y = 0.25 -> bin 64
        QCOMPARE(h.slot(256, 192), std::uint64_t(1));      // x below, y = 0.75 -> bin 192
        QCOMPARE(h.inRange(), std::uint64_t(0));
        QVERIFY(engine->compute(vectorscopeRequest(view, YCbCrStandard::Bt709, {0, 1, 2}), result).ok());
        QCOMPARE(result.histograms[0].slot(256 + 2, 256 + 2), std::uint64_t(1));
    }
}

void TestHistogram2D::invalidRequests_data()
{
    QTest::addColumn<int>("which");
    QTest::addColumn<int>("code");
    QTest::newRow("no pairs") << 0 << int(ErrorCode::InvalidArgument);
    QTest::newRow("five pairs") << 1 << int(ErrorCode::InvalidArgument);
    QTest::newRow("channel outside the pixel") << 2 << int(ErrorCode::InvalidArgument);
    QTest::newRow("luma of one channel") << 3 << int(ErrorCode::InvalidArgument);
    QTest::newRow("more than 2^24 cells") << 4 << int(ErrorCode::InvalidArgument);
    QTest::newRow("zero bins") << 5 << int(ErrorCode::InvalidArgument);
    QTest::newRow("1-D-only strategy") << 6 << int(ErrorCode::UnsupportedStrategy);
    QTest::newRow("rgb index outside") << 7 << int(ErrorCode::InvalidArgument);
    QTest::newRow("roi outside") << 8 << int(ErrorCode::InvalidArgument);
}

void TestHistogram2D::invalidRequests()
{
    QFETCH(int, which);
    QFETCH(int, code);
    std::vector<std::uint8_t> bytes(64 * 64 * 3, 7);
    ImageView view;
    view.data = bytes.data();
    view.width = 64;
    view.height = 64;
    view.channels = 3;
    Histogram2DRequest r = jointRequest(view, 0, 1);
    switch (which) {
    case 0: r.pairs.clear(); break;
    case 1: r.pairs.resize(5, r.pairs[0]); break;
    case 2: r.pairs[0].y.channel = 3; break;
    case 3: r.image.channels = 1; r.image.width = 64 * 3; r = lumaWaveformRequest(r.image, YCbCrStandard::Bt709, {0, 1, 2}); break;
    case 4: r.pairs[0].x.binning.bins = 8192; r.pairs[0].x.binning.hi = 8192; r.pairs[0].y.binning.bins = 4096; r.pairs[0].y.binning.hi = 4096; break;
    case 5: r.pairs[0].x.binning.bins = 0; break;
    case 6: r.strategy = Strategy::WarpAggregated; break;
    case 7: r = vectorscopeRequest(view, YCbCrStandard::Bt709, {0, 1, 3}); break;
    case 8: r.image.roi = Rect{60, 0, 10, 10}; break;
    }
    for (Histogram2DEngine* engine : {m_cpu.get(), m_gpu.get()}) {
        Histogram2DResult result = testing::poisoned2D();   // an earlier frame's grids
        const Status s = engine->compute(r, result);
        QCOMPARE(int(s.code), code);
        QVERIFY(!s.message.empty());
        QVERIFY(result.histograms.empty());   // none of them passes for this request's
        QCOMPARE(result.pixels, std::uint64_t(0));
    }
    Histogram2DResult ref;
    if (code == int(ErrorCode::InvalidArgument))
        QCOMPARE(int(referenceHistogram2D(r, ref).code), code);
}

void TestHistogram2D::strategyReasons()
{
    std::vector<std::uint8_t> bytes(640 * 48 * 3, 1);
    ImageView view;
    view.data = bytes.data();
    view.width = 640;
    view.height = 48;
    view.channels = 3;
    StrategyChoice choice;
    QVERIFY(m_cpu->chooseStrategy(paradeRequest(view, {0, 1, 2}), choice).ok());
    QCOMPARE(choice.strategy, Strategy::Cpu);
    QVERIFY(QString::fromStdString(choice.reason).contains("strips"));
    Histogram2DRequest cub = paradeRequest(view, {0, 1, 2});
    cub.strategy = Strategy::Cub;
    QCOMPARE(m_cpu->chooseStrategy(cub, choice).code, ErrorCode::NoDevice);
    if (!m_gpu->hasGpu())
        QSKIP("no CUDA device");
    QVERIFY(m_gpu->chooseStrategy(paradeRequest(view, {0, 1, 2}), choice).ok());
    QCOMPARE(choice.strategy, Strategy::Shared);
    QVERIFY(QString::fromStdString(choice.reason).contains("column strips"));
    QVERIFY(m_gpu->chooseStrategy(vectorscopeRequest(view, YCbCrStandard::Bt709, {0, 1, 2}), choice).ok());
    QCOMPARE(choice.strategy, Strategy::Shared);
    QVERIFY(QString::fromStdString(choice.reason).contains("joint tiles"));
}

QTEST_GUILESS_MAIN(TestHistogram2D)
#include "tst_histogram2d.moc"
