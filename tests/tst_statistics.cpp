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
    void floatEstimatesStayInsideTheData_data();
    void floatEstimatesStayInsideTheData();
    void coarseFollowsTheMiddleHalf_data();
    void coarseFollowsTheMiddleHalf();
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
    // The documented rule: the smallest value the bin holding the oracle's percentile can hold
    // (for integers the first integer at or above its lower edge), clamped to the data's
    // [min, max]; never outside the data (a 16-bit max is never 65536), never a fraction.
    const double width = 65536.0 / bins;
    auto firstValueOfBin = [&](double value) {
        const std::uint64_t bin = std::uint64_t(value) * std::uint64_t(bins) / 65536u;  // (v - lo) * bins / range
        return double((bin * 65536u + std::uint64_t(bins) - 1) / std::uint64_t(bins));  // ceil(bin * w)
    };
    for (std::size_t i = 0; i < hs::kPercentiles.size(); ++i) {
        const double value = o.percentile(hs::kPercentiles[i]);
        QCOMPARE(s.percentiles[i], std::clamp(firstValueOfBin(value), *o.min, *o.max));
        QVERIFY(s.percentiles[i] >= *o.min && s.percentiles[i] <= *o.max);
        QCOMPARE(s.percentiles[i], std::floor(s.percentiles[i]));
        QVERIFY(value - s.percentiles[i] < width);   // known to within one bin
    }
    QVERIFY(s.median >= *o.min && s.median <= *o.max);
    // The mean: from the centres of the bins cut to [min, max], so inside the data and within
    // half a bin of numpy's.
    QVERIFY(s.mean >= *o.min && s.mean <= *o.max);
    QVERIFY2(std::abs(s.mean - double(o.mean)) <= width / 2, qPrintable(QString::number(s.mean - double(o.mean))));
    QCOMPARE(s.resolution, width);
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

namespace {

// The bin the engine puts a float in, as docs/SCHEMA.md and HistogramTypes.h state it:
// floor((v - lo) * (float(bins) / (hi - lo))) in float32, the last bin for rounding up to it.
std::uint32_t floatBinOf(float v, float lo, float hi, std::uint32_t bins)
{
    const float scale = float(bins) / (hi - lo);
    return std::min(std::uint32_t((v - lo) * scale), bins - 1);
}

std::vector<float> floatSamples(int count, double lo, double hi, QRandomGenerator& rng)
{
    std::vector<float> v(static_cast<std::size_t>(count));
    for (float& x : v) {
        // A skewed bulk: most samples low, a tail up to hi.
        const double u = rng.generateDouble();
        x = float(lo + (hi - lo) * u * u);
    }
    return v;
}

}  // namespace

// Issue 20, item 5: a float channel binned over a range that one outlier (here another channel's)
// made 1e30 wide had mean 1.95e27 with max 2.5, and median -1.69 against numpy's 0.18. Every
// estimate stays inside [min, max] and within a bin of numpy's; estimates of bins too wide for
// the data say so (coarse).
void TestStatistics::floatEstimatesStayInsideTheData_data()
{
    QTest::addColumn<double>("dataLo");
    QTest::addColumn<double>("dataHi");
    QTest::addColumn<double>("rangeHi");   // the counted range is [dataLo, rangeHi)
    QTest::addColumn<int>("bins");
    QTest::addColumn<bool>("coarse");
    QTest::newRow("range widened to 1e30 by an outlier") << -2.97 << 2.5 << 1e30 << 256 << true;
    QTest::newRow("range widened to 1e6") << -2.97 << 2.5 << 1e6 << 256 << true;
    QTest::newRow("the channel's own range") << -2.97 << 2.5 << 2.5000002 << 256 << false;
    QTest::newRow("own range, 33 bins") << 0.0 << 37.25 << 37.250004 << 33 << false;
    QTest::newRow("own range, 1 bin") << 0.0 << 1.0 << 1.0000001 << 1 << true;
}

