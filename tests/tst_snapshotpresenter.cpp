// The app's Statistics panel (app/gui/SnapshotPresenter.cpp) on snapshots counted as the
// histogram worker counts them (countJob on a CPU engine), against numbers computed here from
// the samples (numpy's median and mean). Issue 18: float percentiles were bin-rounded but shown
// with six digits and no "≈", and two identical channels showed medians 1.73242 and 1.75.
// Issue 20, item 5: one outlier made every channel's statistics meaningless without a word.
#include "tests/NumpyOracle.h"
#include "app/core/HistogramCounting.h"
#include "app/core/LumaPlane.h"
#include "app/gui/SnapshotPresenter.h"

#include "gpu/testing/TestCases.h"

#include <QRandomGenerator>
#include <QtTest>

#include <algorithm>
#include <cmath>

namespace {

quint32 seed()
{
    static const quint32 value = [] {
        const std::uint64_t s = hs::testing::runSeed();
        qInfo("%s seed %llu (replay with HISTOSCOPE_SEED=%llu)", "tst_snapshotpresenter", static_cast<unsigned long long>(s),
              static_cast<unsigned long long>(s));
        return quint32(s ^ (s >> 32));
    }();
    return value;
}

Frame rgbFrame(std::vector<float> samples, qint64 width)
{
    auto owner = std::make_shared<std::vector<float>>(std::move(samples));
    const qint64 height = qint64(owner->size()) / (width * 3);
    return Frame(owner, reinterpret_cast<const unsigned char*>(owner->data()), hs::SampleType::F32, width, height, 3,
                 std::size_t(width) * 3 * sizeof(float), ChannelOrder::Rgb);
}

std::shared_ptr<HistogramSnapshot> count(const Frame& frame, LumaCoefficients luma = LumaCoefficients::None)
{
    hs::EngineOptions options;
    options.useGpu = false;
    hs::HistogramEngine engine(options);
    HistogramJob job;
    job.frame = frame;
    job.settings.display.luma = luma;
    job.generation = 1;
    auto snapshot = countJob(engine, job);
    if (snapshot->error.isError())
        qFatal("count failed: %s", qPrintable(snapshot->error.message()));
    return snapshot;
}

int columnOf(const TableContent& t, const QString& name) { return int(t.columns.indexOf(name)); }
QString cell(const TableContent& t, const QString& row, const QString& column)
{
    return t.cells[t.rowLabels.indexOf(row)][columnOf(t, column)];
}

const QStringList kPositionRows{"mean", "std dev (population)", "median", "mode", "p1", "p5", "p25", "p75", "p95", "precision"};

}  // namespace

class TestSnapshotPresenter : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { seed(); }
    void estimatesShowTheBinsPrecision();
    void identicalChannelsReadTheSame();
    void anOutlierSaysWhatItDoes();
    void exactStatisticsStayExact();
};

// An estimate reads "≈" with the digits the bins give, and is within a bin of numpy's.
void TestSnapshotPresenter::estimatesShowTheBinsPrecision()
{
    QRandomGenerator rng(seed());
    std::vector<float> samples(96 * 64 * 3);
    for (float& v : samples)
        v = float(-0.5 + 4.5 * rng.generateDouble());
    const auto snapshot = count(rgbFrame(samples, 96));
    const TableContent t = statisticsTable(*snapshot);
    for (const QString channel : {"R", "G", "B"}) {
        const hs::ChannelHistogram& h = snapshot->result.channels[std::size_t(columnOf(t, channel))];
        const double width = (hs::upperEdge(h.binning) - h.binning.lo) / h.binning.bins;   // ≈ 0.0176
        const int decimals = -int(std::floor(std::log10(width)));
        const auto [median, mean] = numpyoracle::medianMean(samples, 3, h.channel);
        for (const QString row : {"median", "mean"}) {
            const QString text = cell(t, row, channel);
            QVERIFY2(text.startsWith(QStringLiteral("≈")), qPrintable(text));
            const QString digits = text.mid(1);
            QCOMPARE(digits.size() - digits.indexOf('.') - 1, decimals);   // 1.73, not 1.73242
            const double truth = row == "median" ? median : mean;
            QVERIFY2(std::abs(digits.toDouble() - truth) <= width + std::pow(10.0, -decimals) / 2,
                     qPrintable(QStringLiteral("%1 %2: %3 vs numpy %4").arg(channel, row, text).arg(truth)));
        }
        QCOMPARE(cell(t, "precision", channel), QStringLiteral("bins of %1").arg(QString::number(width, 'g', 3)));
    }
}

