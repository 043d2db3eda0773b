// The `auto` rule's choice for 8-bit data against the device's shared memory: `per-lane` needs
// 32 KiB of lane columns per interleaved channel, so on devices with less opt-in shared memory
// (99 KiB on sm_86/89/120, 64 KiB on sm_75) `auto` must not pick it for three or four channels,
// or every such count would be refused at launch. Host-side: the rule needs no device.
#include "gpu/cuda/Dispatch.h"
#include "gpu/cuda/Tuning.h"

#include <QTest>

#include <vector>

using namespace hs;

class TestDispatch : public QObject {
    Q_OBJECT

private slots:
    void eightBitAutoFitsTheDevice_data();
    void eightBitAutoFitsTheDevice();
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

QTEST_GUILESS_MAIN(TestDispatch)
#include "tst_dispatch.moc"
