// HistogramController: exact counts through the worker, the "newest frame wins" slot,
// generations (stale results dropped), one-shot jobs that always answer even under a stream
// of live frames, and errors as Error. Frames are fresh random data made by the test.
#include "app/core/HistogramController.h"

#include "TestSupport.h"

#include "histoscope/HistogramEngine.h"

#include <QSignalSpy>
#include <QTest>
#include <QTimer>

using namespace testsupport;

class TestHistogramController : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void countsMatchAnOracle_data();
    void countsMatchAnOracle();
    void newestFrameWins();
    void staleResultsAreDropped();
    void replacedCountsFramesNotJobs_data();
    void replacedCountsFramesNotJobs();
    void oneShotJobsAnswerBehindQueuedFrames();
    void oneShotJobAnswersDuringALiveStream();
    void comparisonChecksEveryStrategy();
    void engineErrorsComeBackAsError();

private:
    static HistogramSettings plainSettings();
    std::mt19937_64 m_rng;
};

void TestHistogramController::initTestCase() { m_rng = seededRng(); }

HistogramSettings TestHistogramController::plainSettings()
{
    HistogramSettings s;
    s.counting.strategy = hs::Strategy::Auto;
    s.display.luma = LumaCoefficients::None;
    return s;
}

void TestHistogramController::countsMatchAnOracle_data()
{
    QTest::addColumn<int>("type");       // hs::SampleType
    QTest::addColumn<int>("channels");
    QTest::addColumn<int>("bins");       // 0: one bin per value
    QTest::addColumn<QRect>("roi");      // empty: the whole frame
    QTest::addColumn<int>("padSamples");
    QTest::newRow("gray8 97x61, 256 bins") << int(hs::SampleType::U8) << 1 << 256 << QRect() << 0;
    QTest::newRow("bgr8 with a region and padded rows") << int(hs::SampleType::U8) << 3 << 256 << QRect(7, 3, 41, 29) << 5;
    QTest::newRow("bgra8, 16 bins") << int(hs::SampleType::U8) << 4 << 16 << QRect() << 0;
    QTest::newRow("gray16, one bin per value") << int(hs::SampleType::U16) << 1 << 0 << QRect(1, 1, 90, 50) << 2;
}

void TestHistogramController::countsMatchAnOracle()
{
    QFETCH(int, type);
    QFETCH(int, channels);
    QFETCH(int, bins);
    QFETCH(QRect, roi);
    QFETCH(int, padSamples);
    const auto sampleType = hs::SampleType(type);
    const Frame frame = randomFrame(m_rng, sampleType, 97, 61, channels, channels == 1 ? ChannelOrder::Gray : opencvOrder(channels),
                                    0, -1, std::size_t(padSamples));
    HistogramSettings settings = plainSettings();
    settings.counting.bins = bins;
    std::optional<hs::Rect> region;
    if (!roi.isEmpty())
        region = hs::Rect{roi.x(), roi.y(), roi.width(), roi.height()};

    HistogramController controller;
    QSignalSpy results(&controller, &HistogramController::resultReady);
    const quint64 generation = controller.submit(frame, settings, region, 7);
    QTRY_COMPARE_WITH_TIMEOUT(results.count(), 1, 20000);
    const SnapshotPtr s = results.at(0).at(0).value<SnapshotPtr>();
    QCOMPARE(s->generation, generation);
    QCOMPARE(s->frameIndex, qint64(7));
    QVERIFY2(!s->error.isError(), qPrintable(s->error.message()));
    QVERIFY(!s->backend.isEmpty());

    // The oracle: walk the region, one sample at a time.
    const QRect area = roi.isEmpty() ? QRect(0, 0, 97, 61) : roi;
    const int levels = sampleType == hs::SampleType::U16 ? 65536 : 256;
    const int binCount = bins == 0 ? levels : bins;
    std::vector<std::vector<std::uint64_t>> expected(std::size_t(channels), std::vector<std::uint64_t>(std::size_t(binCount), 0));
    for (int y = area.top(); y <= area.bottom(); ++y)
        for (int x = area.left(); x <= area.right(); ++x)
            for (int c = 0; c < channels; ++c)
                ++expected[std::size_t(c)][std::size_t(sampleAt(frame, x, y, c)) * std::size_t(binCount) / std::size_t(levels)];

    QCOMPARE(int(s->result.channels.size()), channels);
    QCOMPARE(s->statistics.size(), s->result.channels.size());
    for (std::size_t i = 0; i < s->result.channels.size(); ++i) {
        const hs::ChannelHistogram& h = s->result.channels[i];
        QCOMPARE(h.counts.size(), std::size_t(binCount));
        QVERIFY2(h.counts == expected[std::size_t(h.channel)], qPrintable(QStringLiteral("channel %1").arg(h.channel)));
        QCOMPARE(s->statistics[i].count, std::uint64_t(area.width()) * std::uint64_t(area.height()));
    }
}

