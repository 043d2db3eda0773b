// Statistics against an oracle written here from the samples themselves (numpy's definitions:
// percentiles by the inverted-CDF rule, exact mean, population and sample deviation), never
// against our own histogram code. HISTOSCOPE_SEED=N replays a run.
#include "histoscope/HistogramStatistics.h"
#include "histoscope/ReferenceHistogram.h"

#include "gpu/testing/TestCases.h"

#include <QRandomGenerator>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>

namespace {

struct Oracle {
    std::optional<double> min, max;
    std::uint64_t inRange = 0;
    long double mean = 0, stdPopulation = 0, stdSample = 0;
    std::vector<double> sorted;  // in-range samples
    double mode = 0;
    std::uint64_t atLow = 0, atHigh = 0, nonNan = 0;

    // numpy.percentile(x, p, method="inverted_cdf"): the smallest x with F(x) >= p/100.
    double percentile(double p) const
    {
        const long double position = std::ceil((long double)p / 100.0L * (long double)sorted.size());
        const std::size_t index = std::size_t(std::max<long double>(1, position)) - 1;
        return sorted[std::min(index, sorted.size() - 1)];
    }
};

Oracle oracleOf(const std::vector<double>& samples, double lo, double hi, double typeLow, double typeHigh)
{
    Oracle o;
    for (double v : samples) {
        if (std::isnan(v))
            continue;
        ++o.nonNan;
        o.min = o.min ? std::min(*o.min, v) : v;
        o.max = o.max ? std::max(*o.max, v) : v;
        o.atLow += v == typeLow;
        o.atHigh += v == typeHigh;
        if (v >= lo && v < hi)
            o.sorted.push_back(v);
    }
    std::sort(o.sorted.begin(), o.sorted.end());
    o.inRange = o.sorted.size();
    if (o.sorted.empty())
        return o;
    long double sum = 0;
    for (double v : o.sorted)
        sum += v;
    o.mean = sum / o.sorted.size();
    long double squares = 0;
    for (double v : o.sorted)
        squares += (v - o.mean) * (v - o.mean);
    o.stdPopulation = std::sqrt(squares / o.sorted.size());
    o.stdSample = o.sorted.size() > 1 ? std::sqrt(squares / (o.sorted.size() - 1)) : 0;
    std::map<double, std::uint64_t> frequency;
    for (double v : o.sorted)
        ++frequency[v];
    std::uint64_t best = 0;
    for (const auto& [value, n] : frequency)
        if (n > best) {
            best = n;
            o.mode = value;
        }
    return o;
}

// The run's seed from the shared fixtures (HISTOSCOPE_SEED replays it), printed once.
quint32 seed()
{
    static const quint32 value = [] {
        const std::uint64_t s = hs::testing::runSeed();
        qInfo("%s seed %llu (replay with HISTOSCOPE_SEED=%llu)", "tst_statistics", static_cast<unsigned long long>(s),
              static_cast<unsigned long long>(s));
        return quint32(s ^ (s >> 32));
    }();
    return value;
}

enum class Shape { Uniform, Skewed, Extremes, Narrow, Single };

std::vector<std::uint16_t> makeSamples(Shape shape, int count, int maxValue, QRandomGenerator& rng)
{
    std::vector<std::uint16_t> v(static_cast<std::size_t>(count));
    for (auto& x : v) {
        switch (shape) {
        case Shape::Uniform: x = std::uint16_t(rng.bounded(maxValue + 1)); break;
        case Shape::Skewed: x = std::uint16_t(rng.bounded(10) < 7 ? maxValue / 3 : rng.bounded(maxValue + 1)); break;
        case Shape::Extremes: x = std::uint16_t(rng.bounded(4) == 0 ? (rng.bounded(2) ? maxValue : 0) : rng.bounded(maxValue + 1)); break;
        case Shape::Narrow: x = std::uint16_t(maxValue / 2 + int(rng.bounded(7)) - 3); break;
        case Shape::Single: x = std::uint16_t(30); break;
        }
    }
    return v;
}

hs::ChannelHistogram histogramOf(const void* data, std::int64_t count, hs::SampleType type, const hs::ChannelBinning& binning)
{
    const hs::HistogramRequest request = hs::makeRequest(hs::keysView(data, std::size_t(count), type), binning, hs::Strategy::Cpu);
    hs::HistogramResult result;
    if (!hs::referenceHistogram(request, result) || result.channels.size() != 1)
        qFatal("reference histogram failed");
    return result.channels.front();
}

}  // namespace

