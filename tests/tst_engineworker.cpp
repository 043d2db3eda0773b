// The app's one engine worker and its device-lost policy, without a GPU: the test hook
// (hs::injectDeviceLost) makes chosen engine calls answer as a faulted GPU does, and the engine
// stay lost. Each worker must rebuild once, fall back to the CPU when the rebuilt engine faults
// too, tell the user, and keep every count exact. Also the scopes' generation filter, the
// worker thread's bounded stop, and the timeline scanner's lifetime.
#include "app/core/EqualizationService.h"
#include "app/core/FrameTrend.h"
#include "app/core/HistogramController.h"
#include "app/core/ScopeController.h"
#include "app/core/WorkerThread.h"

#include "TestSupport.h"

#include "histoscope/EngineDiagnostics.h"

#include <QDir>
#include <QElapsedTimer>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <opencv2/videoio.hpp>

using namespace testsupport;

Q_DECLARE_METATYPE(std::vector<std::uint64_t>)

class TestEngineWorker : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanup();
    void histogramWorkerSurvivesAFault_data();
    void histogramWorkerSurvivesAFault();
    void plotEnvelopeIsMadeOnTheWorker();
    void scopeWorkerSurvivesAFault();
    void equalizationSurvivesAFault();
    void compareStrategiesSurvivesAFault();
    void staleScopeResultsAreDropped();
    void blockedWorkerDoesNotHangItsStop();
    void restartedScansEachEndBeforeTheScanner();
    void aScanThatEndsAtOnceIsToldAfterStartReturns();

private:
    std::mt19937_64 m_rng;
};

namespace {

HistogramSettings cpuSettings()
{
    HistogramSettings s;
    s.counting.useGpu = false;   // the hook's fault is the same on the CPU, and CI has no GPU
    s.display.luma = LumaCoefficients::None;
    return s;
}

// Per channel, one bin per 8-bit value: the oracle, walked sample by sample.
std::vector<std::vector<std::uint64_t>> oracle(const Frame& f)
{
    std::vector<std::vector<std::uint64_t>> counts(std::size_t(f.channels()), std::vector<std::uint64_t>(256, 0));
    for (qint64 y = 0; y < f.height(); ++y)
        for (qint64 x = 0; x < f.width(); ++x)
            for (int c = 0; c < f.channels(); ++c)
                ++counts[std::size_t(c)][sampleAt(f, x, y, c)];
    return counts;
}

}  // namespace

void TestEngineWorker::initTestCase() { m_rng = seededRng(); }

void TestEngineWorker::cleanup() { hs::injectDeviceLost({}); }

void TestEngineWorker::histogramWorkerSurvivesAFault_data()
{
    QTest::addColumn<std::vector<std::uint64_t>>("faultCalls");
    QTest::addColumn<QString>("continues");
    QTest::newRow("the first count faults") << std::vector<std::uint64_t>{1} << QStringLiteral("counting continues on the CPU");
    QTest::newRow("a count mid-stream faults") << std::vector<std::uint64_t>{4} << QStringLiteral("counting continues on the CPU");
    QTest::newRow("the rebuilt engine faults too") << std::vector<std::uint64_t>{3, 4}
                                                   << QStringLiteral("since the rebuilt engine faulted too");
}

