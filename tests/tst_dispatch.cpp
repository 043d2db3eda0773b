// The `auto` rule's choice for 8-bit data against the device's shared memory: `per-lane` needs
// 32 KiB of lane columns per interleaved channel, so on devices with less opt-in shared memory
// (99 KiB on sm_86/89/120, 64 KiB on sm_75) `auto` must not pick it for three or four channels,
// or every such count would be refused at launch. And beyond opt-in shared memory, the rule's
// reading of the skew sample: one hot bin, a full bucket of `partition`, many buckets. Host-side:
// the rule needs no device.
#include "gpu/cuda/Dispatch.h"
#include "gpu/cuda/Tuning.h"

#include <QTest>

#include <algorithm>
#include <random>
#include <vector>

using namespace hs;

Q_DECLARE_METATYPE(hs::Strategy)

class TestDispatch : public QObject {
    Q_OBJECT

private slots:
    void eightBitAutoFitsTheDevice_data();
    void eightBitAutoFitsTheDevice();
    void bigSlotSetsFollowTheSample_data();
    void bigSlotSetsFollowTheSample();
};

void TestDispatch::eightBitAutoFitsTheDevice_data()
{
    QTest::addColumn<int>("computeMajor");
    QTest::addColumn<int>("optinKiB");
    QTest::addColumn<int>("channels");
    QTest::addColumn<int>("bins");
    QTest::addColumn<bool>("perLane");
    QTest::newRow("H200 RGB 256 bins") << 9 << 227 << 3 << 256 << true;
    QTest::newRow("H200 RGBA 2 bins") << 9 << 227 << 4 << 2 << true;
    QTest::newRow("H200 gray 256 bins") << 9 << 227 << 1 << 256 << true;
    QTest::newRow("sm_86 RGB 64 bins") << 8 << 99 << 3 << 64 << false;
    QTest::newRow("sm_86 gray 64 bins") << 8 << 99 << 1 << 64 << true;
    QTest::newRow("sm_86 RGB 256 bins") << 8 << 99 << 3 << 256 << false;
    QTest::newRow("sm_120 RGB 64 bins") << 12 << 99 << 3 << 64 << false;
    QTest::newRow("sm_120 RGBA 256 bins") << 12 << 99 << 4 << 256 << false;
    QTest::newRow("sm_120 two channels 256 bins") << 12 << 99 << 2 << 256 << true;
    QTest::newRow("sm_75 gray 16 bins") << 7 << 64 << 1 << 16 << true;
    QTest::newRow("sm_75 RGB 16 bins") << 7 << 64 << 3 << 16 << false;
}

void TestDispatch::eightBitAutoFitsTheDevice()
{
    QFETCH(int, computeMajor);
    QFETCH(int, optinKiB);
    QFETCH(int, channels);
    QFETCH(int, bins);
    QFETCH(bool, perLane);
    std::vector<unsigned char> pixels(std::size_t(64) * 16 * std::size_t(channels), 7);
    ImageView view;
    view.data = pixels.data();
    view.type = SampleType::U8;
    view.width = 64;
    view.height = 16;
    view.channels = channels;
    HistogramRequest request = makeRequest(view, ChannelBinning{true, std::uint32_t(bins), 0.0, 256.0, bins == 256});
    detail::RequestPlan plan;
    QVERIFY(detail::buildPlan(request, plan).ok());
    detail::DeviceProps props;
    props.computeMajor = computeMajor;
    props.sharedPerBlockOptin = std::size_t(optinKiB) * 1024;
    props.sharedPerMultiprocessor = props.sharedPerBlockOptin + 1024;
    const StrategyChoice choice = detail::chooseAutoStrategy(plan, props, detail::tuningFor(computeMajor), nullptr);
    QVERIFY2((choice.strategy == Strategy::PerLane) == perLane, choice.reason.c_str());
    if (choice.strategy == Strategy::PerLane) {
        // What the kernel takes at launch: its lane columns and, statically, a value total each.
        const std::size_t needed = std::size_t(channels) * 256 * 32 * 4 + std::size_t(channels) * 256 * 4 + 32;
        QVERIFY(needed <= props.sharedPerBlockOptin);
    }
}

