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
#include <limits>
#include <random>
#include <vector>

using namespace hs;

Q_DECLARE_METATYPE(hs::Strategy)
Q_DECLARE_METATYPE(hs::SampleType)

namespace {

// An interleaved host frame, tightly packed.
ImageView frameView(const void* data, SampleType type, std::int64_t width, std::int64_t height, int channels)
{
    ImageView view;
    view.data = data;
    view.type = type;
    view.width = width;
    view.height = height;
    view.channels = channels;
    return view;
}

// The H200's properties (132 SMs, 227 KiB of opt-in shared memory a block) under a given
// architecture's tuning.
detail::DeviceProps h200Props(int computeMajor = 9)
{
    detail::DeviceProps props;
    props.computeMajor = computeMajor;
    props.multiprocessors = 132;
    props.sharedPerBlockOptin = 227 * 1024;
    props.sharedPerMultiprocessor = 228 * 1024;
    return props;
}

}  // namespace

class TestDispatch : public QObject {
    Q_OBJECT

private slots:
    void eightBitAutoFitsTheDevice_data();
    void eightBitAutoFitsTheDevice();
    void bigSlotSetsFollowTheSample_data();
    void bigSlotSetsFollowTheSample();
    void twoPackedPassesTakeOneChannel();
    void autoSamplesInsideOptinWherePackedMayWin_data();
    void autoSamplesInsideOptinWherePackedMayWin();
    void aLoneInactiveChannelIsRefused();
    void partitionFoldsTheClearOnlyOverEnoughSamples_data();
    void partitionFoldsTheClearOnlyOverEnoughSamples();
    void neighbourPairsAreComparedChannelByChannel();
    void samplePixelsComeInNeighbourPairs_data();
    void samplePixelsComeInNeighbourPairs();
    void tuningOverridesTakeOnlyValuesInTheirSet_data();
    void tuningOverridesTakeOnlyValuesInTheirSet();
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
    const ImageView view = frameView(pixels.data(), SampleType::U8, 64, 16, channels);
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
    // A plan of `keys` 32-bit keys into `bins` bins, and a sample of 4,096 of them: `spread`
    // uniform over the bins, the rest on `hotKeys` distinct keys that start at bin `hotFirst`,
    // one after the other; with `runs`, each pair of neighbours in the sample (samplePixel) equal,
    // as in a smooth frame, whose tiles crowd into few buckets.
    QTest::addColumn<int>("keys");
    QTest::addColumn<int>("bins");
    QTest::addColumn<int>("spread");
    QTest::addColumn<int>("hotKeys");
    QTest::addColumn<int>("hotFirst");
    QTest::addColumn<bool>("runs");
    QTest::addColumn<Strategy>("expected");  // Auto: anything but `partition`
    const int k16M = 1 << 24, k8M = 3840 * 2160, k32M = 1 << 25;
    QTest::newRow("1 M uniform") << k16M << 1000000 << 4096 << 0 << 0 << false << Strategy::Partition;
    // Two tiles of 32-bit counters, one pass of packed 16-bit ones: `packed` wherever no slot is
    // hot, runs of neighbours or not (H200, session 18).
    QTest::newRow("65,536, 256 a slot") << k16M << 65536 << 4096 << 0 << 0 << false << Strategy::Packed;
    QTest::newRow("100,000, 168 a slot") << k16M << 100000 << 4096 << 0 << 0 << false << Strategy::Packed;
    QTest::newRow("65,536, 127 a slot") << k8M << 65536 << 4096 << 0 << 0 << false << Strategy::Packed;
    QTest::newRow("65,536, 127 a slot, runs") << k8M << 65536 << 4096 << 0 << 0 << true << Strategy::Packed;
    // Beyond one packed pass (about 116,000 slots on the H200): `partition` where it is sure to
    // win, else two packed passes in place of `replicated`'s tiles (131,072-id tokens, session 19).
    QTest::newRow("131,072, 128 a slot") << k16M << 131072 << 4096 << 0 << 0 << false << Strategy::Partition;
    QTest::newRow("131,072, 256 a slot") << k32M << 131072 << 4096 << 0 << 0 << false << Strategy::Packed;
    QTest::newRow("131,072, 128 a slot, runs") << k16M << 131072 << 4096 << 0 << 0 << true << Strategy::Packed;
    // Inside opt-in shared memory: one `packed` pass where no slot is hot, else `large-bins`,
    // whose increments of one same-address updates do not serialise (H200, session 20).
    QTest::newRow("32,768 uniform") << k16M << 32768 << 4096 << 0 << 0 << false << Strategy::Packed;
    QTest::newRow("32,768 uniform, runs") << k16M << 32768 << 4096 << 0 << 0 << true << Strategy::Packed;
    QTest::newRow("32,768, one key 10 %") << k16M << 32768 << 3686 << 1 << 777 << false << Strategy::Packed;
    QTest::newRow("32,768, one key 25 %") << k16M << 32768 << 3072 << 1 << 777 << false << Strategy::LargeBins;
    QTest::newRow("32,768, one key 90 %") << k16M << 32768 << 410 << 1 << 777 << false << Strategy::LargeBins;
    QTest::newRow("65,536, one key 40 %") << k16M << 65536 << 2458 << 1 << 777 << false << Strategy::LargeBins;
    QTest::newRow("1 M uniform, runs") << k16M << 1000000 << 4096 << 0 << 0 << true << Strategy::Auto;
    QTest::newRow("1 M, one key 40 %") << k16M << 1000000 << 2458 << 1 << 777 << false << Strategy::LargeBins;
    // 30 % on 2,000 keys of one bucket: no hot bin, but that bucket holds 4.8x its share.
    QTest::newRow("65,536, one bucket 30 %") << k8M << 65536 << 2867 << 2000 << 8192 << false << Strategy::Packed;
    QTest::newRow("1 M, one bucket 30 %") << k16M << 1000000 << 2867 << 2000 << 8192 << false << Strategy::Auto;
    // 4,096 buckets for 4,096 samples: a few land together by chance, which is no skew.
    QTest::newRow("16 M uniform") << k16M << (1 << 24) << 4096 << 0 << 0 << false << Strategy::Partition;
    QTest::newRow("16 M, one bucket 10 %") << k16M << (1 << 24) << 3686 << 400 << 40960 << false << Strategy::Auto;
}

