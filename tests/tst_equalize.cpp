// EqualizationService and the dialog that presents it: the global LUT and the equalized
// pixels against an oracle written here, alpha left alone, CLAHE plumbing, one engine reused
// across runs, every request answered in order, errors as Error, saving at native depth.
#include "app/core/EqualizationService.h"
#include "app/gui/EqualizeDialog.h"

#include "TestSupport.h"

#include <QApplication>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

using namespace testsupport;

namespace {

// The documented global equalization, written independently of the engine:
// lut(v) = round_half_up((cdf(v) - cdf_min) * (L - 1) / (n - cdf_min)) for v at or above the
// smallest present value, 0 below it, and the identity for a constant channel.
std::vector<std::uint32_t> oracleLut(const Frame& f, int channel)
{
    const std::uint64_t levels = f.type() == hs::SampleType::U16 ? 65536 : 256;
    std::vector<std::uint64_t> hist(levels);
    for (qint64 y = 0; y < f.height(); ++y)
        for (qint64 x = 0; x < f.width(); ++x)
            ++hist[sampleAt(f, x, y, channel)];
    const std::uint64_t n = std::uint64_t(f.width()) * std::uint64_t(f.height());
    std::uint64_t first = 0;
    while (hist[first] == 0)
        ++first;
    const std::uint64_t cdfMin = hist[first];
    std::vector<std::uint32_t> lut(levels);
    std::uint64_t cdf = 0;
    for (std::uint64_t v = 0; v < levels; ++v) {
        cdf += hist[v];
        if (n == cdfMin) {
            lut[v] = std::uint32_t(v);
        } else if (v < first) {
            lut[v] = 0;
        } else {
            const std::uint64_t num = (cdf - cdfMin) * (levels - 1), den = n - cdfMin;
            const std::uint64_t q = num / den, r = num % den;
            lut[v] = std::uint32_t(q + (2 * r >= den ? 1 : 0));
        }
    }
    return lut;
}

std::vector<std::uint64_t> oracleHistogram(const Frame& f, int channel)
{
    std::vector<std::uint64_t> hist(f.type() == hs::SampleType::U16 ? 65536 : 256);
    for (qint64 y = 0; y < f.height(); ++y)
        for (qint64 x = 0; x < f.width(); ++x)
            ++hist[sampleAt(f, x, y, channel)];
    return hist;
}

std::vector<int> colourChannels(const Frame& f)
{
    if (f.channels() == 2)
        return {0};
    std::vector<int> out;
    for (int c = 0; c < std::min(f.channels(), 3); ++c)
        out.push_back(c);
    return out;
}

cv::Mat matOf(const Frame& f)
{
    const int depth = f.type() == hs::SampleType::U16 ? CV_16U : CV_8U;
    return cv::Mat(int(f.height()), int(f.width()), CV_MAKETYPE(depth, f.channels()), const_cast<unsigned char*>(f.data()),
                   f.strideBytes());
}

}  // namespace

class TestEqualize : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void globalMatchesTheOracle_data();
    void globalMatchesTheOracle();
    void claheMatchesOpenCvPerChannel_data();
    void claheMatchesOpenCvPerChannel();
    void oneEngineIsReused();
    void everyRequestAnswersInOrder();
    void unsupportedTypeIsAnError();
    void savesAtNativeDepth();
    void dialogPresentsTheLatestAnswer();

private:
    EqualizationPtr runOne(EqualizationService& service, const EqualizeRequest& request);

    QTemporaryDir m_dir;
    std::mt19937_64 m_rng;
};

void TestEqualize::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_rng = seededRng();
}

EqualizationPtr TestEqualize::runOne(EqualizationService& service, const EqualizeRequest& request)
{
    QSignalSpy answers(&service, &EqualizationService::equalized);
    const quint64 id = service.equalize(request);
    if (!answers.wait(30000) && answers.isEmpty())
        return {};
    EqualizationPtr result = answers.at(0).at(0).value<EqualizationPtr>();
    return result && result->id == id ? result : EqualizationPtr();
}

