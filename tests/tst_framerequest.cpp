// Requests built from a frame and the settings: one range rule for every source, every finite
// sample inside a range taken from the data, ranges kept per kind of data, integer ranges that
// hold an integer, and no channel meaning nothing to count. Counts come from the reference
// histogram; expectations are computed here from the samples.
#include "tests/NumpyOracle.h"
#include "app/core/FrameRequest.h"

#include "histoscope/HistogramEngine.h"
#include "histoscope/HistogramStatistics.h"
#include "histoscope/ReferenceHistogram.h"

#include "gpu/testing/TestCases.h"

#include <QRandomGenerator>
#include <QtTest>

#include <cmath>

namespace {

// The run's seed from the shared fixtures (HISTOSCOPE_SEED replays it), printed once.
quint32 seed()
{
    static const quint32 value = [] {
        const std::uint64_t s = hs::testing::runSeed();
        qInfo("%s seed %llu (replay with HISTOSCOPE_SEED=%llu)", "tst_framerequest", static_cast<unsigned long long>(s),
              static_cast<unsigned long long>(s));
        return quint32(s ^ (s >> 32));
    }();
    return value;
}

template <typename T>
Frame makeFrame(std::vector<T> samples, hs::SampleType type, qint64 width, int channels, ChannelOrder order)
{
    auto owner = std::make_shared<std::vector<T>>(std::move(samples));
    const qint64 height = qint64(owner->size()) / (width * channels);
    Frame frame(owner, reinterpret_cast<const unsigned char*>(owner->data()), type, width, height, channels,
                std::size_t(width) * std::size_t(channels) * sizeof(T), order);
    if (type == hs::SampleType::U16)
        frame.setNominalRange(0, 65536);
    return frame;
}

hs::HistogramResult countOf(const hs::HistogramRequest& request)
{
    hs::HistogramResult result;
    if (!hs::referenceHistogram(request, result))
        qFatal("reference histogram failed");
    return result;
}

}  // namespace

class TestFrameRequest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { seed(); }
    void floatRangeHoldsEveryFiniteSample_data();
    void floatRangeHoldsEveryFiniteSample();
    void manualRangeBelongsToItsKind();
    void integerRangeWithoutAnIntegerFallsBack();
    void minMaxAndBitDepth_data();
    void minMaxAndBitDepth();
    void noChannelMeansNothingToCount();
    void outOfRangeIsWarned();
    void floatRangesArePerChannel();
    void sharedRangeHoldsEveryActiveChannel();
    void fractionalRangeOnIntegersIsWhatIsBinned_data();
    void fractionalRangeOnIntegersIsWhatIsBinned();
    void everyFiniteFloatSpanIsCountable_data();
    void everyFiniteFloatSpanIsCountable();
};

void TestFrameRequest::floatRangeHoldsEveryFiniteSample_data()
{
    QTest::addColumn<double>("lo");
    QTest::addColumn<double>("hi");
    QTest::addColumn<int>("mode");
    QTest::newRow("inside [0,1), type range") << 0.0 << 0.999 << int(RangeMode::DataType);
    QTest::newRow("-0.5..1.5 (a float .npy), type range") << -0.5 << 1.5 << int(RangeMode::DataType);
    QTest::newRow("HDR 0..37.25, type range") << 0.0 << 37.25 << int(RangeMode::DataType);
    QTest::newRow("-3..-1, min-max") << -3.0 << -1.0 << int(RangeMode::DataMinMax);
    QTest::newRow("0..1 exactly, min-max") << 0.0 << 1.0 << int(RangeMode::DataMinMax);
}