void TestEngineWorker::histogramWorkerSurvivesAFault()
{
    QFETCH(std::vector<std::uint64_t>, faultCalls);
    QFETCH(QString, continues);
    HistogramController controller;
    QSignalSpy results(&controller, &HistogramController::resultReady);
    QSignalSpy notices(&controller, &HistogramController::deviceNotice);
    hs::injectDeviceLost(faultCalls);
    int noticed = 0;
    for (int i = 0; i < 6; ++i) {
        const Frame frame = randomFrame(m_rng, hs::SampleType::U8, 53, 31, 3, ChannelOrder::Bgr);
        const quint64 generation = controller.submit(frame, cpuSettings(), std::nullopt, i, quint64(i + 1));
        QTRY_COMPARE_WITH_TIMEOUT(results.count(), i + 1, 20000);
        const SnapshotPtr s = results.at(i).at(0).value<SnapshotPtr>();
        QCOMPARE(s->generation, generation);
        QVERIFY2(!s->error.isError(), qPrintable(s->error.message()));
        const auto want = oracle(frame);
        QCOMPARE(s->result.channels.size(), std::size_t(3));
        for (const hs::ChannelHistogram& h : s->result.channels)
            QVERIFY2(h.counts == want[std::size_t(h.channel)], qPrintable(QStringLiteral("frame %1 channel %2").arg(i).arg(h.channel)));
        // The plot values the GUI thread shows, made on the worker.
        QCOMPARE(s->plot.size(), 3);
        for (const PlotChannel& p : s->plot)
            QCOMPARE(p.total, double(53 * 31));
        for (const QString& n : s->notices)
            noticed += n.contains("faulted") ? 1 : 0;
    }
    QTRY_COMPARE_WITH_TIMEOUT(notices.count(), 1, 5000);
    const QString notice = notices.first().at(0).toString();
    QVERIFY2(notice.contains("The engine faulted") && notice.contains(continues), qPrintable(notice));
    QCOMPARE(noticed, 1);   // the snapshot counted across the fault carries it, once
}

// 65,536 bins per channel: the plot's envelope comes made, at most 4,096 groups, so the GUI
// thread paints without walking the bins.
void TestEngineWorker::plotEnvelopeIsMadeOnTheWorker()
{
    HistogramController controller;
    QSignalSpy results(&controller, &HistogramController::resultReady);
    const Frame frame = randomFrame(m_rng, hs::SampleType::U16, 300, 200, 1, ChannelOrder::Gray);
    HistogramSettings settings = cpuSettings();
    settings.counting.bins = 0;   // one bin per value
    controller.submit(frame, settings, std::nullopt);
    QTRY_COMPARE_WITH_TIMEOUT(results.count(), 1, 20000);
    const SnapshotPtr s = results.first().at(0).value<SnapshotPtr>();
    QVERIFY2(!s->error.isError(), qPrintable(s->error.message()));
    QCOMPARE(s->plot.size(), 1);
    const PlotChannel& p = s->plot.first();
    QCOMPARE(p.counts.size(), 65536);
    QCOMPARE(p.binsPerPeak, 16);
    QCOMPARE(p.peaks.size(), 4096);
    QCOMPARE(p.cumulative.size(), 4096);
    std::vector<double> values(65536, 0.0);   // the oracle: the frame's own samples
    for (qint64 y = 0; y < frame.height(); ++y)
        for (qint64 x = 0; x < frame.width(); ++x)
            values[sampleAt(frame, x, y, 0)] += 1;
    double run = 0;
    for (int g = 0; g < 4096; ++g) {
        double peak = 0;
        for (int b = g * 16; b < g * 16 + 16; ++b) {
            peak = std::max(peak, values[std::size_t(b)]);
            run += values[std::size_t(b)];
        }
        QCOMPARE(p.peaks[g], peak);
        QCOMPARE(p.cumulative[g], run);
    }
    QCOMPARE(p.total, double(300 * 200));
}

void TestEngineWorker::scopeWorkerSurvivesAFault()
{
    ScopeController controller;
    QSignalSpy results(&controller, &ScopeController::resultReady);
    QSignalSpy notices(&controller, &ScopeController::deviceNotice);
    ScopeSettings settings;
    settings.kinds = scopeBit(ScopeKind::Parade);
    settings.useGpu = false;
    hs::injectDeviceLost({2});
    for (int i = 0; i < 3; ++i) {
        const Frame frame = randomFrame(m_rng, hs::SampleType::U8, 41, 23, 3, ChannelOrder::Rgb);
        controller.submit(frame, std::nullopt, settings, i);
        QTRY_COMPARE_WITH_TIMEOUT(results.count(), i + 1, 20000);
        const ScopeSnapshotPtr s = results.at(i).at(0).value<ScopeSnapshotPtr>();
        QVERIFY2(!s->error.isError(), qPrintable(s->error.message()));
        QCOMPARE(s->parade.size(), 3);
        // The oracle of the parade: per column, how many rows hold each value.
        for (int c = 0; c < 3; ++c) {
            const ScopePlane& plane = s->parade[c];
            QCOMPARE(plane.xBins, 41);
            for (int x = 0; x < 41; ++x) {
                std::vector<double> column(std::size_t(plane.yBins), 0.0);
                for (int y = 0; y < 23; ++y)
                    column[sampleAt(frame, x, y, c)] += 1;
                for (int v = 0; v < plane.yBins; ++v)
                    QCOMPARE(plane.at(x, v), column[std::size_t(v)]);
            }
        }
    }
    QCOMPARE(notices.count(), 1);
    QVERIFY(notices.first().at(0).toString().contains("faulted"));
}