void TestHistogramController::newestFrameWins()
{
    HistogramController controller;
    QSignalSpy results(&controller, &HistogramController::resultReady);
    const int frames = 20;
    std::vector<Frame> submitted;
    quint64 last = 0;
    {
        ThreadGate gate(controller.workerThread());   // the worker is busy: frames pile up
        for (int i = 0; i < frames; ++i) {
            submitted.push_back(randomFrame(m_rng, hs::SampleType::U8, 33, 17, 1, ChannelOrder::Gray));
            last = controller.submit(submitted.back(), plainSettings(), std::nullopt, i);
        }
        QCOMPARE(controller.replacedFrames(), qint64(frames - 1));
    }
    QTRY_COMPARE_WITH_TIMEOUT(results.count(), 1, 20000);
    const SnapshotPtr s = results.at(0).at(0).value<SnapshotPtr>();
    QCOMPARE(s->generation, last);
    QCOMPARE(s->frameIndex, qint64(frames - 1));
    QCOMPARE(s->frame.data(), submitted.back().data());   // the newest frame, no other
    // A one-shot job queued after it answers only after anything counted before it arrived:
    // no other snapshot follows.
    QSignalSpy compared(&controller, &HistogramController::comparisonReady);
    controller.compareStrategies(submitted.front(), plainSettings(), std::nullopt);
    QTRY_COMPARE_WITH_TIMEOUT(compared.count(), 1, 30000);
    QCOMPARE(results.count(), 1);
    QCOMPARE(controller.staleResults(), qint64(0));
}

void TestHistogramController::replacedCountsFramesNotJobs_data()
{
    QTest::addColumn<QVector<int>>("serials");   // the frame each job carries, in order
    QTest::addColumn<int>("replaced");
    QTest::newRow("three frames") << QVector<int>{1, 2, 3} << 2;
    QTest::newRow("one frame, three settings") << QVector<int>{7, 7, 7} << 0;
    QTest::newRow("a frame re-submitted, then a new one") << QVector<int>{1, 1, 2, 2} << 1;
    QTest::newRow("serials not given") << QVector<int>{0, 0, 0} << 2;
}

void TestHistogramController::replacedCountsFramesNotJobs()
{
    QFETCH(QVector<int>, serials);
    QFETCH(int, replaced);
    HistogramController controller;
    QSignalSpy results(&controller, &HistogramController::resultReady);
    const Frame frame = randomFrame(m_rng, hs::SampleType::U8, 16, 8, 1, ChannelOrder::Gray);
    {
        ThreadGate gate(controller.workerThread());
        for (int serial : serials)
            controller.submit(frame, plainSettings(), std::nullopt, 0, quint64(serial));
        QCOMPARE(controller.replacedFrames(), qint64(replaced));
    }
    QTRY_COMPARE_WITH_TIMEOUT(results.count(), 1, 20000);
    QCOMPARE(results.at(0).at(0).value<SnapshotPtr>()->frameSerial, quint64(serials.last()));
    // A new source starts the count again.
    controller.invalidate();
    QCOMPARE(controller.replacedFrames(), qint64(0));
}

void TestHistogramController::staleResultsAreDropped()
{
    HistogramController controller;
    QSignalSpy results(&controller, &HistogramController::resultReady);
    const Frame old = randomFrame(m_rng, hs::SampleType::U8, 40, 30, 3, ChannelOrder::Bgr);
    const Frame fresh = randomFrame(m_rng, hs::SampleType::U8, 20, 10, 1, ChannelOrder::Gray);
    ThreadGate first(controller.workerThread());
    controller.submit(old, plainSettings(), std::nullopt);
    ThreadGate second(controller.workerThread(), false);   // behind the count of `old`
    first.release();
    second.waitEntered();
    // `old` is counted and its answer waits in this thread's queue: a new source starts now.
    controller.invalidate();
    const quint64 freshGeneration = controller.submit(fresh, plainSettings(), std::nullopt);
    second.release();
    QTRY_COMPARE_WITH_TIMEOUT(results.count(), 1, 20000);
    QCOMPARE(controller.staleResults(), qint64(1));
    const SnapshotPtr s = results.at(0).at(0).value<SnapshotPtr>();
    QCOMPARE(s->generation, freshGeneration);
    QCOMPARE(s->result.samples, std::uint64_t(200));
}