class TestStatistics : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { seed(); }
    void integerOneBinPerValue_data();
    void integerOneBinPerValue();
    void wideBinsStayInsideTheData_data();
    void wideBinsStayInsideTheData();
    void floatsClipOutsideTheRange();
    void emptyHistogram();
};

void TestStatistics::integerOneBinPerValue_data()
{
    QTest::addColumn<int>("shape");
    QTest::addColumn<int>("count");
    QTest::addColumn<int>("type");
    QTest::addColumn<int>("maxValue");   // the data's largest possible value
    QTest::addColumn<int>("bitDepth");   // 0: the type's own
    QTest::newRow("1x1 value 30 (median 30, not 30.5)") << int(Shape::Single) << 1 << int(hs::SampleType::U8) << 255 << 0;
    QTest::newRow("u8 uniform") << int(Shape::Uniform) << 10007 << int(hs::SampleType::U8) << 255 << 0;
    QTest::newRow("u8 skewed") << int(Shape::Skewed) << 4096 << int(hs::SampleType::U8) << 255 << 0;
    QTest::newRow("u8 with clipped extremes") << int(Shape::Extremes) << 5000 << int(hs::SampleType::U8) << 255 << 0;
    QTest::newRow("u8 two samples") << int(Shape::Uniform) << 2 << int(hs::SampleType::U8) << 255 << 0;
    QTest::newRow("12-bit in u16") << int(Shape::Uniform) << 20011 << int(hs::SampleType::U16) << 4095 << 0;
    QTest::newRow("12-bit in u16, 12-bit depth") << int(Shape::Extremes) << 20011 << int(hs::SampleType::U16) << 4095 << 12;
    QTest::newRow("u16 full range with extremes") << int(Shape::Extremes) << 30000 << int(hs::SampleType::U16) << 65535 << 0;
    QTest::newRow("u16 narrow") << int(Shape::Narrow) << 999 << int(hs::SampleType::U16) << 65535 << 0;
}

void TestStatistics::integerOneBinPerValue()
{
    QFETCH(int, shape);
    QFETCH(int, count);
    QFETCH(int, type);
    QFETCH(int, maxValue);
    QFETCH(int, bitDepth);
    QRandomGenerator rng(seed() ^ qHash(QByteArray(QTest::currentDataTag())));
    const std::vector<std::uint16_t> values = makeSamples(Shape(shape), count, maxValue, rng);
    const auto sampleType = hs::SampleType(type);
    std::vector<std::uint8_t> bytes;
    const void* data = values.data();
    if (sampleType == hs::SampleType::U8) {
        bytes.assign(values.begin(), values.end());
        data = bytes.data();
    }
    const hs::ChannelHistogram h = histogramOf(data, count, sampleType, hs::defaultBinning(sampleType));
    QVERIFY(h.binning.identity);

    const double typeHigh = bitDepth ? std::ldexp(1.0, bitDepth) - 1 : (sampleType == hs::SampleType::U8 ? 255.0 : 65535.0);
    const Oracle o = oracleOf(std::vector<double>(values.begin(), values.end()), h.binning.lo, hs::upperEdge(h.binning), 0, typeHigh);
    hs::StatisticsContext context;
    context.type = sampleType;
    if (bitDepth)
        context.bitDepth = bitDepth;
    const hs::ChannelStatistics s = hs::computeStatistics(h, context);

    QVERIFY(s.exact);
    QCOMPARE(s.count, o.inRange);
    QCOMPARE(s.min, o.min);
    QCOMPARE(s.max, o.max);
    QCOMPARE(s.median, o.percentile(50));
    for (std::size_t i = 0; i < hs::kPercentiles.size(); ++i)
        QCOMPARE(s.percentiles[i], o.percentile(hs::kPercentiles[i]));
    QCOMPARE(s.mode, o.mode);
    QVERIFY(std::abs(s.mean - double(o.mean)) <= 1e-12 * std::max(1.0, std::abs(double(o.mean))));
    QVERIFY(std::abs(s.stdDevPopulation - double(o.stdPopulation)) <= 1e-9 * std::max(1.0, double(o.stdPopulation)));
    QVERIFY(std::abs(s.stdDevSample - double(o.stdSample)) <= 1e-9 * std::max(1.0, double(o.stdSample)));
    QVERIFY(s.clippedLowShare && s.clippedHighShare);
    QCOMPARE(*s.clippedLowShare, double(o.atLow) / double(o.nonNan));
    QCOMPARE(*s.clippedHighShare, double(o.atHigh) / double(o.nonNan));
    // Positions are values of the data.
    QVERIFY(std::binary_search(o.sorted.begin(), o.sorted.end(), s.median));
}