void TestFrameRequest::floatRangeHoldsEveryFiniteSample()
{
    QFETCH(double, lo);
    QFETCH(double, hi);
    QFETCH(int, mode);
    QRandomGenerator rng(seed());
    std::vector<float> samples(64 * 48);
    for (float& v : samples)
        v = float(lo + (hi - lo) * rng.generateDouble());
    samples[5] = float(hi);  // the largest sample itself must be counted, not "above"
    samples[6] = float(lo);
    samples[7] = std::numeric_limits<float>::infinity();
    samples[8] = std::nanf("");
    const Frame frame = makeFrame(samples, hs::SampleType::F32, 64, 1, ChannelOrder::Gray);
    CountSettings settings;
    settings.rangeMode = RangeMode(mode);
    const ResolvedRequest resolved = resolveRequest(frame, settings);
    QVERIFY(!resolved.error.isError());
    const hs::HistogramResult result = countOf(resolved.request);
    const hs::ChannelHistogram& h = result.channels.front();
    QCOMPARE(h.below, std::uint64_t(0));
    QCOMPARE(h.above, std::uint64_t(1));  // +inf only
    QCOMPARE(h.nan, std::uint64_t(1));
    QCOMPARE(h.inRange(), std::uint64_t(samples.size() - 2));
}

void TestFrameRequest::manualRangeBelongsToItsKind()
{
    CountSettings settings;
    settings.rangeMode = RangeMode::Manual;
    settings.manualRanges[std::size_t(RangeKind::Float)] = ValueRange{0.25, 0.75};
    QRandomGenerator rng(seed());
    std::vector<std::uint8_t> pixels(32 * 32 * 3);
    for (auto& p : pixels)
        p = std::uint8_t(rng.bounded(256));
    const Frame jpeg = makeFrame(pixels, hs::SampleType::U8, 32, 3, ChannelOrder::Bgr);
    const ResolvedRequest resolved = resolveRequest(jpeg, settings);
    QCOMPARE(resolved.request.binning[0].lo, 0.0);
    QCOMPARE(resolved.request.binning[0].hi, 256.0);
    QCOMPARE(resolved.notices.size(), 1);
    QVERIFY(resolved.notices.first().contains("int8"));
    const hs::HistogramResult result = countOf(resolved.request);
    QCOMPARE(result.channels.size(), std::size_t(3));
    QCOMPARE(result.channels[0].inRange(), std::uint64_t(32 * 32));

    settings.manualRanges[std::size_t(RangeKind::Int8)] = ValueRange{100, 200};
    const ResolvedRequest own = resolveRequest(jpeg, settings);
    QCOMPARE(own.request.binning[0].lo, 100.0);
    QVERIFY(own.notices.isEmpty());
}

void TestFrameRequest::integerRangeWithoutAnIntegerFallsBack()
{
    CountSettings settings;
    settings.rangeMode = RangeMode::Manual;
    settings.manualRanges[std::size_t(RangeKind::Int8)] = ValueRange{0.25, 0.75};
    const Frame frame = makeFrame(std::vector<std::uint8_t>{1, 2, 3, 250}, hs::SampleType::U8, 4, 1, ChannelOrder::Gray);
    const ResolvedRequest resolved = resolveRequest(frame, settings);
    QCOMPARE(resolved.request.binning[0].hi, 256.0);
    QCOMPARE(resolved.notices.size(), 1);
    QVERIFY(resolved.notices.first().contains("no integer"));
    QCOMPARE(countOf(resolved.request).channels[0].inRange(), std::uint64_t(4));
}

void TestFrameRequest::minMaxAndBitDepth_data()
{
    QTest::addColumn<int>("mode");
    QTest::addColumn<double>("expectLo");
    QTest::addColumn<double>("expectHi");
    QTest::newRow("min-max of 12-bit data") << int(RangeMode::DataMinMax) << 7.0 << 4096.0;
    QTest::newRow("12-bit depth") << int(RangeMode::BitDepth) << 0.0 << 4096.0;
    QTest::newRow("type range") << int(RangeMode::DataType) << 0.0 << 65536.0;
}

void TestFrameRequest::minMaxAndBitDepth()
{
    QFETCH(int, mode);
    QFETCH(double, expectLo);
    QFETCH(double, expectHi);
    QRandomGenerator rng(seed());
    std::vector<std::uint16_t> samples(40 * 30);
    for (auto& v : samples)
        v = std::uint16_t(7 + rng.bounded(4089));
    samples[3] = 4095;
    samples[4] = 7;
    const Frame frame = makeFrame(samples, hs::SampleType::U16, 40, 1, ChannelOrder::Gray);
    CountSettings settings;
    settings.rangeMode = RangeMode(mode);
    settings.bitDepth = 12;
    settings.bins = 0;  // one bin per value
    const ResolvedRequest resolved = resolveRequest(frame, settings);
    QCOMPARE(resolved.request.binning[0].lo, expectLo);
    QCOMPARE(hs::upperEdge(resolved.request.binning[0]), expectHi);
    QVERIFY(resolved.request.binning[0].identity);
    const hs::HistogramResult result = countOf(resolved.request);
    QCOMPARE(result.channels[0].inRange(), std::uint64_t(samples.size()));
}