void TestDispatch::bigSlotSetsFollowTheSample()
{
    QFETCH(int, keys);
    QFETCH(int, bins);
    QFETCH(int, spread);
    QFETCH(int, hotKeys);
    QFETCH(int, hotFirst);
    QFETCH(bool, runs);
    QFETCH(Strategy, expected);
    std::mt19937 rng(QTest::currentDataTag()[0] * 7919u + std::uint32_t(bins));
    std::vector<std::uint32_t> data(std::size_t(keys), 1);  // the rule reads the plan's shape, not its data
    ImageView view = keysView(data.data(), data.size(), SampleType::U32);
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
    std::shuffle(sample.begin(), sample.end(), rng);
    if (runs)
        for (std::size_t i = 0; i + 1 < sample.size(); i += 2)
            sample[i + 1] = sample[i];

    detail::SkewCounter counter;
    detail::SkewEstimate estimate;
    counter.estimate(sample.data(), sample.size(), 1, 8192, estimate);
    // The fullest bucket's share and the neighbours' agreement, counted here.
    std::vector<int> perBucket((std::size_t(bins) >> 12) + 1, 0);
    for (std::uint32_t s : sample)
        perBucket[s >> 12]++;
    const int fullest = *std::max_element(perBucket.begin(), perBucket.end());
    QCOMPARE(estimate.topBucketShare, double(fullest) / 4096.0);
    int equalPairs = 0;
    for (std::size_t i = 0; i + 1 < sample.size(); i += 2)
        equalPairs += (sample[i] >> 12) == (sample[i + 1] >> 12) ? 1 : 0;
    QCOMPARE(estimate.neighbourBucketShare, double(equalPairs) / 2048.0);

    const detail::DeviceProps props = h200Props();
    const StrategyChoice choice = detail::chooseAutoStrategy(plan, props, detail::tuningFor(9), &estimate);
    // `packed` is measured on sm_90 only: other architectures keep the 32-bit rule.
    const StrategyChoice ampere = detail::chooseAutoStrategy(plan, props, detail::tuningFor(8), &estimate);
    QVERIFY2(ampere.strategy != Strategy::Packed, ampere.reason.c_str());
    if (expected == Strategy::Auto)
        QVERIFY2(choice.strategy != Strategy::Partition && choice.strategy != Strategy::Auto, choice.reason.c_str());
    else
        QVERIFY2(choice.strategy == expected, choice.reason.c_str());
}