void TestEngineWorker::equalizationSurvivesAFault()
{
    EqualizationService service;
    QSignalSpy done(&service, &EqualizationService::equalized);
    QSignalSpy notices(&service, &EqualizationService::deviceNotice);
    EqualizeRequest request;
    request.frame = randomFrame(m_rng, hs::SampleType::U8, 64, 40, 1, ChannelOrder::Gray, 60, 140);
    request.source = QStringLiteral("test frame");
    request.useGpu = false;
    hs::injectDeviceLost({1});
    service.equalize(request);
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 20000);
    const EqualizationPtr e = done.first().at(0).value<EqualizationPtr>();
    QVERIFY2(!e->error.isError(), qPrintable(e->error.message()));
    QCOMPARE(e->engineSerial, quint64(2));   // rebuilt once
    QVERIFY(e->deviceNotice.contains("faulted"));
    QCOMPARE(notices.count(), 1);
    // The LUT against its definition: round((cdf(v) - cdf_min) * 255 / (n - cdf_min)).
    const auto h = oracle(request.frame)[0];
    std::uint64_t cdf = 0, cdfMin = 0;
    const std::uint64_t n = 64 * 40;
    for (int v = 0; v < 256; ++v) {
        cdf += h[std::size_t(v)];
        if (cdfMin == 0)
            cdfMin = cdf;
        if (h[std::size_t(v)] == 0)
            continue;
        const std::uint64_t want = ((cdf - cdfMin) * 255 * 2 + (n - cdfMin)) / (2 * (n - cdfMin));
        QCOMPARE(std::uint64_t(e->luts.at(0).at(std::size_t(v))), want);
    }
}

void TestEngineWorker::compareStrategiesSurvivesAFault()
{
    HistogramController controller;
    QSignalSpy compared(&controller, &HistogramController::comparisonReady);
    QSignalSpy notices(&controller, &HistogramController::deviceNotice);
    const Frame frame = randomFrame(m_rng, hs::SampleType::U8, 70, 30, 3, ChannelOrder::Bgr);
    hs::injectDeviceLost({3});
    controller.compareStrategies(frame, cpuSettings(), std::nullopt);
    QTRY_COMPARE_WITH_TIMEOUT(compared.count(), 1, 30000);
    const ComparisonPtr c = compared.first().at(0).value<ComparisonPtr>();
    QVERIFY2(!c->error.isError(), qPrintable(c->error.message()));
    QVERIFY(!c->timings.empty());
    for (const StrategyTiming& t : c->timings) {
        QVERIFY2(!t.error.isError(), qPrintable(t.error.message()));
        QVERIFY(t.exact);
    }
    QCOMPARE(notices.count(), 1);
}

// A scope result of the previous source never shows after a new open (invalidate), and the
// newest frame wins.
void TestEngineWorker::staleScopeResultsAreDropped()
{
    ScopeController controller;
    QSignalSpy results(&controller, &ScopeController::resultReady);
    ScopeSettings settings;
    settings.kinds = scopeBit(ScopeKind::Waveform);
    settings.useGpu = false;
    const Frame old = randomFrame(m_rng, hs::SampleType::U8, 30, 20, 3, ChannelOrder::Rgb);
    const Frame fresh = randomFrame(m_rng, hs::SampleType::U8, 31, 21, 3, ChannelOrder::Rgb);
    quint64 freshGeneration = 0;
    {
        ThreadGate first(controller.workerThread());
        controller.submit(old, std::nullopt, settings, 0);   // taken by the worker behind the gate
        ThreadGate second(controller.workerThread(), false);
        first.release();
        second.waitEntered();   // `old` is counted; its result is on its way
        controller.invalidate();   // a new source
        freshGeneration = controller.submit(fresh, std::nullopt, settings, 0);
    }
    QTRY_COMPARE_WITH_TIMEOUT(results.count(), 1, 20000);
    QTRY_COMPARE_WITH_TIMEOUT(controller.staleResults(), qint64(1), 5000);
    const ScopeSnapshotPtr s = results.first().at(0).value<ScopeSnapshotPtr>();
    QCOMPARE(s->generation, freshGeneration);
    QCOMPARE(s->width, qint64(31));
    QCOMPARE(results.count(), 1);
}