void TestStatistics::wideBinsStayInsideTheData_data()
{
    QTest::addColumn<int>("shape");
    QTest::addColumn<int>("bins");
    QTest::newRow("u16 uniform, 256 bins") << int(Shape::Uniform) << 256;
    QTest::newRow("u16 narrow, 256 bins") << int(Shape::Narrow) << 256;
    QTest::newRow("u16 extremes, 100 bins") << int(Shape::Extremes) << 100;
}

void TestStatistics::wideBinsStayInsideTheData()
{
    QFETCH(int, shape);
    QFETCH(int, bins);
    QRandomGenerator rng(seed() ^ qHash(QByteArray(QTest::currentDataTag())));
    const std::vector<std::uint16_t> values = makeSamples(Shape(shape), 7001, 65535, rng);
    hs::ChannelBinning binning{true, std::uint32_t(bins), 0.0, 65536.0, false};
    const hs::ChannelHistogram h = histogramOf(values.data(), std::int64_t(values.size()), hs::SampleType::U16, binning);
    const Oracle o = oracleOf(std::vector<double>(values.begin(), values.end()), 0, 65536, 0, 65535);
    hs::StatisticsContext context;
    context.type = hs::SampleType::U16;
    context.dataMin = o.min;
    context.dataMax = o.max;
    const hs::ChannelStatistics s = hs::computeStatistics(h, context);
    QVERIFY(!s.exact);
    QCOMPARE(s.min, o.min);
    QCOMPARE(s.max, o.max);
    // The documented rule: the lower edge of the bin holding the oracle's percentile, clamped
    // to the data's [min, max]; never outside the data (a 16-bit max is never 65536).
    const double width = 65536.0 / bins;
    for (std::size_t i = 0; i < hs::kPercentiles.size(); ++i) {
        const double value = o.percentile(hs::kPercentiles[i]);
        const double edge = std::floor(value / width) * width;
        QCOMPARE(s.percentiles[i], std::clamp(edge, *o.min, *o.max));
        QVERIFY(s.percentiles[i] >= *o.min && s.percentiles[i] <= *o.max);
    }
    QVERIFY(s.median >= *o.min && s.median <= *o.max);
    // A wide bin that holds 0 or 65535 with other values cannot tell how many hit the extreme.
    if (*o.min > 0)
        QCOMPARE(s.clippedLowShare, std::optional<double>(0.0));
    else
        QVERIFY(!s.clippedLowShare);
}

void TestStatistics::floatsClipOutsideTheRange()
{
    QRandomGenerator rng(seed());
    std::vector<float> values(5003);
    for (float& v : values)
        v = float(rng.generateDouble() * 2.0 - 0.5);  // -0.5 .. 1.5, half outside [0, 1)
    values[17] = std::nanf("");
    hs::ChannelBinning binning{true, 64, 0.0, 1.0, false};
    const hs::ChannelHistogram h = histogramOf(values.data(), std::int64_t(values.size()), hs::SampleType::F32, binning);
    const Oracle o = oracleOf(std::vector<double>(values.begin(), values.end()), 0.0, 1.0, 0, 0);
    std::uint64_t below = 0, above = 0;
    for (float v : values) {
        below += v < 0.0f;
        above += v >= 1.0f;
    }
    hs::StatisticsContext context;
    context.type = hs::SampleType::F32;
    context.dataMin = o.min;
    context.dataMax = o.max;
    const hs::ChannelStatistics s = hs::computeStatistics(h, context);
    QCOMPARE(s.nan, std::uint64_t(1));
    QCOMPARE(s.count, o.inRange);
    QCOMPARE(*s.clippedLowShare, double(below) / double(o.nonNan));
    QCOMPARE(*s.clippedHighShare, double(above) / double(o.nonNan));
    QCOMPARE(s.min, o.min);   // -0.5..., not the range's 0
    QVERIFY(s.median >= 0.0 && s.median < 1.0);
}

void TestStatistics::emptyHistogram()
{
    hs::ChannelHistogram h;
    h.binning = hs::defaultBinning(hs::SampleType::U8);
    h.counts.assign(256, 0);
    h.nan = 3;
    const hs::ChannelStatistics s = hs::computeStatistics(h, {hs::SampleType::U8, {}, {}, {}});
    QCOMPARE(s.count, std::uint64_t(0));
    QVERIFY(!s.min && !s.max);
    QVERIFY(!s.clippedLowShare);
}

QTEST_APPLESS_MAIN(TestStatistics)
#include "tst_statistics.moc"