void TestFrameRequest::noChannelMeansNothingToCount()
{
    const Frame rgb = makeFrame(std::vector<std::uint8_t>(8 * 8 * 3, 9), hs::SampleType::U8, 8, 3, ChannelOrder::Bgr);
    CountSettings settings;
    settings.channelMask = 0;
    const ResolvedRequest resolved = resolveRequest(rgb, settings);
    QVERIFY(resolved.error.isError());
    QVERIFY(resolved.error.message().contains("No channel"));
    for (int c = 0; c < 3; ++c)
        QVERIFY(!resolved.request.binning[c].active);

    settings.channelMask = 0x1;  // R only: storage channel 2 of BGR
    const ResolvedRequest red = resolveRequest(rgb, settings);
    QVERIFY(!red.error.isError());
    QVERIFY(!red.request.binning[0].active);
    QVERIFY(red.request.binning[2].active);
}

void TestFrameRequest::outOfRangeIsWarned()
{
    hs::HistogramResult result;
    hs::ChannelHistogram h;
    h.counts = {90, 5};
    h.below = 3;
    h.above = 2;
    h.nan = 50;
    result.channels.push_back(h);
    QVERIFY(outOfRangeWarning(result).contains("5 %"));
    result.channels[0].below = 0;
    result.channels[0].above = 0;
    QVERIFY(outOfRangeWarning(result).isEmpty());
}

namespace {

// An RGB float frame of `pixels` pixels, R, G and B drawn from skewed values in [-3, 2.5), with
// one 1e30 in B: what issue 20's item 5 made.
std::vector<float> outlierRgb(int pixels, QRandomGenerator& rng)
{
    std::vector<float> v(std::size_t(pixels) * 3);
    for (float& x : v) {
        const double u = rng.generateDouble();
        x = float(-3.0 + 5.5 * u * u);
    }
    v[3 * 17 + 2] = 1e30f;
    return v;
}

}  // namespace

// Issue 20, item 5: one float outlier in B widened every channel's default range to 1e30, and R
// reported mean 1.95e27 (max 2.5) and median -1.69 against numpy's 0.18. Each channel's range
// is now its own: R's and G's statistics are within a bin of numpy's; B's are flagged coarse.
void TestFrameRequest::floatRangesArePerChannel()
{
    QRandomGenerator rng(seed());
    const std::vector<float> samples = outlierRgb(64 * 48, rng);
    const Frame frame = makeFrame(samples, hs::SampleType::F32, 64, 3, ChannelOrder::Rgb);
    const ResolvedRequest resolved = resolveRequest(frame, CountSettings{});
    QVERIFY(!resolved.error.isError());
    const hs::HistogramResult result = countOf(resolved.request);
    QCOMPARE(result.channels.size(), std::size_t(3));
    for (const hs::ChannelHistogram& h : result.channels) {
        const auto [median, mean] = numpyoracle::medianMean(samples, 3, h.channel);
        const hs::ChannelStatistics s = hs::computeStatistics(h, statisticsContext(frame, h));
        QCOMPARE(s.count, std::uint64_t(64 * 48));   // every finite sample counted
        QVERIFY2(s.mean >= *s.min && s.mean <= *s.max && s.median >= *s.min && s.median <= *s.max,
                 qPrintable(QString::number(s.mean)));
        const double width = (hs::upperEdge(h.binning) - h.binning.lo) / h.binning.bins;
        if (h.channel == 2) {
            QVERIFY(hs::upperEdge(h.binning) > 1e30);
            QVERIFY(s.coarse);   // B's own range is 1e30 wide: its estimates say so
            continue;
        }
        QVERIFY2(hs::upperEdge(h.binning) < 2.6, qPrintable(QString::number(hs::upperEdge(h.binning))));
        QVERIFY(!s.coarse);
        QVERIFY2(std::abs(s.mean - mean) <= width / 2, qPrintable(QString("%1 vs numpy %2").arg(s.mean).arg(mean)));
        QVERIFY(median - s.median >= 0 && median - s.median <= width);
    }
}