// A worker blocked in a call that does not return (a live source's read) does not hang the
// stop: it returns after its bound, and the thread ends, deleting what it adopted, once free.
void TestEngineWorker::blockedWorkerDoesNotHangItsStop()
{
    auto release = std::make_shared<QSemaphore>();
    auto entered = std::make_shared<QSemaphore>();
    auto adopted = new QObject;
    QPointer<QObject> watch(adopted);
    {
        WorkerThread thread(QStringLiteral("blocked"));
        thread.adopt(adopted);
        thread.post([release, entered] {
            entered->release();
            release->acquire();
        });
        entered->acquire();   // the worker is inside the call
        QElapsedTimer timer;
        timer.start();
        QVERIFY(!thread.stop(200));
        QVERIFY(timer.elapsed() < 5000);
    }
    release->release();
    QTRY_VERIFY_WITH_TIMEOUT(watch.isNull(), 10000);
}

// Scans started one after another (restartTrends does this) all end before the scanner goes:
// none talks to it after its destruction. Each new start cancels the one before.
void TestEngineWorker::restartedScansEachEndBeforeTheScanner()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("scan.avi");
    {
        cv::VideoWriter writer(path.toStdString(), cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 25.0, cv::Size(64, 48));
        if (!writer.isOpened())
            QSKIP("no MJPEG/AVI writer in this OpenCV build");
        for (int i = 0; i < 60; ++i) {
            cv::Mat noise(48, 64, CV_8UC3);
            cv::randu(noise, cv::Scalar::all(0), cv::Scalar::all(256));
            writer.write(noise);
        }
    }
    QList<quint64> ended;
    Error lastError;
    {
        TrendScanner scanner;
        connect(&scanner, &TrendScanner::finished, this, [&](quint64 scan, const Error& error) {
            ended << scan;
            lastError = error;
        });
        quint64 last = 0;
        for (int i = 0; i < 5; ++i)
            last = scanner.start(path, cpuSettings(), std::nullopt);
        QTRY_VERIFY_WITH_TIMEOUT(ended.contains(last), 20000);
        QVERIFY2(!lastError.isError(), qPrintable(lastError.message()));   // the newest ran to the end
        for (int i = 0; i < 3; ++i)
            scanner.start(path, cpuSettings(), std::nullopt);   // left running: the destructor waits
    }
    QTest::qWait(0);   // nothing queued for the dead scanner runs (it would crash here under ASan)
}

// A pass may end before start() has returned its id (a file that cannot be opened, a short
// video while this thread waits for a core). Its end is still told afterwards, through the
// event loop, never from inside start(): the caller could not yet know which pass it was.
void TestEngineWorker::aScanThatEndsAtOnceIsToldAfterStartReturns()
{
    TrendScanner scanner;
    bool insideStart = false;
    int toldInside = 0;
    QList<quint64> ended;
    connect(&scanner, &TrendScanner::finished, this, [&](quint64 scan, const Error&) {
        toldInside += insideStart ? 1 : 0;
        ended << scan;
    });
    QSignalSpy finished(&scanner, &TrendScanner::finished);
    const QString missing = QDir::temp().filePath(QStringLiteral("histoscope-no-such-scan.avi"));
    for (int i = 0; i < 1000; ++i) {
        insideStart = true;
        const quint64 scan = scanner.start(missing, cpuSettings(), std::nullopt);
        insideStart = false;
        if (!ended.contains(scan))
            QVERIFY(finished.wait(5000));
        QVERIFY(ended.contains(scan));
    }
    QCOMPARE(toldInside, 0);
}

QTEST_GUILESS_MAIN(TestEngineWorker)
#include "tst_engineworker.moc"