void TestStatistics::floatEstimatesStayInsideTheData()
{
    QFETCH(double, dataLo);
    QFETCH(double, dataHi);
    QFETCH(double, rangeHi);
    QFETCH(int, bins);
    QFETCH(bool, coarse);
    QRandomGenerator rng(seed() ^ qHash(QByteArray(QTest::currentDataTag())));
    std::vector<float> values = floatSamples(4099, dataLo, dataHi, rng);
    values[3] = float(dataLo);
    values[4] = float(dataHi);
    const hs::ChannelBinning binning{true, std::uint32_t(bins), double(float(dataLo)), rangeHi, false};
    const hs::ChannelHistogram h = histogramOf(values.data(), std::int64_t(values.size()), hs::SampleType::F32, binning);
    const Oracle o = oracleOf(std::vector<double>(values.begin(), values.end()), binning.lo, rangeHi, 0, 0);
    QCOMPARE(o.inRange, std::uint64_t(values.size()));
    hs::StatisticsContext context;
    context.type = hs::SampleType::F32;
    const hs::ChannelStatistics s = hs::computeStatistics(h, context);
    QVERIFY(!s.exact);
    QCOMPARE(s.min, o.min);
    QCOMPARE(s.max, o.max);
    const double width = (rangeHi - binning.lo) / bins;
    QCOMPARE(s.resolution, width);
    auto inside = [&](double v) { return v >= *o.min && v <= *o.max; };
    QVERIFY2(inside(s.mean), qPrintable(QString::number(s.mean)));
    QVERIFY2(inside(s.median), qPrintable(QString::number(s.median)));
    QVERIFY(inside(s.mode));
    for (double p : s.percentiles)
        QVERIFY(inside(p));
    // Within what the bins give: a position is a lower bound within one bin of numpy's, the
    // mean within half a bin (of the bin cut to the data), whatever the bins' width.
    const double cut = std::min(width, *o.max - *o.min);
    QVERIFY2(std::abs(s.mean - double(o.mean)) <= cut / 2 * (1 + 1e-6), qPrintable(QString::number(s.mean - double(o.mean))));
    QVERIFY(o.percentile(50) - s.median <= cut * (1 + 1e-6) && s.median <= o.percentile(50) + 1e-6 * cut);
    QCOMPARE(s.coarse, coarse);
}

// The flag's definition, from the samples: the oracle's 25th and 75th percentiles fall in one bin
// (by the engine's float formula) and that bin holds more than one value between min and max.
void TestStatistics::coarseFollowsTheMiddleHalf_data()
{
    QTest::addColumn<QString>("shape");
    QTest::newRow("spread over the range") << "spread";
    QTest::newRow("bulk in one bin, tail outside it") << "bulk";
    QTest::newRow("one value repeated (min = max)") << "constant";
    QTest::newRow("80 % at one value, the rest spread") << "spike";
    QTest::newRow("half below one edge, half above") << "straddle";
}

void TestStatistics::coarseFollowsTheMiddleHalf()
{
    QFETCH(QString, shape);
    QRandomGenerator rng(seed() ^ qHash(shape));
    const float lo = 0.0f, hi = 8.0f;
    const std::uint32_t bins = 64;   // bins of 0.125
    std::vector<float> values(3001);
    for (std::size_t i = 0; i < values.size(); ++i) {
        const float u = float(rng.generateDouble());
        if (shape == "spread")
            values[i] = 8.0f * u * 0.999f;
        else if (shape == "bulk")
            values[i] = i % 10 < 9 ? 2.0f + 0.1f * u : 7.0f * u;
        else if (shape == "constant")
            values[i] = 3.3f;
        else if (shape == "spike")
            values[i] = i % 10 < 8 ? 1.5f : 7.9f * u;
        else
            values[i] = i % 2 ? 1.99f + 0.009f * u : 2.0f + 0.01f * u;
    }
    const hs::ChannelHistogram h = histogramOf(values.data(), std::int64_t(values.size()), hs::SampleType::F32,
                                               hs::ChannelBinning{true, bins, lo, hi, false});
    const Oracle o = oracleOf(std::vector<double>(values.begin(), values.end()), lo, hi, 0, 0);
    const std::uint32_t q1 = floatBinOf(float(o.percentile(25)), lo, hi, bins);
    const std::uint32_t q3 = floatBinOf(float(o.percentile(75)), lo, hi, bins);
    const double binLo = lo + (hi - lo) / bins * q1, binHi = lo + (hi - lo) / bins * (q1 + 1);
    const bool moreThanOneValue = std::max(binLo, *o.min) < std::min(binHi, *o.max);
    const hs::ChannelStatistics s = hs::computeStatistics(h, {hs::SampleType::F32, {}, {}, {}});
    QCOMPARE(s.coarse, q1 == q3 && moreThanOneValue);
    if (shape == "bulk" || shape == "spike")
        QVERIFY(s.coarse);   // the rows mean what they say
    if (shape == "constant" || shape == "spread" || shape == "straddle")
        QVERIFY(!s.coarse);
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