// The app's scope: one range for the channels its plot draws on one axis, holding every active
// channel's data and the samples asked for besides (the luma plane), and only theirs.
void TestFrameRequest::sharedRangeHoldsEveryActiveChannel()
{
    QRandomGenerator rng(seed());
    const std::vector<float> samples = outlierRgb(32 * 32, rng);
    const Frame frame = makeFrame(samples, hs::SampleType::F32, 32, 3, ChannelOrder::Rgb);
    const RangeOptions shared{RangeScope::Shared, {}, ValueRange{-7.0, 0.0}};
    const ResolvedRequest all = resolveRequest(frame, CountSettings{}, std::nullopt, shared);
    for (int c = 0; c < 3; ++c) {
        QCOMPARE(all.request.binning[c].lo, -7.0);
        QCOMPARE(all.request.binning[c].hi, all.request.binning[0].hi);
    }
    QVERIFY(all.request.binning[0].hi > 1e30);
    CountSettings noBlue;
    noBlue.channelMask = 0x3;   // R and G: B's outlier no longer sets their range
    const ResolvedRequest rg = resolveRequest(frame, noBlue, std::nullopt, shared);
    QVERIFY(!rg.request.binning[2].active);
    QVERIFY(rg.request.binning[0].hi < 2.6 && rg.request.binning[0].hi == rg.request.binning[1].hi);
}

// Issue 20, item 6: --range 100.25:200.75 --bins 33 on 16-bit data counted [101, 201) but
// recorded [100.25, 200.75), so edges rebuilt from the record were up to 33 % off per bin. The
// range binned is the range given back, with a notice that says so.
void TestFrameRequest::fractionalRangeOnIntegersIsWhatIsBinned_data()
{
    QTest::addColumn<double>("lo");
    QTest::addColumn<double>("hi");
    QTest::addColumn<int>("bins");
    QTest::addColumn<double>("binnedLo");
    QTest::addColumn<double>("binnedHi");
    QTest::newRow("100.25:200.75, 33 bins") << 100.25 << 200.75 << 33 << 101.0 << 201.0;
    QTest::newRow("-0.5:4095.5, 256 bins") << -0.5 << 4095.5 << 256 << 0.0 << 4096.0;
    QTest::newRow("99.9:100.1, 1 bin") << 99.9 << 100.1 << 1 << 100.0 << 101.0;
}

void TestFrameRequest::fractionalRangeOnIntegersIsWhatIsBinned()
{
    QFETCH(double, lo);
    QFETCH(double, hi);
    QFETCH(int, bins);
    QFETCH(double, binnedLo);
    QFETCH(double, binnedHi);
    QRandomGenerator rng(seed());
    std::vector<std::uint16_t> samples(50 * 40);
    for (auto& v : samples)
        v = std::uint16_t(rng.bounded(4200));
    const Frame frame = makeFrame(samples, hs::SampleType::U16, 50, 1, ChannelOrder::Gray);
    CountSettings settings;
    settings.rangeMode = RangeMode::Manual;
    settings.bins = bins;
    settings.manualRanges[std::size_t(RangeKind::Int16)] = ValueRange{lo, hi};
    const ResolvedRequest resolved = resolveRequest(frame, settings);
    const hs::ChannelBinning& b = resolved.request.binning[0];
    QCOMPARE(b.lo, binnedLo);
    QCOMPARE(hs::upperEdge(b), binnedHi);
    QCOMPARE(resolved.notices.size(), 1);
    QVERIFY2(resolved.notices.first().contains(QStringLiteral("[%1, %2)").arg(binnedLo).arg(binnedHi)), qPrintable(resolved.notices.first()));
    // The edges a reader rebuilds from lo, hi and bins (docs/SCHEMA.md: bin i covers
    // [lo + i w, lo + (i + 1) w)) give the engine's counts exactly.
    std::vector<std::uint64_t> rebuilt(std::size_t(bins), 0);
    const double w = (b.hi - b.lo) / bins;
    for (std::uint16_t v : samples)
        if (v >= b.lo && v < b.hi)
            ++rebuilt[std::min<std::size_t>(std::size_t(std::floor((v - b.lo) / w)), std::size_t(bins) - 1)];
    QVERIFY(countOf(resolved.request).channels[0].counts == rebuilt);
}