void TestHistogramController::oneShotJobsAnswerBehindQueuedFrames()
{
    HistogramController controller;
    QSignalSpy results(&controller, &HistogramController::resultReady);
    QSignalSpy compared(&controller, &HistogramController::comparisonReady);
    const Frame small = randomFrame(m_rng, hs::SampleType::U8, 24, 16, 1, ChannelOrder::Gray);
    std::vector<quint64> jobs;
    quint64 last = 0;
    {
        ThreadGate gate(controller.workerThread());
        for (int i = 0; i < 30; ++i) {
            last = controller.submit(randomFrame(m_rng, hs::SampleType::U8, 24, 16, 1, ChannelOrder::Gray), plainSettings(),
                                     std::nullopt, i);
            if (i == 0 || i == 10)
                jobs.push_back(controller.compareStrategies(small, plainSettings(), std::nullopt));
        }
    }
    QTRY_COMPARE_WITH_TIMEOUT(compared.count(), 2, 30000);
    QCOMPARE(compared.at(0).at(0).value<ComparisonPtr>()->generation, jobs[0]);   // in order, none replaced
    QCOMPARE(compared.at(1).at(0).value<ComparisonPtr>()->generation, jobs[1]);
    QTRY_VERIFY_WITH_TIMEOUT(!results.isEmpty() && results.last().at(0).value<SnapshotPtr>()->generation == last, 20000);
    // Frames replaced each other while the gate held the worker; each result is newer than the one before.
    quint64 previous = 0;
    for (const QList<QVariant>& r : results) {
        const quint64 g = r.at(0).value<SnapshotPtr>()->generation;
        QVERIFY(g > previous);
        previous = g;
    }
    QCOMPARE(qint64(results.count()) + controller.replacedFrames(), qint64(30));
}

void TestHistogramController::oneShotJobAnswersDuringALiveStream()
{
    HistogramController controller;
    QSignalSpy results(&controller, &HistogramController::resultReady);
    QSignalSpy compared(&controller, &HistogramController::comparisonReady);
    std::vector<Frame> pool;
    for (int i = 0; i < 8; ++i)
        pool.push_back(randomFrame(m_rng, hs::SampleType::U8, 320, 240, 3, ChannelOrder::Bgr));
    // A live stream: a new frame on every turn of this thread's event loop.
    QTimer stream;
    qint64 streamed = 0;
    connect(&stream, &QTimer::timeout, &controller, [&] {
        controller.submit(pool[std::size_t(streamed % 8)], plainSettings(), std::nullopt, streamed);
        ++streamed;
    });
    stream.start(0);
    QTRY_VERIFY_WITH_TIMEOUT(results.count() >= 2, 20000);
    const quint64 job = controller.compareStrategies(pool[0], plainSettings(), std::nullopt);
    QTRY_COMPARE_WITH_TIMEOUT(compared.count(), 1, 60000);
    stream.stop();
    QCOMPARE(compared.at(0).at(0).value<ComparisonPtr>()->generation, job);
    QVERIFY(!compared.at(0).at(0).value<ComparisonPtr>()->timings.empty());
}

void TestHistogramController::comparisonChecksEveryStrategy()
{
    HistogramController controller;
    QSignalSpy compared(&controller, &HistogramController::comparisonReady);
    const Frame frame = randomFrame(m_rng, hs::SampleType::U8, 200, 150, 3, ChannelOrder::Bgr);
    const quint64 job = controller.compareStrategies(frame, plainSettings(), hs::Rect{10, 5, 150, 100});
    QTRY_COMPARE_WITH_TIMEOUT(compared.count(), 1, 60000);
    const ComparisonPtr c = compared.at(0).at(0).value<ComparisonPtr>();
    QCOMPARE(c->generation, job);
    QVERIFY(!c->error.isError());
    QVERIFY(!c->backend.isEmpty());
    const int expected = hs::HistogramEngine::cudaDeviceCount() > 0 ? int(hs::allStrategies().size()) : 2;
    QCOMPARE(int(c->timings.size()), expected);
    for (const StrategyTiming& t : c->timings) {
        const QString name = QString::fromStdString(std::string(hs::strategyName(t.strategy)));
        QVERIFY2(!t.error.isError(), qPrintable(name + ": " + t.error.message()));
        QVERIFY2(t.exact, qPrintable(name));
        QVERIFY2(t.milliseconds > 0, qPrintable(name));
        if (t.strategy != hs::Strategy::Auto)
            QCOMPARE(t.ran, t.strategy);
    }
}

void TestHistogramController::engineErrorsComeBackAsError()
{
    HistogramController controller;
    QSignalSpy results(&controller, &HistogramController::resultReady);
    HistogramSettings settings = plainSettings();
    settings.counting.useGpu = false;                  // the CPU backend, GPU or not
    settings.counting.strategy = hs::Strategy::Shared;  // a GPU strategy
    controller.submit(randomFrame(m_rng, hs::SampleType::U8, 16, 16, 1, ChannelOrder::Gray), settings, std::nullopt);
    QTRY_COMPARE_WITH_TIMEOUT(results.count(), 1, 20000);
    const SnapshotPtr s = results.at(0).at(0).value<SnapshotPtr>();
    QCOMPARE(s->error.kind, ErrorKind::Engine);
    QVERIFY2(s->error.cause.contains("shared"), qPrintable(s->error.message()));
    QVERIFY2(s->backend.startsWith("CPU"), qPrintable(s->backend));
}

QTEST_GUILESS_MAIN(TestHistogramController)
#include "tst_histogramcontroller.moc"