void TestEqualize::globalMatchesTheOracle_data()
{
    QTest::addColumn<int>("type");
    QTest::addColumn<int>("channels");
    QTest::addColumn<int>("lo");
    QTest::addColumn<int>("hi");
    QTest::addColumn<bool>("useGpu");
    QTest::newRow("gray8, low contrast 40..79") << int(hs::SampleType::U8) << 1 << 40 << 79 << true;
    QTest::newRow("bgr8, full range") << int(hs::SampleType::U8) << 3 << 0 << 255 << true;
    QTest::newRow("bgra8, alpha left alone") << int(hs::SampleType::U8) << 4 << 10 << 200 << true;
    QTest::newRow("gray+alpha 8, alpha left alone") << int(hs::SampleType::U8) << 2 << 100 << 140 << true;
    QTest::newRow("gray16, 12-bit data") << int(hs::SampleType::U16) << 1 << 0 << 4095 << true;
    QTest::newRow("constant gray8 stays as it is") << int(hs::SampleType::U8) << 1 << 77 << 77 << true;
    QTest::newRow("bgr8 on the CPU backend") << int(hs::SampleType::U8) << 3 << 30 << 90 << false;
}

void TestEqualize::globalMatchesTheOracle()
{
    QFETCH(int, type);
    QFETCH(int, channels);
    QFETCH(int, lo);
    QFETCH(int, hi);
    QFETCH(bool, useGpu);
    const Frame frame = randomFrame(m_rng, hs::SampleType(type), 67, 45, channels,
                                    channels == 1 ? ChannelOrder::Gray : opencvOrder(channels), lo, hi, 3);
    EqualizationService service;
    EqualizeRequest request;
    request.frame = frame;
    request.source = QStringLiteral("fixture");
    request.useGpu = useGpu;
    const EqualizationPtr e = runOne(service, request);
    QVERIFY(e);
    QVERIFY2(!e->error.isError(), qPrintable(e->error.message()));
    const std::vector<int> colour = colourChannels(frame);
    QCOMPARE(e->luts.size(), colour.size());
    QCOMPARE(e->before.channels.size(), colour.size());
    QCOMPARE(e->after.channels.size(), colour.size());
    const Frame& out = e->equalized;
    QCOMPARE(out.width(), frame.width());
    QCOMPARE(out.height(), frame.height());
    QCOMPARE(out.channels(), frame.channels());
    QCOMPARE(out.type(), frame.type());
    for (std::size_t i = 0; i < colour.size(); ++i) {
        const int c = colour[i];
        const std::vector<std::uint32_t> lut = oracleLut(frame, c);
        QVERIFY2(e->luts[i] == lut, qPrintable(QStringLiteral("LUT of channel %1").arg(c)));
        QCOMPARE(e->before.channels[i].channel, c);
        QVERIFY(e->before.channels[i].counts == oracleHistogram(frame, c));
        QVERIFY(e->after.channels[i].counts == oracleHistogram(out, c));
        for (qint64 y = 0; y < frame.height(); ++y)
            for (qint64 x = 0; x < frame.width(); ++x)
                if (sampleAt(out, x, y, c) != lut[sampleAt(frame, x, y, c)])
                    QFAIL(qPrintable(QStringLiteral("pixel (%1, %2) channel %3").arg(x).arg(y).arg(c)));
    }
    const int alpha = channels == 2 ? 1 : channels == 4 ? 3 : -1;
    if (alpha >= 0)
        for (qint64 y = 0; y < frame.height(); ++y)
            for (qint64 x = 0; x < frame.width(); ++x)
                QCOMPARE(sampleAt(out, x, y, alpha), sampleAt(frame, x, y, alpha));
    // Pictures for the dialog, made off the GUI thread.
    QCOMPARE(e->inputPreview.channels(), 3);
    QCOMPARE(e->equalizedPreview.width(), frame.width());
}