// `partition` clears the next call's totals in its split only where its grid is large enough to:
// at least as many samples as slots; a few keys into 16 M bins leave it to a memset.
void TestDispatch::partitionFoldsTheClearOnlyOverEnoughSamples_data()
{
    QTest::addColumn<int>("keys");
    QTest::addColumn<int>("bins");
    QTest::addColumn<bool>("folds");
    QTest::newRow("1,000 keys, 16 M bins") << 1000 << (1 << 24) << false;
    QTest::newRow("1 M keys, 65,536 bins") << (1 << 20) << 65536 << true;
    QTest::newRow("65,536 keys, 65,536 bins") << 65536 << 65536 << false;  // 65,539 slots with the margins
    QTest::newRow("65,539 keys, 65,536 bins") << 65539 << 65536 << true;
}

// Two passes of `packed` were measured on one channel of 32-bit tokens only: a frame of two
// 16-bit channels into 65,536 bins each (131,078 slots, two passes, three 32-bit tiles, 256
// samples a slot, too many for `partition`) keeps `replicated`'s tiles.
void TestDispatch::twoPackedPassesTakeOneChannel()
{
    constexpr int kSide = 4096;
    std::vector<std::uint16_t> pixels(std::size_t(kSide) * kSide * 2, 5);
    const ImageView view = frameView(pixels.data(), SampleType::U16, kSide, kSide, 2);
    HistogramRequest request = makeRequest(view, ChannelBinning{true, 65536, 0.0, 65536.0, true});
    detail::RequestPlan plan;
    QVERIFY(detail::buildPlan(request, plan).ok());
    QCOMPARE(plan.map.num_slots, 2u * (65536u + 3u));
    const detail::DeviceProps props = h200Props();
    const StrategyChoice choice = detail::chooseAutoStrategy(plan, props, detail::tuningFor(9), nullptr);
    QVERIFY2(choice.strategy == Strategy::Replicated, choice.reason.c_str());
}

// A skew sample costs a gather (and, for an input never seen, a wait), so `auto` takes one
// inside opt-in shared memory only where the tuning lets `packed` take that plan: sm_90, one
// channel, above the default shared memory.
void TestDispatch::autoSamplesInsideOptinWherePackedMayWin_data()
{
    QTest::addColumn<int>("computeMajor");
    QTest::addColumn<SampleType>("type");
    QTest::addColumn<int>("channels");
    QTest::addColumn<int>("bins");
    QTest::addColumn<bool>("samples");
    QTest::newRow("sm_90, 32,768 bins") << 9 << SampleType::U16 << 1 << 32768 << true;
    QTest::newRow("sm_90, 4,096 bins") << 9 << SampleType::U16 << 1 << 4096 << false;
    QTest::newRow("sm_90, two channels of 16,384 bins") << 9 << SampleType::U16 << 2 << 16384 << false;
    QTest::newRow("sm_80, 32,768 bins") << 8 << SampleType::U16 << 1 << 32768 << false;
    QTest::newRow("sm_90, 65,536 bins") << 9 << SampleType::U16 << 1 << 65536 << true;  // beyond opt-in: always
    QTest::newRow("sm_80, 65,536 bins") << 8 << SampleType::U16 << 1 << 65536 << true;
    // 8-bit samples go to `per-lane` whatever their bins: a sample would change nothing.
    QTest::newRow("sm_90, 8-bit into 32,768 bins") << 9 << SampleType::U8 << 1 << 32768 << false;
    QTest::newRow("sm_90, 8-bit into 65,536 bins") << 9 << SampleType::U8 << 1 << 65536 << false;
    // Without `autoPerLane` (sm_80) 8-bit data beyond opt-in memory is sampled as any other.
    QTest::newRow("sm_80, 8-bit into 65,536 bins") << 8 << SampleType::U8 << 1 << 65536 << true;
}