void TestDispatch::bigSlotSetsFollowTheSample_data()
{
    // A sample of 4,096 keys: `spread` of them uniform over the bins, the rest on `hotKeys`
    // distinct keys that start at bin `hotFirst`, one after the other.
    QTest::addColumn<int>("bins");
    QTest::addColumn<int>("spread");
    QTest::addColumn<int>("hotKeys");
    QTest::addColumn<int>("hotFirst");
    QTest::addColumn<Strategy>("expected");  // Auto: anything but `partition`
    QTest::newRow("1 M uniform") << 1000000 << 4096 << 0 << 0 << Strategy::Partition;
    // Two tiles of opt-in memory: `replicated` reads the input twice and still wins.
    QTest::newRow("65,536 uniform") << 65536 << 4096 << 0 << 0 << Strategy::Replicated;
    QTest::newRow("100,000 uniform") << 100000 << 4096 << 0 << 0 << Strategy::Replicated;
    QTest::newRow("1 M, one key 40 %") << 1000000 << 2458 << 1 << 777 << Strategy::LargeBins;
    // 30 % on 2,000 keys of one bucket: no hot bin, but that bucket holds 4.8x its share.
    QTest::newRow("65,536, one bucket 30 %") << 65536 << 2867 << 2000 << 8192 << Strategy::Replicated;
    QTest::newRow("1 M, one bucket 30 %") << 1000000 << 2867 << 2000 << 8192 << Strategy::Auto;
    // 4,096 buckets for 4,096 samples: a few land together by chance, which is no skew.
    QTest::newRow("16 M uniform") << (1 << 24) << 4096 << 0 << 0 << Strategy::Partition;
    QTest::newRow("16 M, one bucket 10 %") << (1 << 24) << 3686 << 400 << 40960 << Strategy::Auto;
}

void TestDispatch::bigSlotSetsFollowTheSample()
{
    QFETCH(int, bins);
    QFETCH(int, spread);
    QFETCH(int, hotKeys);
    QFETCH(int, hotFirst);
    QFETCH(Strategy, expected);
    std::mt19937 rng(QTest::currentDataTag()[0] * 7919u + std::uint32_t(bins));
    std::vector<std::uint32_t> keys(64, 0);
    ImageView view = keysView(keys.data(), keys.size(), SampleType::U32);
    HistogramRequest request = makeRequest(view, ChannelBinning{true, std::uint32_t(bins), 0.0, double(bins), true});
    detail::RequestPlan plan;
    QVERIFY(detail::buildPlan(request, plan).ok());
    // Slots of a one-channel plan: bin b is slot b.
    std::vector<std::uint32_t> sample;
    std::uniform_int_distribution<std::uint32_t> any(0, std::uint32_t(bins) - 1);
    for (int i = 0; i < spread; ++i)
        sample.push_back(any(rng));
    for (int i = spread; i < 4096; ++i)
        sample.push_back(std::uint32_t(hotFirst + (i - spread) % std::max(hotKeys, 1)));

    detail::SkewCounter counter;
    detail::SkewEstimate estimate;
    counter.estimate(sample.data(), sample.size(), 8192, estimate);
    // The fullest bucket's share, counted here.
    std::vector<int> perBucket((std::size_t(bins) >> 12) + 1, 0);
    for (std::uint32_t s : sample)
        perBucket[s >> 12]++;
    const int fullest = *std::max_element(perBucket.begin(), perBucket.end());
    QCOMPARE(estimate.topBucketShare, double(fullest) / 4096.0);

    detail::DeviceProps props;
    props.computeMajor = 9;
    props.multiprocessors = 132;
    props.sharedPerBlockOptin = 227 * 1024;
    props.sharedPerMultiprocessor = 228 * 1024;
    const StrategyChoice choice = detail::chooseAutoStrategy(plan, props, detail::tuningFor(9), &estimate);
    if (expected == Strategy::Auto)
        QVERIFY2(choice.strategy != Strategy::Partition && choice.strategy != Strategy::Auto, choice.reason.c_str());
    else
        QVERIFY2(choice.strategy == expected, choice.reason.c_str());
}

QTEST_GUILESS_MAIN(TestDispatch)
#include "tst_dispatch.moc"