// A grey image stored as RGB: R, G, B and its luma hold the same values, so they read the same.
// The luma plane used to be binned over its own range, ulps away from the channels', so a
// sample on a bin edge fell on the other side of it.
void TestSnapshotPresenter::identicalChannelsReadTheSame()
{
    QRandomGenerator rng(seed());
    // Values on a 1/1024 grid in [-0.5, 4) whose BT.709 luma is exactly the value, so the luma
    // plane holds the channels' data; and a largest value whose luma is not (one ulp above).
    auto lumaOf = [](float x) {
        const Frame one = rgbFrame({x, x, x}, 1);
        return reinterpret_cast<const float*>(lumaPlane(one, LumaCoefficients::Bt709)->data())[0];
    };
    std::vector<float> exact;
    float top = 0;
    for (int k = -512; k < 4096; ++k) {
        const float x = float(k) / 1024.0f;
        if (lumaOf(x) == x)
            exact.push_back(x);
        else if (x > 3.9f && lumaOf(x) > x)
            top = x;
    }
    QVERIFY(exact.size() > 1000 && top > 0);
    std::vector<float> samples;
    for (int i = 0; i < 80 * 60; ++i) {
        const float x = i % 5 == 0 ? 1.75f : exact[rng.bounded(quint32(exact.size()))];
        samples.insert(samples.end(), {x, x, x});
    }
    samples.insert(samples.end(), {top, top, top});
    samples.insert(samples.end(), 3 * 79, 1.75f);   // whole rows
    const auto snapshot = count(rgbFrame(samples, 80), LumaCoefficients::Bt709);
    QVERIFY(snapshot->luma);
    // One grid for all of them.
    for (const hs::ChannelHistogram& h : snapshot->result.channels)
        QVERIFY(h.binning.lo == snapshot->luma->binning.lo && h.binning.hi == snapshot->luma->binning.hi);
    const TableContent t = statisticsTable(*snapshot);
    QCOMPARE(t.columns, (QStringList{"R", "G", "B", "luma"}));
    for (const QString& row : kPositionRows) {
        for (const QString channel : {"G", "B"})
            QCOMPARE(cell(t, row, channel), cell(t, row, "R"));
        // Luma's largest sample is an ulp above R's, so its mean may differ in the last place;
        // every position is the same.
        if (row != "mean" && !row.startsWith("std"))
            QCOMPARE(cell(t, row, "luma"), cell(t, row, "R"));
    }
}

// Issue 20, item 5, in the app: one 1e30 in B. The plot draws every channel on one axis, so they
// share one range; R's and G's statistics then say they are coarse, the notice says why, and no
// mean or median leaves [min, max].
void TestSnapshotPresenter::anOutlierSaysWhatItDoes()
{
    QRandomGenerator rng(seed());
    std::vector<float> samples(64 * 64 * 3);
    for (float& v : samples) {
        const double u = rng.generateDouble();
        v = float(-2.97 + 5.47 * u * u);
    }
    samples[3 * 100 + 2] = 1e30f;
    const auto snapshot = count(rgbFrame(samples, 64));
    const TableContent t = statisticsTable(*snapshot);
    for (std::size_t i = 0; i < snapshot->statistics.size(); ++i) {
        const hs::ChannelStatistics& s = snapshot->statistics[i];
        QVERIFY(s.mean >= *s.min && s.mean <= *s.max);
        QVERIFY(s.median >= *s.min && s.median <= *s.max);
    }
    for (const QString channel : {"R", "G"}) {
        QVERIFY2(cell(t, "precision", channel).startsWith("coarse: bins of"), qPrintable(cell(t, "precision", channel)));
        QVERIFY(cell(t, "mean", channel).startsWith(QStringLiteral("≈")));
    }
    const QString notices = snapshot->notices.join('\n');
    QVERIFY2(notices.contains("R, G: coarse statistics") && notices.contains("one range"), qPrintable(notices));

    // Without B, R and G are binned over their own data again, and are not coarse.
    hs::EngineOptions options;
    options.useGpu = false;
    hs::HistogramEngine engine(options);
    HistogramJob job;
    job.frame = rgbFrame(samples, 64);
    job.settings.counting.channelMask = 0x3;
    job.settings.display.luma = LumaCoefficients::None;
    const auto rg = countJob(engine, job);
    QVERIFY(!rg->error.isError());
    for (const hs::ChannelStatistics& s : rg->statistics)
        QVERIFY(!s.coarse);
    QVERIFY(!rg->notices.join('\n').contains("coarse"));
}

// One bin per value: exact numbers, no "≈".
void TestSnapshotPresenter::exactStatisticsStayExact()
{
    QRandomGenerator rng(seed());
    auto owner = std::make_shared<std::vector<std::uint8_t>>(40 * 30);
    for (auto& v : *owner)
        v = std::uint8_t(rng.bounded(256));
    const Frame gray(owner, owner->data(), hs::SampleType::U8, 40, 30, 1, 40, ChannelOrder::Gray);
    hs::EngineOptions options;
    options.useGpu = false;
    hs::HistogramEngine engine(options);
    HistogramJob job;
    job.frame = gray;
    const TableContent t = statisticsTable(*countJob(engine, job));
    QCOMPARE(cell(t, "precision", "gray"), QStringLiteral("exact"));
    for (const QString& row : kPositionRows)
        QVERIFY2(!cell(t, row, "gray").contains(QStringLiteral("≈")), qPrintable(row));
}

QTEST_MAIN(TestSnapshotPresenter)
#include "tst_snapshotpresenter.moc"