void TestDispatch::autoSamplesInsideOptinWherePackedMayWin()
{
    QFETCH(int, computeMajor);
    QFETCH(SampleType, type);
    QFETCH(int, channels);
    QFETCH(int, bins);
    QFETCH(bool, samples);
    std::vector<std::uint16_t> pixels(std::size_t(1024) * 1024 * std::size_t(channels), 5);
    const ImageView view = frameView(pixels.data(), type, 1024, 1024, channels);
    HistogramRequest request = makeRequest(view, ChannelBinning{true, std::uint32_t(bins), 0.0, 65536.0, false});
    detail::RequestPlan plan;
    QVERIFY(detail::buildPlan(request, plan).ok());
    const detail::DeviceProps props = h200Props(computeMajor);
    const detail::ArchTuning tuning = detail::tuningFor(computeMajor);
    QCOMPARE(detail::needsSkewEstimate(Strategy::Auto, plan, props, tuning), samples);
    if (type == SampleType::U8 && tuning.autoPerLane) {
        const StrategyChoice choice = detail::chooseAutoStrategy(plan, props, tuning, nullptr);
        QVERIFY2(choice.strategy == Strategy::PerLane, choice.reason.c_str());
        return;
    }
    // Without a sample the rule keeps `large-bins` inside opt-in memory.
    if (plan.map.num_slots * sizeof(std::uint32_t) + detail::kStaticSharedReserve <= props.sharedPerBlockOptin
        && plan.map.num_slots > tuning.autoSharedSlotsMax) {
        const StrategyChoice choice = detail::chooseAutoStrategy(plan, props, tuning, nullptr);
        QVERIFY2(choice.strategy == Strategy::LargeBins, choice.reason.c_str());
    }
}

// The sample walker counts a single channel without testing it (SampleWalker.cuh), so the
// launcher refuses one that is inactive before any kernel, for every strategy.
void TestDispatch::aLoneInactiveChannelIsRefused()
{
    detail::KernelArgs args;
    args.channels = 1;
    args.map.num_channels = 1;
    args.map.ch[0].active = false;
    detail::DeviceProps props;
    detail::LaunchCache cache;
    const detail::LaunchContext ctx{props, detail::tuningFor(9), nullptr, cache};
    detail::StrategyScratch scratch;
    for (Strategy strategy : {Strategy::Shared, Strategy::Packed, Strategy::Partition, Strategy::Cub}) {
        const Status status = detail::launchStrategy(strategy, args, scratch, ctx);
        QVERIFY(!status.ok());
        QVERIFY(status.code == ErrorCode::InvalidArgument);
    }
}

void TestDispatch::partitionFoldsTheClearOnlyOverEnoughSamples()
{
    QFETCH(int, keys);
    QFETCH(int, bins);
    QFETCH(bool, folds);
    std::vector<std::uint32_t> data(std::size_t(keys), 3);
    HistogramRequest request = makeRequest(keysView(data.data(), data.size(), SampleType::U32),
                                           ChannelBinning{true, std::uint32_t(bins), 0.0, double(bins), true});
    detail::RequestPlan plan;
    QVERIFY(detail::buildPlan(request, plan).ok());
    detail::DeviceProps props;
    props.sharedPerBlockOptin = 227 * 1024;
    QCOMPARE(detail::clearsNextTotals(Strategy::Partition, plan, props), folds);
    QVERIFY(detail::clearsNextTotals(Strategy::Replicated, plan, props));
    QVERIFY(!detail::clearsNextTotals(Strategy::GlobalAtomic, plan, props));
}