void TestEqualize::claheMatchesOpenCvPerChannel_data()
{
    QTest::addColumn<int>("channels");
    QTest::addColumn<double>("clipLimit");
    QTest::newRow("gray8, clip 2") << 1 << 2.0;
    QTest::newRow("bgra8, clip 4, alpha left alone") << 4 << 4.0;
}

void TestEqualize::claheMatchesOpenCvPerChannel()
{
    QFETCH(int, channels);
    QFETCH(double, clipLimit);
    const Frame frame = randomFrame(m_rng, hs::SampleType::U8, 96, 64, channels,
                                    channels == 1 ? ChannelOrder::Gray : opencvOrder(channels), 50, 120);
    EqualizationService service;
    EqualizeRequest request;
    request.frame = frame;
    request.method = EqualizeMethod::Clahe;
    request.clipLimit = clipLimit;
    const EqualizationPtr e = runOne(service, request);
    QVERIFY(e);
    QVERIFY2(!e->error.isError(), qPrintable(e->error.message()));
    QVERIFY(e->luts.empty());   // one curve per tile, none per image
    std::vector<cv::Mat> planes;
    cv::split(matOf(frame), planes);
    auto clahe = cv::createCLAHE(clipLimit, cv::Size(8, 8));
    for (int c = 0; c < std::min(channels, 3); ++c)
        clahe->apply(planes[std::size_t(c)], planes[std::size_t(c)]);
    cv::Mat expected;
    cv::merge(planes, expected);
    QCOMPARE(cv::norm(expected, matOf(e->equalized), cv::NORM_INF), 0.0);
    QCOMPARE(e->after.channels.size(), std::size_t(std::min(channels, 3)));
}

void TestEqualize::oneEngineIsReused()
{
    EqualizationService service;
    EqualizeRequest request;
    request.frame = randomFrame(m_rng, hs::SampleType::U8, 40, 30, 3, ChannelOrder::Bgr, 20, 220);
    const EqualizeMethod methods[] = {EqualizeMethod::Global, EqualizeMethod::Clahe, EqualizeMethod::Global};
    for (EqualizeMethod m : methods) {
        request.method = m;
        const EqualizationPtr e = runOne(service, request);
        QVERIFY(e && !e->error.isError());
        QCOMPARE(e->engineSerial, quint64(1));   // the service's first engine, every time
    }
    // Only a different GPU choice makes a new engine.
    request.useGpu = false;
    for (int i = 0; i < 2; ++i) {
        const EqualizationPtr e = runOne(service, request);
        QVERIFY(e && !e->error.isError());
        QCOMPARE(e->engineSerial, quint64(2));
        QCOMPARE(e->backend, QStringLiteral("CPU"));
    }
}

void TestEqualize::everyRequestAnswersInOrder()
{
    EqualizationService service;
    QSignalSpy answers(&service, &EqualizationService::equalized);
    std::vector<quint64> ids;
    for (int i = 0; i < 6; ++i) {
        EqualizeRequest request;
        request.frame = randomFrame(m_rng, hs::SampleType::U8, 30 + i, 20, 1, ChannelOrder::Gray);
        request.method = i % 2 ? EqualizeMethod::Clahe : EqualizeMethod::Global;
        ids.push_back(service.equalize(request));
    }
    QTRY_COMPARE_WITH_TIMEOUT(answers.count(), 6, 60000);
    for (int i = 0; i < 6; ++i) {
        const EqualizationPtr e = answers.at(i).at(0).value<EqualizationPtr>();
        QCOMPARE(e->id, ids[std::size_t(i)]);
        QCOMPARE(e->equalized.width(), qint64(30 + i));
    }
}

void TestEqualize::unsupportedTypeIsAnError()
{
    auto pixels = std::make_shared<std::vector<float>>(12 * 8, 0.25f);
    const Frame floats(std::shared_ptr<const void>(pixels, pixels->data()),
                       reinterpret_cast<const unsigned char*>(pixels->data()), hs::SampleType::F32, 12, 8, 1,
                       12 * sizeof(float), ChannelOrder::Gray);
    EqualizationService service;
    EqualizeRequest request;
    request.frame = floats;
    request.source = QStringLiteral("/data/float.exr");
    const EqualizationPtr e = runOne(service, request);
    QVERIFY(e);
    QCOMPARE(e->error.kind, ErrorKind::UnsupportedType);
    QCOMPARE(e->error.source, request.source);
    QVERIFY(e->error.message().contains("f32") || e->error.message().contains("float"));
    QVERIFY(e->equalized.isNull());
}

