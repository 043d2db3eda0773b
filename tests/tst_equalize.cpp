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

// The pixels of a rectangle as a frame of their own (shared, not copied).
Frame cropOf(const Frame& f, int x, int y, int w, int h)
{
    const std::size_t pixel = std::size_t(f.channels()) * (f.type() == hs::SampleType::U16 ? 2 : 1);
    return Frame(std::shared_ptr<const void>(), f.data() + std::size_t(y) * f.strideBytes() + std::size_t(x) * pixel, f.type(), w, h,
                 f.channels(), f.strideBytes(), f.channelOrder());
}

// Matching, written from its definition: for each v, the smallest u with
// cdf_ref(u) / n_ref >= cdf(v) / n, compared as exact fractions.
std::vector<std::uint32_t> oracleMatch(const std::vector<std::uint64_t>& hist, const std::vector<std::uint64_t>& ref)
{
    std::uint64_t n = 0, nRef = 0;
    for (auto c : hist)
        n += c;
    for (auto c : ref)
        nRef += c;
    std::vector<std::uint32_t> lut(hist.size());
    std::uint64_t cdf = 0;
    for (std::size_t v = 0; v < hist.size(); ++v) {
        cdf += hist[v];
        std::uint64_t cdfRef = 0;
        std::size_t u = 0;
        for (; u < ref.size(); ++u) {
            cdfRef += ref[u];
            if (cdfRef * n >= cdf * nRef)
                break;
        }
        lut[v] = std::uint32_t(std::min(u, ref.size() - 1));
    }
    return lut;
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
    void luminanceOnlyKeepsTheColours_data();
    void luminanceOnlyKeepsTheColours();
    void claheTilesAndClipLimit_data();
    void claheTilesAndClipLimit();
    void regionIsRespected_data();
    void regionIsRespected();
    void matchingLutMatchesTheOracle_data();
    void matchingLutMatchesTheOracle();
    void matchesAReference_data();
    void matchesAReference();
    void dialogControlsMakeTheRequest();

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
    request.channels = EqualizeChannels::PerChannel;
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
    request.channels = EqualizeChannels::PerChannel;
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

void TestEqualize::luminanceOnlyKeepsTheColours_data()
{
    QTest::addColumn<int>("type");
    QTest::addColumn<int>("channels");
    QTest::addColumn<int>("order");
    QTest::newRow("bgr8") << int(hs::SampleType::U8) << 3 << int(ChannelOrder::Bgr);
    QTest::newRow("rgb8") << int(hs::SampleType::U8) << 3 << int(ChannelOrder::Rgb);
    QTest::newRow("bgra8, alpha left alone") << int(hs::SampleType::U8) << 4 << int(ChannelOrder::Bgra);
    QTest::newRow("bgr16") << int(hs::SampleType::U16) << 3 << int(ChannelOrder::Bgr);
}

void TestEqualize::luminanceOnlyKeepsTheColours()
{
    QFETCH(int, type);
    QFETCH(int, channels);
    QFETCH(int, order);
    const auto sampleType = hs::SampleType(type);
    const int top = sampleType == hs::SampleType::U16 ? 65535 : 255;
    const Frame frame = randomFrame(m_rng, sampleType, 61, 37, channels, ChannelOrder(order), top / 4, top / 2, 2);
    EqualizationService service;
    EqualizeRequest request;   // luminance only is the default
    request.frame = frame;
    const EqualizationPtr e = runOne(service, request);
    QVERIFY(e);
    QVERIFY2(!e->error.isError(), qPrintable(e->error.message()));
    QCOMPARE(e->channels, EqualizeChannels::Luminance);
    QCOMPARE(e->luts.size(), std::size_t(1));
    QCOMPARE(e->lutNames, QStringList{"Y"});
    // The oracle: Y of YCrCb computed here, equalized by the documented LUT.
    const bool rgb = ChannelOrder(order) == ChannelOrder::Rgb;
    cv::Mat colour = matOf(frame), ycc, yccOut, colourOut = matOf(e->equalized);
    if (channels == 4) {
        cv::cvtColor(colour, colour, cv::COLOR_BGRA2BGR);
        cv::cvtColor(colourOut, colourOut, cv::COLOR_BGRA2BGR);
    }
    cv::cvtColor(colour, ycc, rgb ? cv::COLOR_RGB2YCrCb : cv::COLOR_BGR2YCrCb);
    cv::cvtColor(colourOut, yccOut, rgb ? cv::COLOR_RGB2YCrCb : cv::COLOR_BGR2YCrCb);
    cv::Mat y;
    cv::extractChannel(ycc, y, 0);
    const Frame yFrame(std::shared_ptr<const void>(), y.data, sampleType, y.cols, y.rows, 1, y.step[0], ChannelOrder::Gray);
    const std::vector<std::uint32_t> lut = oracleLut(yFrame, 0);
    QVERIFY(e->luts[0] == lut);
    // Where no output sample was clipped to the type's range, Y went through the LUT and Cr, Cb
    // stayed (within the rounding of the colour conversion).
    // OpenCV converts 16-bit YCrCb in fixed point: a round trip moves a sample by a few units of 65535.
    const double tolerance = sampleType == hs::SampleType::U16 ? 16 : 1;
    int checked = 0;
    for (int r = 0; r < y.rows; ++r)
        for (int c = 0; c < y.cols; ++c) {
            bool clipped = false;
            for (int k = 0; k < 3; ++k) {
                const double v = sampleType == hs::SampleType::U16 ? colourOut.at<cv::Vec3w>(r, c)[k] : colourOut.at<cv::Vec3b>(r, c)[k];
                clipped |= v <= 0 || v >= top;
            }
            if (clipped)
                continue;
            ++checked;
            for (int k = 0; k < 3; ++k) {
                const double in = sampleType == hs::SampleType::U16 ? ycc.at<cv::Vec3w>(r, c)[k] : ycc.at<cv::Vec3b>(r, c)[k];
                const double out = sampleType == hs::SampleType::U16 ? yccOut.at<cv::Vec3w>(r, c)[k] : yccOut.at<cv::Vec3b>(r, c)[k];
                const double expected = k == 0 ? lut[std::size_t(in)] : in;
                if (std::abs(out - expected) > tolerance)
                    QFAIL(qPrintable(QStringLiteral("pixel (%1, %2) plane %3: %4, expected %5").arg(c).arg(r).arg(k).arg(out).arg(expected)));
            }
        }
    QVERIFY2(checked > y.rows * y.cols / 2, qPrintable(QString::number(checked)));
    if (channels == 4)
        for (qint64 yy = 0; yy < frame.height(); ++yy)
            for (qint64 x = 0; x < frame.width(); ++x)
                QCOMPARE(sampleAt(e->equalized, x, yy, 3), sampleAt(frame, x, yy, 3));
}

void TestEqualize::claheTilesAndClipLimit_data()
{
    QTest::addColumn<int>("channels");
    QTest::addColumn<double>("clipLimit");
    QTest::addColumn<int>("tiles");
    QTest::addColumn<bool>("luminance");
    QTest::newRow("gray8, 4x4 tiles, clip 3") << 1 << 3.0 << 4 << false;
    QTest::newRow("gray8, 16x16 tiles, clip 1") << 1 << 1.0 << 16 << false;
    QTest::newRow("bgr8 luminance, 2x2 tiles, clip 6") << 3 << 6.0 << 2 << true;
}

void TestEqualize::claheTilesAndClipLimit()
{
    QFETCH(int, channels);
    QFETCH(double, clipLimit);
    QFETCH(int, tiles);
    QFETCH(bool, luminance);
    const Frame frame = randomFrame(m_rng, hs::SampleType::U8, 128, 96, channels, channels == 1 ? ChannelOrder::Gray : ChannelOrder::Bgr, 40, 150);
    EqualizationService service;
    EqualizeRequest request;
    request.frame = frame;
    request.method = EqualizeMethod::Clahe;
    request.channels = luminance ? EqualizeChannels::Luminance : EqualizeChannels::PerChannel;
    request.clipLimit = clipLimit;
    request.tiles = tiles;
    const EqualizationPtr e = runOne(service, request);
    QVERIFY(e && !e->error.isError());
    auto clahe = cv::createCLAHE(clipLimit, cv::Size(tiles, tiles));
    cv::Mat expected;
    if (luminance) {
        cv::Mat ycc;
        cv::cvtColor(matOf(frame), ycc, cv::COLOR_BGR2YCrCb);
        std::vector<cv::Mat> planes;
        cv::split(ycc, planes);
        clahe->apply(planes[0], planes[0]);
        cv::merge(planes, ycc);
        cv::cvtColor(ycc, expected, cv::COLOR_YCrCb2BGR);
    } else {
        clahe->apply(matOf(frame), expected);
    }
    QCOMPARE(cv::norm(expected, matOf(e->equalized), cv::NORM_INF), 0.0);
}

void TestEqualize::regionIsRespected_data()
{
    QTest::addColumn<int>("method");
    QTest::addColumn<int>("region");
    QTest::addColumn<int>("channels");
    QTest::addColumn<bool>("fails");
    QTest::newRow("global gray8, only inside") << int(EqualizeMethod::Global) << int(EqualizeRegion::InsideRegion) << 1 << false;
    QTest::newRow("global gray8, LUT from the region everywhere") << int(EqualizeMethod::Global) << int(EqualizeRegion::LutFromRegion) << 1 << false;
    QTest::newRow("global bgr8 each channel, only inside") << int(EqualizeMethod::Global) << int(EqualizeRegion::InsideRegion) << 3 << false;
    QTest::newRow("global bgr8 each channel, LUT everywhere") << int(EqualizeMethod::Global) << int(EqualizeRegion::LutFromRegion) << 3 << false;
    QTest::newRow("CLAHE gray8, only inside") << int(EqualizeMethod::Clahe) << int(EqualizeRegion::InsideRegion) << 1 << false;
    QTest::newRow("CLAHE has no LUT to take from a region") << int(EqualizeMethod::Clahe) << int(EqualizeRegion::LutFromRegion) << 1 << true;
}

void TestEqualize::regionIsRespected()
{
    QFETCH(int, method);
    QFETCH(int, region);
    QFETCH(int, channels);
    QFETCH(bool, fails);
    const Frame frame = randomFrame(m_rng, hs::SampleType::U8, 90, 60, channels, channels == 1 ? ChannelOrder::Gray : ChannelOrder::Bgr, 0, 255, 1);
    // The region holds a darker patch: its LUT differs from the whole image's.
    auto pixels = std::make_shared<std::vector<unsigned char>>(frame.data(), frame.data() + frame.byteCount());
    const int rx = 20, ry = 10, rw = 40, rh = 30;
    for (int y = ry; y < ry + rh; ++y)
        for (int x = rx; x < rx + rw; ++x)
            for (int c = 0; c < channels; ++c) {
                unsigned char& v = (*pixels)[std::size_t(y) * frame.strideBytes() + std::size_t(x * channels + c)];
                v = static_cast<unsigned char>(30 + v % 50);
            }
    const Frame input(std::shared_ptr<const void>(pixels, pixels->data()), pixels->data(), frame.type(), frame.width(), frame.height(),
                      channels, frame.strideBytes(), frame.channelOrder());
    EqualizationService service;
    EqualizeRequest request;
    request.frame = input;
    request.method = EqualizeMethod(method);
    request.channels = EqualizeChannels::PerChannel;
    request.roi = hs::Rect{rx, ry, rw, rh};
    request.region = EqualizeRegion(region);
    const EqualizationPtr e = runOne(service, request);
    QVERIFY(e);
    if (fails) {
        QCOMPARE(e->error.kind, ErrorKind::InvalidInput);
        QVERIFY(e->error.message().contains("CLAHE"));
        return;
    }
    QVERIFY2(!e->error.isError(), qPrintable(e->error.message()));
    QCOMPARE(e->region, EqualizeRegion(region));
    const Frame crop = cropOf(input, rx, ry, rw, rh);
    const bool inside = EqualizeRegion(region) == EqualizeRegion::InsideRegion;
    cv::Mat claheExpected;
    if (EqualizeMethod(method) == EqualizeMethod::Clahe)
        cv::createCLAHE(2.0, cv::Size(8, 8))->apply(matOf(crop), claheExpected);
    for (int c = 0; c < channels; ++c) {
        const std::vector<std::uint32_t> lut = oracleLut(crop, c);
        if (EqualizeMethod(method) == EqualizeMethod::Global)
            QVERIFY(e->luts[std::size_t(c)] == lut);
        for (qint64 y = 0; y < input.height(); ++y)
            for (qint64 x = 0; x < input.width(); ++x) {
                const bool in = x >= rx && x < rx + rw && y >= ry && y < ry + rh;
                const unsigned v = sampleAt(input, x, y, c);
                unsigned expected = v;
                if (in && EqualizeMethod(method) == EqualizeMethod::Clahe)
                    expected = claheExpected.ptr<std::uint8_t>(int(y - ry))[(x - rx) * channels + c];
                else if (in || !inside)
                    expected = lut[v];
                if (sampleAt(e->equalized, x, y, c) != expected)
                    QFAIL(qPrintable(QStringLiteral("pixel (%1, %2) channel %3: %4, expected %5")
                                         .arg(x).arg(y).arg(c).arg(sampleAt(e->equalized, x, y, c)).arg(expected)));
            }
    }
}

void TestEqualize::matchingLutMatchesTheOracle_data()
{
    QTest::addColumn<int>("levels");
    QTest::addColumn<int>("seedShift");
    QTest::newRow("256 levels") << 256 << 0;
    QTest::newRow("256 levels, sparse") << 256 << 1;
    QTest::newRow("65536 levels") << 65536 << 2;
}

void TestEqualize::matchingLutMatchesTheOracle()
{
    QFETCH(int, levels);
    QFETCH(int, seedShift);
    std::uniform_int_distribution<int> count(0, 40);
    std::bernoulli_distribution present(seedShift == 1 ? 0.05 : 0.6);
    std::vector<std::uint64_t> a(std::size_t(levels), 0), b(std::size_t(levels), 0);
    for (int v = 0; v < levels; ++v) {
        a[std::size_t(v)] = present(m_rng) ? std::uint64_t(count(m_rng)) : 0;
        b[std::size_t(v)] = present(m_rng) ? std::uint64_t(count(m_rng)) : 0;
    }
    a[3] += 1;
    b[levels - 7] += 1;
    QVERIFY(matchingLut(a, b) == oracleMatch(a, b));
    // Matching to itself is the identity where values are present.
    const auto self = matchingLut(a, a);
    for (int v = 0; v < levels; ++v)
        if (a[std::size_t(v)] > 0)
            QCOMPARE(self[std::size_t(v)], std::uint32_t(v));
}

void TestEqualize::matchesAReference_data()
{
    QTest::addColumn<int>("channels");
    QTest::addColumn<bool>("luminance");
    QTest::addColumn<bool>("sameType");
    QTest::newRow("gray8 to gray8") << 1 << false << true;
    QTest::newRow("bgr8 each channel") << 3 << false << true;
    QTest::newRow("bgr8 luminance") << 3 << true << true;
    QTest::newRow("another sample type is an error") << 1 << false << false;
}

void TestEqualize::matchesAReference()
{
    QFETCH(int, channels);
    QFETCH(bool, luminance);
    QFETCH(bool, sameType);
    const ChannelOrder order = channels == 1 ? ChannelOrder::Gray : ChannelOrder::Bgr;
    const Frame frame = randomFrame(m_rng, hs::SampleType::U8, 70, 50, channels, order, 20, 120);
    const Frame reference = sameType ? randomFrame(m_rng, hs::SampleType::U8, 33, 41, channels, order, 100, 250)
                                     : randomFrame(m_rng, hs::SampleType::U16, 33, 41, channels, order);
    EqualizationService service;
    EqualizeRequest request;
    request.frame = frame;
    request.reference = reference;
    request.method = EqualizeMethod::Match;
    request.channels = luminance ? EqualizeChannels::Luminance : EqualizeChannels::PerChannel;
    const EqualizationPtr e = runOne(service, request);
    QVERIFY(e);
    if (!sameType) {
        QCOMPARE(e->error.kind, ErrorKind::InvalidInput);
        QVERIFY(e->error.message().contains("sample type"));
        return;
    }
    QVERIFY2(!e->error.isError(), qPrintable(e->error.message()));
    if (luminance) {
        QCOMPARE(e->luts.size(), std::size_t(1));
        cv::Mat y, yRef, ycc, yccRef;
        cv::cvtColor(matOf(frame), ycc, cv::COLOR_BGR2YCrCb);
        cv::cvtColor(matOf(reference), yccRef, cv::COLOR_BGR2YCrCb);
        cv::extractChannel(ycc, y, 0);
        cv::extractChannel(yccRef, yRef, 0);
        const Frame fy(std::shared_ptr<const void>(), y.data, hs::SampleType::U8, y.cols, y.rows, 1, y.step[0], ChannelOrder::Gray);
        const Frame fr(std::shared_ptr<const void>(), yRef.data, hs::SampleType::U8, yRef.cols, yRef.rows, 1, yRef.step[0], ChannelOrder::Gray);
        QVERIFY(e->luts[0] == oracleMatch(oracleHistogram(fy, 0), oracleHistogram(fr, 0)));
        return;
    }
    QCOMPARE(e->luts.size(), std::size_t(channels));
    for (int c = 0; c < channels; ++c) {
        const auto lut = oracleMatch(oracleHistogram(frame, c), oracleHistogram(reference, c));
        QVERIFY(e->luts[std::size_t(c)] == lut);
        for (qint64 y = 0; y < frame.height(); ++y)
            for (qint64 x = 0; x < frame.width(); ++x)
                if (sampleAt(e->equalized, x, y, c) != lut[sampleAt(frame, x, y, c)])
                    QFAIL("a pixel did not go through the matching LUT");
    }
    // The matched image takes the reference's range.
    double lo = 0, hi = 0;
    cv::minMaxLoc(matOf(e->equalized).reshape(1), &lo, &hi);
    QVERIFY(lo >= 100 && hi <= 250);
}

void TestEqualize::dialogControlsMakeTheRequest()
{
    EqualizationService service;
    const Frame frame = randomFrame(m_rng, hs::SampleType::U8, 64, 48, 3, ChannelOrder::Bgr, 40, 200);
    const Frame reference = randomFrame(m_rng, hs::SampleType::U8, 20, 20, 3, ChannelOrder::Bgr);
    EqualizeDialog dialog(frame, QStringLiteral("colour.png"), false, &service, {}, hs::Rect{4, 5, 20, 10}, reference);
    dialog.show();
    QSignalSpy presented(&dialog, &EqualizeDialog::equalized);
    QTRY_COMPARE_WITH_TIMEOUT(presented.count(), 1, 30000);
    // A colour image starts on luminance only, the whole image.
    QCOMPARE(dialog.request().channels, EqualizeChannels::Luminance);
    QCOMPARE(dialog.request().region, EqualizeRegion::WholeImage);
    QCOMPARE(dialog.outcome()->channels, EqualizeChannels::Luminance);
    dialog.setRegion(EqualizeRegion::LutFromRegion);
    QTRY_VERIFY_WITH_TIMEOUT(dialog.outcome()->region == EqualizeRegion::LutFromRegion, 30000);
    QCOMPARE(dialog.request().roi->width, 20);
    // CLAHE cannot take a LUT from a region: the dialog falls back to "only inside".
    dialog.setMethod(EqualizeMethod::Clahe);
    QCOMPARE(dialog.request().region, EqualizeRegion::InsideRegion);
    dialog.setClahe(3.5, 6);
    QCOMPARE(dialog.request().clipLimit, 3.5);
    QCOMPARE(dialog.request().tiles, 6);
    QTRY_VERIFY_WITH_TIMEOUT(dialog.outcome()->method == EqualizeMethod::Clahe && dialog.outcome()->region == EqualizeRegion::InsideRegion, 30000);
    dialog.setMethod(EqualizeMethod::Match);
    dialog.setChannels(EqualizeChannels::PerChannel);
    QTRY_VERIFY_WITH_TIMEOUT(dialog.outcome()->method == EqualizeMethod::Match && dialog.outcome()->luts.size() == 3, 30000);
    QVERIFY2(dialog.statusText().startsWith("Matched to the reference"), qPrintable(dialog.statusText()));
}

QTEST_MAIN(TestEqualize)
#include "tst_equalize.moc"