// Neighbour pairs are pixels 2k and 2k + 1, compared channel by channel; inactive channels (no
// slot) are left out. Channel 0 runs (neighbours in one bucket), channel 2 does not.
void TestDispatch::neighbourPairsAreComparedChannelByChannel()
{
    constexpr int kChannels = 3, kPixels = 4096;
    std::mt19937 rng(20261204);
    std::uniform_int_distribution<std::uint32_t> any(0, (1u << 20) - 1);
    std::vector<std::uint32_t> pixelSlots(std::size_t(kPixels) * kChannels);
    for (int p = 0; p < kPixels; ++p) {
        const std::uint32_t run = p % 2 ? pixelSlots[std::size_t(p - 1) * kChannels] + 1 : any(rng);
        pixelSlots[std::size_t(p) * kChannels + 0] = run;  // a neighbour one slot up: one bucket unless it crosses
        pixelSlots[std::size_t(p) * kChannels + 1] = detail::kNoSlot;
        pixelSlots[std::size_t(p) * kChannels + 2] = any(rng);
    }
    int same = 0, pairs = 0;
    for (int p = 0; p + 1 < kPixels; p += 2)
        for (int c : {0, 2}) {
            const std::uint32_t a = pixelSlots[std::size_t(p) * kChannels + c], b = pixelSlots[std::size_t(p + 1) * kChannels + c];
            same += (a >> 12) == (b >> 12) ? 1 : 0;
            ++pairs;
        }
    detail::SkewCounter counter;
    detail::SkewEstimate estimate;
    counter.estimate(pixelSlots.data(), pixelSlots.size(), kChannels, 8192, estimate);
    QCOMPARE(estimate.neighbourBucketShare, double(same) / double(pairs));
    QVERIFY(estimate.neighbourBucketShare > 0.45 && estimate.neighbourBucketShare < 0.55);  // ch 0 all, ch 2 ~1/256
    QCOMPARE(estimate.sampledSlots, std::size_t(kPixels) * 2);
}

// The skew sample takes neighbours in pairs, the same pixels on the host and the device.
void TestDispatch::samplePixelsComeInNeighbourPairs_data()
{
    QTest::addColumn<qint64>("pixels");
    QTest::addColumn<int>("count");
    QTest::newRow("4K frame") << qint64(3840) * 2160 << 4096;
    QTest::newRow("fewer pixels than the sample") << qint64(1000) << 1000;
    QTest::newRow("odd count") << qint64(12345) << 99;
    QTest::newRow("one pixel") << qint64(1) << 1;
    QTest::newRow("two pixels") << qint64(2) << 2;
}

void TestDispatch::samplePixelsComeInNeighbourPairs()
{
    QFETCH(qint64, pixels);
    QFETCH(int, count);
    const std::uint64_t n = std::uint64_t(pixels);
    std::uint64_t previous = 0, last = 0;
    for (int i = 0; i + 1 < count; i += 2) {
        const std::uint64_t p = detail::samplePixel(n, std::uint32_t(i), std::uint32_t(count));
        const std::uint64_t q = detail::samplePixel(n, std::uint32_t(i + 1), std::uint32_t(count));
        QVERIFY(p < n && q < n);
        QVERIFY2(p >= previous, "pairs go through the pixels in order");
        QCOMPARE(p > q ? p - q : q - p, std::uint64_t(1));  // neighbours
        previous = last = p;
    }
    if (count % 2)
        QVERIFY(detail::samplePixel(n, std::uint32_t(count - 1), std::uint32_t(count)) < n);
    // Spread over the whole range: the last pair starts within one pair's stride of the end.
    const std::uint64_t pairs = (std::uint64_t(count) + 1) / 2;
    if (count > 1)
        QVERIFY(last + 2 * (n / pairs + 1) >= n);
}

// A value outside a knob's set leaves the shipped value.
constexpr int kShipped = std::numeric_limits<int>::min();