void TestEqualize::savesAtNativeDepth()
{
    EqualizationService service;
    EqualizeRequest request;
    request.frame = randomFrame(m_rng, hs::SampleType::U16, 33, 21, 1, ChannelOrder::Gray, 1000, 3000);
    const EqualizationPtr e = runOne(service, request);
    QVERIFY(e && !e->error.isError());
    QSignalSpy saved(&service, &EqualizationService::saved);
    const QString path = m_dir.filePath("equalized16.png");
    const quint64 id = service.save(path, e->equalized);
    QTRY_COMPARE_WITH_TIMEOUT(saved.count(), 1, 20000);
    QCOMPARE(saved.at(0).at(0).toULongLong(), id);
    QVERIFY(!saved.at(0).at(2).value<Error>().isError());
    const cv::Mat back = cv::imread(path.toStdString(), cv::IMREAD_UNCHANGED);
    QCOMPARE(back.depth(), CV_16U);
    QCOMPARE(cv::norm(back, matOf(e->equalized), cv::NORM_INF), 0.0);
    // A write that cannot happen answers with an Error that names the file.
    const QString bad = m_dir.filePath("no/such/folder/out.png");
    service.save(bad, e->equalized);
    QTRY_COMPARE_WITH_TIMEOUT(saved.count(), 2, 20000);
    const Error error = saved.at(1).at(2).value<Error>();
    QVERIFY(error.isError());
    QCOMPARE(error.source, bad);
}

void TestEqualize::dialogPresentsTheLatestAnswer()
{
    EqualizationService service;
    const Frame frame = randomFrame(m_rng, hs::SampleType::U8, 120, 90, 1, ChannelOrder::Gray, 40, 79);
    EqualizeDialog dialog(frame, QStringLiteral("dark.png"), true, &service);
    dialog.show();
    QSignalSpy presented(&dialog, &EqualizeDialog::equalized);
    // Switch method before the first answer is presented: only the latest request is shown.
    dialog.setMethod(EqualizeMethod::Clahe);
    QTRY_COMPARE_WITH_TIMEOUT(presented.count(), 1, 30000);
    QVERIFY(dialog.outcome());
    QCOMPARE(dialog.outcome()->method, EqualizeMethod::Clahe);
    dialog.setMethod(EqualizeMethod::Global);
    QTRY_COMPARE_WITH_TIMEOUT(presented.count(), 2, 30000);
    const EqualizationPtr e = dialog.outcome();
    QCOMPARE(e->method, EqualizeMethod::Global);
    QVERIFY(e->luts[0] == oracleLut(frame, 0));
    QCOMPARE(e->luts[0][40], 0u);     // the darkest value present maps to 0
    QCOMPARE(e->luts[0][79], 255u);   // the brightest to 255
    QVERIFY2(dialog.statusText().startsWith("Equalized on"), qPrintable(dialog.statusText()));
    QSignalSpy saved(&dialog, &EqualizeDialog::saved);
    const QString path = m_dir.filePath("dialog.png");
    dialog.save(path);
    QTRY_COMPARE_WITH_TIMEOUT(saved.count(), 1, 20000);
    QVERIFY(!saved.at(0).at(0).value<Error>().isError());
    const cv::Mat back = cv::imread(path.toStdString(), cv::IMREAD_UNCHANGED);
    double lo = 0, hi = 0;
    cv::minMaxLoc(back, &lo, &hi);
    QCOMPARE(lo, 0.0);
    QCOMPARE(hi, 255.0);
}

QTEST_MAIN(TestEqualize)
#include "tst_equalize.moc"