// Issue 20, item 7: [3.4e38, -3.4e38, 0.5] could not be counted at default settings ("range is
// too narrow or too wide for 32-bit floats"). The automatic range is one the engine takes for
// every finite float input; samples beyond it are counted in below and above, and said.
void TestFrameRequest::everyFiniteFloatSpanIsCountable_data()
{
    constexpr float max = std::numeric_limits<float>::max();
    QTest::addColumn<float>("lo");
    QTest::addColumn<float>("hi");
    QTest::addColumn<int>("mode");
    QTest::addColumn<bool>("narrowed");
    QTest::newRow("±3.4e38, type range") << -3.4e38f << 3.4e38f << int(RangeMode::DataType) << true;
    QTest::newRow("±3.4e38, min-max") << -3.4e38f << 3.4e38f << int(RangeMode::DataMinMax) << true;
    QTest::newRow("±FLT_MAX, type range") << -max << max << int(RangeMode::DataType) << true;
    QTest::newRow("0..FLT_MAX, type range") << 0.0f << max << int(RangeMode::DataType) << true;
    QTest::newRow("-1e38..3.4e38, type range") << -1e38f << 3.4e38f << int(RangeMode::DataType) << true;
    QTest::newRow("-3.4e38..1e38, min-max") << -3.4e38f << 1e38f << int(RangeMode::DataMinMax) << true;
    QTest::newRow("±1.7e38, type range") << -1.7e38f << 1.7e38f << int(RangeMode::DataType) << false;
}

void TestFrameRequest::everyFiniteFloatSpanIsCountable()
{
    QFETCH(float, lo);
    QFETCH(float, hi);
    QFETCH(int, mode);
    QFETCH(bool, narrowed);
    QRandomGenerator rng(seed());
    std::vector<float> samples(40 * 3);
    for (float& v : samples)
        v = float(rng.generateDouble() - 0.5);
    samples[0] = hi;
    samples[1] = lo;
    samples[2] = 0.5f;
    const Frame frame = makeFrame(samples, hs::SampleType::F32, 40, 1, ChannelOrder::Gray);
    CountSettings settings;
    settings.rangeMode = RangeMode(mode);
    const ResolvedRequest resolved = resolveRequest(frame, settings);
    QVERIFY(!resolved.error.isError());
    // The engine takes it, on its CPU backend as in the reference.
    hs::HistogramEngine engine(hs::EngineOptions{});
    hs::HistogramResult result;
    const hs::Status status = engine.compute(resolved.request, result);
    QVERIFY2(status.ok(), status.message.c_str());
    QVERIFY(result == countOf(resolved.request));
    const hs::ChannelHistogram& h = result.channels.front();
    QCOMPARE(h.total(), std::uint64_t(samples.size()));
    QCOMPARE(h.minValue, double(*std::min_element(samples.begin(), samples.end())));
    QCOMPARE(h.maxValue, double(hi));
    QCOMPARE(resolved.notices.join(' ').contains("wider than 32-bit floats can bin"), narrowed);
    // Every sample inside [-1.7e38, 1.7e38] is binned; only the ones beyond it can be outside.
    std::uint64_t beyond = 0;
    for (float v : samples)
        beyond += std::abs(v) > std::numeric_limits<float>::max() / 2;
    QVERIFY(h.below + h.above <= beyond);
    QVERIFY(h.inRange() >= samples.size() - beyond);
    const hs::ChannelStatistics s = hs::computeStatistics(h, statisticsContext(frame, h));
    QVERIFY(s.median >= h.minValue && s.median <= h.maxValue && s.mean >= h.minValue && s.mean <= h.maxValue);
}

QTEST_APPLESS_MAIN(TestFrameRequest)
#include "tst_framerequest.moc"