void TestDispatch::tuningOverridesTakeOnlyValuesInTheirSet_data()
{
    QTest::addColumn<QByteArray>("variable");
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<int>("expected");  // the field after the override, or kShipped
    QTest::newRow("loads in range") << QByteArray("HISTOSCOPE_TUNE_PARTITION_LOADS") << QByteArray("3") << 3;
    QTest::newRow("loads above") << QByteArray("HISTOSCOPE_TUNE_PARTITION_LOADS") << QByteArray("9") << kShipped;
    QTest::newRow("loads not a number") << QByteArray("HISTOSCOPE_TUNE_PARTITION_LOADS") << QByteArray("two") << kShipped;
    QTest::newRow("loads trailing text") << QByteArray("HISTOSCOPE_TUNE_PARTITION_LOADS") << QByteArray("2x") << kShipped;
    QTest::newRow("loads empty") << QByteArray("HISTOSCOPE_TUNE_PARTITION_LOADS") << QByteArray("") << kShipped;
    QTest::newRow("loads hexadecimal") << QByteArray("HISTOSCOPE_TUNE_PARTITION_LOADS") << QByteArray("0x3") << kShipped;
    QTest::newRow("loads overflowing") << QByteArray("HISTOSCOPE_TUNE_PARTITION_LOADS") << QByteArray("99999999999999999999") << kShipped;
    QTest::newRow("chunk in range") << QByteArray("HISTOSCOPE_TUNE_PARTITION_CHUNK") << QByteArray("23") << (1 << 23);
    QTest::newRow("chunk below") << QByteArray("HISTOSCOPE_TUNE_PARTITION_CHUNK") << QByteArray("15") << kShipped;
    QTest::newRow("segment above") << QByteArray("HISTOSCOPE_TUNE_PACKED_SEGMENT") << QByteArray("65536") << kShipped;
    QTest::newRow("segment in range") << QByteArray("HISTOSCOPE_TUNE_PACKED_SEGMENT") << QByteArray("49172") << 49172;
    QTest::newRow("lanes a power of two") << QByteArray("HISTOSCOPE_TUNE_PARTITION_LANES") << QByteArray("8") << 8;
    QTest::newRow("lanes not a power of two") << QByteArray("HISTOSCOPE_TUNE_PARTITION_LANES") << QByteArray("6") << kShipped;
    QTest::newRow("words 4") << QByteArray("HISTOSCOPE_TUNE_PARTITION_WORDS") << QByteArray("4") << 4;
    QTest::newRow("words 3") << QByteArray("HISTOSCOPE_TUNE_PARTITION_WORDS") << QByteArray("3") << kShipped;
    QTest::newRow("runs never") << QByteArray("HISTOSCOPE_TUNE_PARTITION_RUNS") << QByteArray("0") << 0;
    QTest::newRow("runs from the sample") << QByteArray("HISTOSCOPE_TUNE_PARTITION_RUNS") << QByteArray("-1") << -1;
    QTest::newRow("runs 2") << QByteArray("HISTOSCOPE_TUNE_PARTITION_RUNS") << QByteArray("2") << kShipped;
    QTest::newRow("threads below") << QByteArray("HISTOSCOPE_TUNE_THREADS") << QByteArray("32") << kShipped;
    QTest::newRow("threads 256") << QByteArray("HISTOSCOPE_TUNE_THREADS") << QByteArray("256") << 256;
}

void TestDispatch::tuningOverridesTakeOnlyValuesInTheirSet()
{
    QFETCH(QByteArray, variable);
    QFETCH(QByteArray, value);
    QFETCH(int, expected);
    const auto field = [&](const detail::ArchTuning& t) {
        if (variable.endsWith("LOADS"))
            return t.partitionCountLoadsPerLane;
        if (variable.endsWith("LANES"))
            return t.partitionCountLanes;
        if (variable.endsWith("WORDS"))
            return t.partitionCountWordsInFlight;
        if (variable.endsWith("RUNS"))
            return t.partitionSplitWarpRuns;
        if (variable.endsWith("CHUNK"))
            return int(t.partitionChunkSamples);
        if (variable.endsWith("SEGMENT"))
            return int(t.packedSegmentBound);
        return t.privatizedThreads;
    };
    // The variable as the test's own environment had it, put back afterwards.
    const bool wasSet = qEnvironmentVariableIsSet(variable.constData());
    const QByteArray outer = qgetenv(variable.constData());
    qunsetenv(variable.constData());
    const int shipped = field(detail::tuningFor(9));
    QVERIFY(qputenv(variable.constData(), value));
    const int tuned = field(detail::tuningFor(9));
    qunsetenv(variable.constData());
    const int after = field(detail::tuningFor(9));
    if (wasSet)
        qputenv(variable.constData(), outer);
    QCOMPARE(tuned, expected == kShipped ? shipped : expected);
    QCOMPARE(after, shipped);
}

QTEST_GUILESS_MAIN(TestDispatch)
#include "tst_dispatch.moc"
