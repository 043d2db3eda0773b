// Requests built from a frame and the settings: one range rule for every source, every finite
// sample inside a range taken from the data, ranges kept per kind of data, integer ranges that
// hold an integer, and no channel meaning nothing to count. Counts come from the reference
// histogram; expectations are computed here from the samples.
#include "app/core/FrameRequest.h"

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

QTEST_APPLESS_MAIN(TestFrameRequest)
#include "tst_framerequest.moc"
