// EqualizationService and the dialog that presents it: the global LUT and the equalized
// pixels against an oracle written here, alpha left alone, CLAHE plumbing, one engine reused
// across runs, every request answered in order, errors as Error, saving at native depth; and the
// engine's LUT application (HistogramEngine::applyLuts, which histogram matching runs through)
// against LUTs applied by hand, on the CPU backend and on the GPU when one is present.
#include "app/core/EqualizationService.h"
#include "app/gui/EqualizeDialog.h"

#include "TestSupport.h"

#include "histoscope/HistogramEngine.h"
#include "histoscope/HistogramMatching.h"

#include "widgets/CurveView.h"
#include "widgets/HistogramView.h"
#include "widgets/TablePanel.h"

#include <QApplication>
#include <QCheckBox>
#include <QDir>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <array>
#include <cstring>

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

// Random LUTs, one per selected channel below `channels`, each entry within the type.
std::vector<std::vector<std::uint32_t>> randomLuts(std::mt19937_64& rng, hs::SampleType type, int channels,
                                                   const std::array<bool, hs::kMaxChannels>& mask)
{
    const std::uint32_t levels = type == hs::SampleType::U16 ? 65536 : 256;
    std::uniform_int_distribution<std::uint32_t> entry(0, levels - 1);
    std::vector<std::vector<std::uint32_t>> luts;
    for (int c = 0; c < channels; ++c)
        if (mask[std::size_t(c)]) {
            std::vector<std::uint32_t> lut(levels);
            for (std::uint32_t& v : lut)
                v = entry(rng);
            luts.push_back(std::move(lut));
        }
    return luts;
}

// Sample `i` of an output row (u8 or u16).
unsigned outputSample(const unsigned char* row, hs::SampleType type, std::size_t i)
{
    if (type == hs::SampleType::U8)
        return row[i];
    std::uint16_t v = 0;
    std::memcpy(&v, row + 2 * i, sizeof v);
    return v;
}

cv::Mat matOf(const Frame& f)
{
    const int depth = f.type() == hs::SampleType::U16 ? CV_16U : CV_8U;
    return cv::Mat(int(f.height()), int(f.width()), CV_MAKETYPE(depth, f.channels()), const_cast<unsigned char*>(f.data()),
                   f.strideBytes());
}

// Y of OpenCV's YCrCb (BT.601) of a colour frame, as the service's luminance modes count it.
cv::Mat lumaOf(const Frame& f)
{
    const bool rgb = f.channelOrder() == ChannelOrder::Rgb || f.channelOrder() == ChannelOrder::Rgba;
    cv::Mat colour = matOf(f), ycc, y;
    if (f.channels() == 4)
        cv::cvtColor(colour, colour, rgb ? cv::COLOR_RGBA2RGB : cv::COLOR_BGRA2BGR);
    cv::cvtColor(colour, ycc, rgb ? cv::COLOR_RGB2YCrCb : cv::COLOR_BGR2YCrCb);
    cv::extractChannel(ycc, y, 0);
    return y;
}

Frame frameOfPlane(const cv::Mat& m, hs::SampleType type)
{
    return Frame(std::shared_ptr<const void>(), m.data, type, m.cols, m.rows, 1, m.step[0], ChannelOrder::Gray);
}

// The documented recombination of a new luma with the colour (app/core/LumaRecombination.h),
// written here from its definition: per pixel the value each colour channel should take (before
// rounding), and the counts the result reports.
struct HueOracle {
    std::vector<double> values;                     // 3 per pixel, storage order
    std::array<std::uint64_t, 3> below{}, above{};  // Y' + (C - Y) out of range, per storage channel
    std::uint64_t wouldClip = 0;
    std::array<std::uint64_t, 3> atLowest{}, atHighest{};   // of the rounded result
};

HueOracle hueOracle(const Frame& in, const cv::Mat& y, const cv::Mat& mapped)
{
    const bool wide = in.type() == hs::SampleType::U16;
    const double top = wide ? 65535 : 255;
    auto plane = [wide](const cv::Mat& m, int r, int c) { return wide ? double(m.at<std::uint16_t>(r, c)) : double(m.at<std::uint8_t>(r, c)); };
    HueOracle o;
    for (int r = 0; r < y.rows; ++r)
        for (int c = 0; c < y.cols; ++c) {
            const double l0 = plane(y, r, c), l1 = plane(mapped, r, c);
            bool clips = false;
            for (int k = 0; k < 3; ++k) {
                const double kept = double(sampleAt(in, c, r, k)) + l1 - l0;
                if (kept < 0)
                    ++o.below[std::size_t(k)], clips = true;
                if (kept > top)
                    ++o.above[std::size_t(k)], clips = true;
            }
            o.wouldClip += clips;
            for (int k = 0; k < 3; ++k) {
                const double v = double(sampleAt(in, c, r, k));
                // Darker: mixed with black (ratios to 0 kept); brighter: with white (ratios to top kept).
                const double mixed = l1 <= l0 ? (l0 > 0 ? v * l1 / l0 : v) : top - (top - v) * (top - l1) / (top - l0);
                o.values.push_back(mixed);
                const double rounded = std::round(mixed);
                if (rounded <= 0)
                    ++o.atLowest[std::size_t(k)];
                if (rounded >= top)
                    ++o.atHighest[std::size_t(k)];
            }
        }
    return o;
}

// The result's colour channels against the oracle: each within rounding of its value, and the
// counts the result reports (display order there) equal to the oracle's.
void checkHueKept(const Equalization& e, const Frame& in, const HueOracle& o)
{
    std::size_t i = 0;
    for (qint64 y = 0; y < in.height(); ++y)
        for (qint64 x = 0; x < in.width(); ++x)
            for (int k = 0; k < 3; ++k, ++i) {
                const double got = sampleAt(e.equalized, x, y, k);
                if (std::abs(got - o.values[i]) > 0.5 + 1e-6)
                    QFAIL(qPrintable(QStringLiteral("pixel (%1, %2) channel %3: %4, expected %5").arg(x).arg(y).arg(k).arg(got).arg(o.values[i])));
            }
    QCOMPARE(e.wouldClip, o.wouldClip);
    QCOMPARE(e.pixels, std::uint64_t(in.width()) * std::uint64_t(in.height()));
    QCOMPARE(e.range.size(), 3);
    for (int display = 0; display < 3; ++display) {
        const int k = in.storageIndexOfDisplayChannel(display);
        const ChannelRangeCounts& c = e.range[display];
        QCOMPARE(c.channel, channelName(in.channelOrder(), k));
        QCOMPARE(c.below, o.below[std::size_t(k)]);
        QCOMPARE(c.above, o.above[std::size_t(k)]);
        QCOMPARE(c.atLowest, o.atLowest[std::size_t(k)]);
        QCOMPARE(c.atHighest, o.atHighest[std::size_t(k)]);
    }
}

// A yellowish texture (high R and G, low B) and a darker reference: matching the luminance with
// Cr and Cb kept pushes B below 0 for many pixels, as matching baboon.jpg to fruits.jpg does.
Frame yellowTexture(std::mt19937_64& rng, qint64 w, qint64 h, hs::SampleType type, ChannelOrder order)
{
    const int scale = type == hs::SampleType::U16 ? 257 : 1;
    Frame f = randomFrame(rng, type, w, h, 3, order, 0, 60 * scale);
    auto pixels = std::make_shared<std::vector<unsigned char>>(f.data(), f.data() + f.byteCount());
    const Frame out(std::shared_ptr<const void>(pixels, pixels->data()), pixels->data(), type, w, h, 3, f.strideBytes(), order);
    std::uniform_int_distribution<int> red(150 * scale, 250 * scale), green(120 * scale, 220 * scale);
    const int r = order == ChannelOrder::Bgr ? 2 : 0;
    for (qint64 y = 0; y < h; ++y)
        for (qint64 x = 0; x < w; ++x) {
            unsigned char* px = pixels->data() + std::size_t(y) * f.strideBytes() + std::size_t(x) * 3 * (scale == 1 ? 1 : 2);
            auto put = [&](int c, int v) {
                if (scale == 1)
                    px[c] = static_cast<unsigned char>(v);
                else
                    reinterpret_cast<std::uint16_t*>(px)[c] = static_cast<std::uint16_t>(v);
            };
            put(r, red(rng));
            put(1, green(rng));
        }
    return out;
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
    void engineAppliesLuts_data();
    void engineAppliesLuts();
    void applyLutsRefusesBadArguments_data();
    void applyLutsRefusesBadArguments();
    void luminanceKeepsTheHueInRange_data();
    void luminanceKeepsTheHueInRange();
    void matchingNoLongerClipsBlue_data();
    void matchingNoLongerClipsBlue();
    void perChannelReportsTheEnds();
    void saveAddsTheExtension_data();
    void saveAddsTheExtension();
    void saveErrorsNameTheFileAndTheCause_data();
    void saveErrorsNameTheFileAndTheCause();
    void curveHasAxesInTheDataUnits_data();
    void curveHasAxesInTheDataUnits();
    void claheSaysItHasNoSingleCurve();
    void histogramsHaveALogOption();

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
    // Where it ran, as the service found it: "GPU (its name)" with a device, the CPU without.
    const QString where = hs::HistogramEngine::cudaDeviceCount() > 0 ? QStringLiteral("Equalized on GPU (") : QStringLiteral("Equalized on CPU in ");
    QVERIFY2(dialog.statusText().startsWith(where), qPrintable(dialog.statusText()));
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
    // Each pixel reaches its new Y (the LUT's) mixed with black or white (hueOracle).
    cv::Mat mapped = y.clone();
    for (int r = 0; r < y.rows; ++r)
        for (int c = 0; c < y.cols; ++c) {
            if (sampleType == hs::SampleType::U16)
                mapped.at<std::uint16_t>(r, c) = std::uint16_t(lut[y.at<std::uint16_t>(r, c)]);
            else
                mapped.at<std::uint8_t>(r, c) = std::uint8_t(lut[y.at<std::uint8_t>(r, c)]);
        }
    checkHueKept(*e, frame, hueOracle(frame, y, mapped));
    // The luma of the result is the LUT's (within the rounding of the colour conversion; OpenCV
    // converts 16-bit YCrCb in fixed point, a few units of 65535).
    const double tolerance = sampleType == hs::SampleType::U16 ? 16 : 1;
    for (int r = 0; r < y.rows; ++r)
        for (int c = 0; c < y.cols; ++c) {
            const double got = sampleType == hs::SampleType::U16 ? yccOut.at<cv::Vec3w>(r, c)[0] : yccOut.at<cv::Vec3b>(r, c)[0];
            const double want = sampleType == hs::SampleType::U16 ? mapped.at<std::uint16_t>(r, c) : mapped.at<std::uint8_t>(r, c);
            if (std::abs(got - want) > tolerance)
                QFAIL(qPrintable(QStringLiteral("pixel (%1, %2): luma %3, expected %4").arg(c).arg(r).arg(got).arg(want)));
        }
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
        // Y through CLAHE, put back with the colour by the documented rule.
        const cv::Mat y = lumaOf(frame);
        cv::Mat mapped;
        clahe->apply(y, mapped);
        checkHueKept(*e, frame, hueOracle(frame, y, mapped));
        return;
    }
    clahe->apply(matOf(frame), expected);
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
    QTest::newRow("match gray8, only inside") << int(EqualizeMethod::Match) << int(EqualizeRegion::InsideRegion) << 1 << false;
    QTest::newRow("match bgr8 each channel, LUT from the region everywhere") << int(EqualizeMethod::Match) << int(EqualizeRegion::LutFromRegion) << 3 << false;
    QTest::newRow("match bgr8 each channel, only inside") << int(EqualizeMethod::Match) << int(EqualizeRegion::InsideRegion) << 3 << false;
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
    const bool match = EqualizeMethod(method) == EqualizeMethod::Match;
    if (match)
        request.reference = randomFrame(m_rng, hs::SampleType::U8, 37, 23, channels, frame.channelOrder(), 140, 230);
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
        const std::vector<std::uint32_t> lut =
            match ? oracleMatch(oracleHistogram(crop, c), oracleHistogram(request.reference, c)) : oracleLut(crop, c);
        if (EqualizeMethod(method) != EqualizeMethod::Clahe)
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
    QVERIFY(hs::matchingLut(a, b) == oracleMatch(a, b));
    // Matching to itself is the identity where values are present.
    const auto self = hs::matchingLut(a, a);
    for (int v = 0; v < levels; ++v)
        if (a[std::size_t(v)] > 0)
            QCOMPARE(self[std::size_t(v)], std::uint32_t(v));
}

void TestEqualize::matchesAReference_data()
{
    QTest::addColumn<int>("channels");
    QTest::addColumn<bool>("luminance");
    QTest::addColumn<bool>("sameType");
    QTest::addColumn<bool>("wide");      // 16-bit frame and reference
    QTest::addColumn<bool>("useGpu");
    QTest::newRow("gray8 to gray8") << 1 << false << true << false << true;
    QTest::newRow("bgr8 each channel") << 3 << false << true << false << true;
    QTest::newRow("bgr8 each channel on the CPU backend") << 3 << false << true << false << false;
    QTest::newRow("bgra8 each channel, alpha left alone") << 4 << false << true << false << true;
    QTest::newRow("gray16 to gray16") << 1 << false << true << true << true;
    QTest::newRow("bgr16 each channel on the CPU backend") << 3 << false << true << true << false;
    QTest::newRow("bgr8 luminance") << 3 << true << true << false << true;
    QTest::newRow("bgr16 luminance") << 3 << true << true << true << true;
    QTest::newRow("another sample type is an error") << 1 << false << false << false << true;
}

void TestEqualize::matchesAReference()
{
    QFETCH(int, channels);
    QFETCH(bool, luminance);
    QFETCH(bool, sameType);
    QFETCH(bool, wide);
    QFETCH(bool, useGpu);
    const ChannelOrder order = channels == 1 ? ChannelOrder::Gray : opencvOrder(channels);
    const hs::SampleType type = wide ? hs::SampleType::U16 : hs::SampleType::U8;
    const int scale = wide ? 257 : 1;   // the same shares of the range at either depth
    const Frame frame = randomFrame(m_rng, type, 70, 50, channels, order, 20 * scale, 120 * scale, 3);
    const Frame reference = sameType ? randomFrame(m_rng, type, 33, 41, channels, order, 100 * scale, 250 * scale)
                                     : randomFrame(m_rng, hs::SampleType::U16, 33, 41, channels, order);
    EqualizationService service;
    EqualizeRequest request;
    request.frame = frame;
    request.reference = reference;
    request.method = EqualizeMethod::Match;
    request.channels = luminance ? EqualizeChannels::Luminance : EqualizeChannels::PerChannel;
    request.useGpu = useGpu;
    const EqualizationPtr e = runOne(service, request);
    QVERIFY(e);
    if (!sameType) {
        QCOMPARE(e->error.kind, ErrorKind::InvalidInput);
        QVERIFY(e->error.message().contains("sample type"));
        return;
    }
    QVERIFY2(!e->error.isError(), qPrintable(e->error.message()));
    // The backend named is where the engine ran, histograms and LUT alike.
    if (useGpu && hs::HistogramEngine::cudaDeviceCount() > 0)
        QVERIFY2(e->backend.startsWith(QStringLiteral("GPU (")), qPrintable(e->backend));
    else
        QCOMPARE(e->backend, QStringLiteral("CPU"));
    if (luminance) {
        QCOMPARE(e->luts.size(), std::size_t(1));
        cv::Mat y, yRef, ycc, yccRef;
        cv::cvtColor(matOf(frame), ycc, cv::COLOR_BGR2YCrCb);
        cv::cvtColor(matOf(reference), yccRef, cv::COLOR_BGR2YCrCb);
        cv::extractChannel(ycc, y, 0);
        cv::extractChannel(yccRef, yRef, 0);
        const Frame fy(std::shared_ptr<const void>(), y.data, type, y.cols, y.rows, 1, y.step[0], ChannelOrder::Gray);
        const Frame fr(std::shared_ptr<const void>(), yRef.data, type, yRef.cols, yRef.rows, 1, yRef.step[0], ChannelOrder::Gray);
        QVERIFY(e->luts[0] == oracleMatch(oracleHistogram(fy, 0), oracleHistogram(fr, 0)));
        return;
    }
    const int colour = std::min(channels, 3);
    QCOMPARE(e->luts.size(), std::size_t(colour));
    for (int c = 0; c < channels; ++c) {
        const auto lut = c < colour ? oracleMatch(oracleHistogram(frame, c), oracleHistogram(reference, c))
                                    : std::vector<std::uint32_t>();
        if (c < colour)
            QVERIFY(e->luts[std::size_t(c)] == lut);
        for (qint64 y = 0; y < frame.height(); ++y)
            for (qint64 x = 0; x < frame.width(); ++x) {
                const unsigned v = sampleAt(frame, x, y, c);
                if (sampleAt(e->equalized, x, y, c) != (c < colour ? lut[v] : v))
                    QFAIL(qPrintable(QStringLiteral("pixel (%1, %2) channel %3 did not go through the matching LUT").arg(x).arg(y).arg(c)));
            }
    }
    // The matched image takes the reference's range.
    double lo = 0, hi = 0;
    std::vector<cv::Mat> planes;
    cv::split(matOf(e->equalized), planes);
    planes.resize(std::size_t(colour));
    cv::Mat colourPlanes;
    cv::merge(planes, colourPlanes);
    cv::minMaxLoc(colourPlanes.reshape(1), &lo, &hi);
    QVERIFY(lo >= 100 * scale && hi <= 250 * scale);
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
    // Where it ran: this dialog was opened with the GPU turned off.
    QCOMPARE(dialog.outcome()->backend, QStringLiteral("CPU"));
    QVERIFY2(dialog.statusText().contains(QStringLiteral(" on CPU in ")), qPrintable(dialog.statusText()));
}

void TestEqualize::engineAppliesLuts_data()
{
    QTest::addColumn<int>("type");
    QTest::addColumn<int>("channels");
    QTest::addColumn<int>("padIn");      // samples after each input row
    QTest::addColumn<int>("padOut");     // samples after each output row; 0: packed (stride 0)
    QTest::addColumn<int>("skip");       // a channel left out of the mask (copied), or -1
    QTest::addColumn<bool>("matching");  // matchingLut of the image to a reference, or random LUTs
    QTest::addColumn<bool>("useGpu");
    const int u8 = int(hs::SampleType::U8), u16 = int(hs::SampleType::U16);
    for (const bool gpu : {false, true}) {
        const char* where = gpu ? "gpu" : "cpu";
        QTest::addRow("%s: gray8 packed, random", where) << u8 << 1 << 0 << 0 << -1 << false << gpu;
        QTest::addRow("%s: gray8 odd strides, matching", where) << u8 << 1 << 3 << 5 << -1 << true << gpu;
        QTest::addRow("%s: gray+alpha 8, alpha left out", where) << u8 << 2 << 1 << 1 << 1 << false << gpu;
        QTest::addRow("%s: bgr8 odd strides, random", where) << u8 << 3 << 3 << 7 << -1 << false << gpu;
        QTest::addRow("%s: bgr8 packed in, padded out, matching", where) << u8 << 3 << 0 << 5 << -1 << true << gpu;
        QTest::addRow("%s: bgra8 green left out, matching", where) << u8 << 4 << 1 << 3 << 1 << true << gpu;
        QTest::addRow("%s: gray16 odd strides, random", where) << u16 << 1 << 3 << 1 << -1 << false << gpu;
        QTest::addRow("%s: gray16 packed, matching", where) << u16 << 1 << 0 << 0 << -1 << true << gpu;
        QTest::addRow("%s: bgr16 packed in, padded out, random", where) << u16 << 3 << 0 << 5 << -1 << false << gpu;
        QTest::addRow("%s: bgra16 alpha left out, odd strides, matching", where) << u16 << 4 << 3 << 3 << 3 << true << gpu;
    }
}

void TestEqualize::engineAppliesLuts()
{
    QFETCH(int, type);
    QFETCH(int, channels);
    QFETCH(int, padIn);
    QFETCH(int, padOut);
    QFETCH(int, skip);
    QFETCH(bool, matching);
    QFETCH(bool, useGpu);
    hs::HistogramEngine engine(hs::EngineOptions{useGpu});
    if (useGpu && !engine.hasGpu())
        QSKIP(qPrintable(QStringLiteral("no usable CUDA device: %1").arg(QString::fromStdString(engine.notice()))));
    const auto sampleType = hs::SampleType(type);
    const ChannelOrder order = channels == 1 ? ChannelOrder::Gray : opencvOrder(channels);
    const Frame frame = randomFrame(m_rng, sampleType, 67, 45, channels, order, 0, -1, std::size_t(padIn));
    std::array<bool, hs::kMaxChannels> mask{true, true, true, true};
    if (skip >= 0)
        mask[std::size_t(skip)] = false;
    std::vector<std::vector<std::uint32_t>> luts;
    if (matching) {
        const Frame reference = randomFrame(m_rng, sampleType, 31, 29, channels, order, 0, sampleType == hs::SampleType::U8 ? 90 : 9000);
        for (int c = 0; c < channels; ++c)
            if (mask[std::size_t(c)])
                luts.push_back(hs::matchingLut(oracleHistogram(frame, c), oracleHistogram(reference, c)));
    } else {
        luts = randomLuts(m_rng, sampleType, channels, mask);
    }
    const std::size_t sample = sampleType == hs::SampleType::U16 ? 2 : 1;
    const std::size_t packed = std::size_t(frame.width()) * std::size_t(channels) * sample;
    const std::size_t stride = packed + std::size_t(padOut) * sample;
    const unsigned char poison = 0xA5;
    std::vector<unsigned char> out(stride * std::size_t(frame.height()), poison);
    hs::PhaseTimings timings;
    timings.tallyMs = -1;   // the engine replaces every phase
    const hs::Status s = engine.applyLuts(frame.view(), luts, mask, out.data(), padOut ? stride : 0, &timings);
    QVERIFY2(s.ok(), s.message.c_str());
    QCOMPARE(engine.hasGpu(), useGpu);
    QVERIFY(timings.tallyMs == 0 && timings.totalMs() >= 0);
    for (qint64 y = 0; y < frame.height(); ++y) {
        const unsigned char* row = out.data() + std::size_t(y) * stride;
        for (qint64 x = 0; x < frame.width(); ++x)
            for (int c = 0, k = 0; c < channels; ++c) {
                const unsigned v = sampleAt(frame, x, y, c);
                const unsigned expected = mask[std::size_t(c)] ? luts[std::size_t(k++)][v] : v;
                const unsigned got = outputSample(row, sampleType, std::size_t(x) * std::size_t(channels) + std::size_t(c));
                if (got != expected)
                    QFAIL(qPrintable(QStringLiteral("pixel (%1, %2) channel %3: %4, expected %5").arg(x).arg(y).arg(c).arg(got).arg(expected)));
            }
        for (std::size_t b = packed; b < stride; ++b)
            if (row[b] != poison)
                QFAIL(qPrintable(QStringLiteral("the padding of output row %1 was written").arg(y)));
    }
}

void TestEqualize::applyLutsRefusesBadArguments_data()
{
    QTest::addColumn<QString>("what");
    QTest::addColumn<QString>("message");   // a fragment of the error's words
    QTest::newRow("two LUTs for three channels") << "count" << "2 LUTs given for 3 selected channels";
    QTest::newRow("a LUT of 255 entries") << "short" << "has 255 entries; u8 samples need 256";
    QTest::newRow("a 16-bit LUT on 8-bit samples") << "long" << "has 65536 entries; u8 samples need 256";
    QTest::newRow("an entry beyond 255") << "beyond8" << "maps 17 to 256, beyond the largest u8 value 255";
    QTest::newRow("an entry beyond 65535") << "beyond16" << "maps 65535 to 65536, beyond the largest u16 value 65535";
    QTest::newRow("null output") << "null" << "LUT output is null";
    QTest::newRow("output rows shorter than the image's") << "stride" << "output rows are shorter";
    QTest::newRow("no channel selected") << "none" << "no channel selected";
    QTest::newRow("a region on the view") << "roi" << "not a region";
    QTest::newRow("float samples") << "f32" << "8- or 16-bit integer samples, not f32";
}

void TestEqualize::applyLutsRefusesBadArguments()
{
    QFETCH(QString, what);
    QFETCH(QString, message);
    hs::HistogramEngine engine;   // the GPU when there is one: the checks come before any backend
    const bool wide = what == QStringLiteral("beyond16");
    const hs::SampleType type = wide ? hs::SampleType::U16 : hs::SampleType::U8;
    const Frame frame = randomFrame(m_rng, type, 16, 9, wide ? 1 : 3, wide ? ChannelOrder::Gray : ChannelOrder::Bgr, 0, -1, 1);
    const std::array<bool, hs::kMaxChannels> all{true, true, true, true};
    std::vector<std::vector<std::uint32_t>> luts = randomLuts(m_rng, type, frame.channels(), all);
    hs::ImageView view = frame.view();
    std::array<bool, hs::kMaxChannels> mask = all;
    const std::size_t packed = std::size_t(frame.width()) * std::size_t(frame.channels()) * (wide ? 2 : 1);
    std::vector<unsigned char> out(packed * std::size_t(frame.height()) + 64, 0xA5);
    void* output = out.data();
    std::size_t stride = 0;
    if (what == QStringLiteral("count"))
        luts.pop_back();
    else if (what == QStringLiteral("short"))
        luts[2].resize(255);
    else if (what == QStringLiteral("long"))
        luts[1].resize(65536);
    else if (what == QStringLiteral("beyond8"))
        luts[1][17] = 256;
    else if (what == QStringLiteral("beyond16"))
        luts[0][65535] = 65536;
    else if (what == QStringLiteral("null"))
        output = nullptr;
    else if (what == QStringLiteral("stride"))
        stride = packed - 1;
    else if (what == QStringLiteral("none"))
        mask = {false, false, false, false};
    else if (what == QStringLiteral("roi"))
        view.roi = hs::Rect{2, 2, 4, 4};
    else if (what == QStringLiteral("f32"))
        view.type = hs::SampleType::F32;
    const hs::Status s = engine.applyLuts(view, luts, mask, output, stride);
    QCOMPARE(int(s.code), int(hs::ErrorCode::InvalidArgument));
    QVERIFY2(QString::fromStdString(s.message).contains(message), s.message.c_str());
    QVERIFY2(std::all_of(out.begin(), out.end(), [](unsigned char b) { return b == 0xA5; }), "a refused call wrote its output");
}

void TestEqualize::luminanceKeepsTheHueInRange_data()
{
    QTest::addColumn<int>("method");
    QTest::addColumn<int>("type");
    QTest::addColumn<int>("channels");
    QTest::addColumn<int>("order");
    const int u8 = int(hs::SampleType::U8), u16 = int(hs::SampleType::U16);
    QTest::newRow("global bgr8") << int(EqualizeMethod::Global) << u8 << 3 << int(ChannelOrder::Bgr);
    QTest::newRow("global rgb16") << int(EqualizeMethod::Global) << u16 << 3 << int(ChannelOrder::Rgb);
    QTest::newRow("global bgra8, alpha left alone") << int(EqualizeMethod::Global) << u8 << 4 << int(ChannelOrder::Bgra);
    QTest::newRow("match rgb8") << int(EqualizeMethod::Match) << u8 << 3 << int(ChannelOrder::Rgb);
    QTest::newRow("match bgr16") << int(EqualizeMethod::Match) << u16 << 3 << int(ChannelOrder::Bgr);
    QTest::newRow("CLAHE bgr8") << int(EqualizeMethod::Clahe) << u8 << 3 << int(ChannelOrder::Bgr);
}

void TestEqualize::luminanceKeepsTheHueInRange()
{
    QFETCH(int, method);
    QFETCH(int, type);
    QFETCH(int, channels);
    QFETCH(int, order);
    const auto sampleType = hs::SampleType(type);
    const int top = sampleType == hs::SampleType::U16 ? 65535 : 255;
    // Strong colours in a narrow band of luma: equalizing pushes many of them out of range.
    const Frame frame = randomFrame(m_rng, sampleType, 71, 43, channels, ChannelOrder(order), top / 8, top * 3 / 4, 2);
    EqualizationService service;
    EqualizeRequest request;
    request.frame = frame;
    request.method = EqualizeMethod(method);
    if (request.method == EqualizeMethod::Match)   // a gray reference spread over the whole range: its Y is itself
        request.reference = randomFrame(m_rng, sampleType, 40, 30, 1, ChannelOrder::Gray, 0, top);
    const EqualizationPtr e = runOne(service, request);
    QVERIFY(e);
    QVERIFY2(!e->error.isError(), qPrintable(e->error.message()));
    QCOMPARE(e->channels, EqualizeChannels::Luminance);
    const cv::Mat y = lumaOf(frame);
    cv::Mat mapped;
    const Frame yFrame = frameOfPlane(y, sampleType);
    if (request.method == EqualizeMethod::Clahe) {
        cv::createCLAHE(2.0, cv::Size(8, 8))->apply(y, mapped);
    } else {
        const cv::Mat yRef = request.reference.isNull() ? y : matOf(request.reference);
        const std::vector<std::uint32_t> lut = request.method == EqualizeMethod::Global
                                                   ? oracleLut(yFrame, 0)
                                                   : oracleMatch(oracleHistogram(yFrame, 0), oracleHistogram(frameOfPlane(yRef, sampleType), 0));
        QVERIFY(e->luts[0] == lut);
        mapped = y.clone();
        for (int r = 0; r < y.rows; ++r)
            for (int c = 0; c < y.cols; ++c) {
                if (sampleType == hs::SampleType::U16)
                    mapped.at<std::uint16_t>(r, c) = std::uint16_t(lut[y.at<std::uint16_t>(r, c)]);
                else
                    mapped.at<std::uint8_t>(r, c) = std::uint8_t(lut[y.at<std::uint8_t>(r, c)]);
            }
    }
    const HueOracle o = hueOracle(frame, y, mapped);
    QVERIFY2(o.wouldClip > 0, "the fixture should have pixels that keeping Cr and Cb would clip");
    checkHueKept(*e, frame, o);
    if (QTest::currentTestFailed())
        return;
    if (channels == 4)
        for (qint64 yy = 0; yy < frame.height(); ++yy)
            for (qint64 x = 0; x < frame.width(); ++x)
                QCOMPARE(sampleAt(e->equalized, x, yy, 3), sampleAt(frame, x, yy, 3));
    // One common scale of the chroma keeps the hue, and the luma is the new one.
    for (qint64 yy = 0; yy < frame.height(); ++yy)
        for (qint64 x = 0; x < frame.width(); ++x) {
            double in[3], out[3];
            for (int k = 0; k < 3; ++k) {
                in[k] = sampleAt(frame, x, yy, k);
                out[k] = sampleAt(e->equalized, x, yy, k);
            }
            cv::Mat a(1, 1, CV_32FC3, cv::Scalar(in[0] / top, in[1] / top, in[2] / top)), b(1, 1, CV_32FC3, cv::Scalar(out[0] / top, out[1] / top, out[2] / top));
            cv::Mat ha, hb;
            cv::cvtColor(a, ha, cv::COLOR_BGR2HSV);
            cv::cvtColor(b, hb, cv::COLOR_BGR2HSV);
            const double sOut = hb.at<cv::Vec3f>(0, 0)[1];
            const double span = *std::max_element(out, out + 3) - *std::min_element(out, out + 3);
            if (span < 24 * top / 255.0 || sOut < 0.15)
                continue;   // rounding moves the hue of a nearly gray pixel a lot
            double dh = std::abs(ha.at<cv::Vec3f>(0, 0)[0] - hb.at<cv::Vec3f>(0, 0)[0]);
            dh = std::min(dh, 360 - dh);
            if (dh > 6)
                QFAIL(qPrintable(QStringLiteral("pixel (%1, %2): hue moved by %3 degrees").arg(x).arg(yy).arg(dh)));
        }
}

void TestEqualize::matchingNoLongerClipsBlue_data()
{
    QTest::addColumn<int>("type");
    QTest::newRow("bgr8") << int(hs::SampleType::U8);
    QTest::newRow("bgr16") << int(hs::SampleType::U16);
}

void TestEqualize::matchingNoLongerClipsBlue()
{
    QFETCH(int, type);
    const auto sampleType = hs::SampleType(type);
    const int scale = sampleType == hs::SampleType::U16 ? 257 : 1;
    const Frame frame = yellowTexture(m_rng, 64, 48, sampleType, ChannelOrder::Bgr);
    EqualizationService service;
    EqualizeRequest request;
    request.frame = frame;
    request.method = EqualizeMethod::Match;
    request.reference = randomFrame(m_rng, sampleType, 50, 40, 3, ChannelOrder::Bgr, 0, 120 * scale);
    const EqualizationPtr e = runOne(service, request);
    QVERIFY(e);
    QVERIFY2(!e->error.isError(), qPrintable(e->error.message()));
    // Cr and Cb kept would send many pixels' B below 0 (and OpenCV's conversion back clips them to 0).
    const cv::Mat y = lumaOf(frame), yRef = lumaOf(request.reference);
    const std::vector<std::uint32_t> lut = oracleMatch(oracleHistogram(frameOfPlane(y, sampleType), 0),
                                                       oracleHistogram(frameOfPlane(yRef, sampleType), 0));
    cv::Mat mapped = y.clone();
    for (int r = 0; r < y.rows; ++r)
        for (int c = 0; c < y.cols; ++c) {
            if (sampleType == hs::SampleType::U16)
                mapped.at<std::uint16_t>(r, c) = std::uint16_t(lut[y.at<std::uint16_t>(r, c)]);
            else
                mapped.at<std::uint8_t>(r, c) = std::uint8_t(lut[y.at<std::uint8_t>(r, c)]);
        }
    const HueOracle o = hueOracle(frame, y, mapped);
    const double n = double(frame.width() * frame.height());
    QVERIFY2(double(o.below[0]) / n > 0.3, qPrintable(QString::number(double(o.below[0]) / n)));
    checkHueKept(*e, frame, o);
    if (QTest::currentTestFailed())
        return;
    const ChannelRangeCounts& blue = e->range[2];
    QCOMPARE(blue.channel, QStringLiteral("B"));
    QCOMPARE(blue.below, o.below[0]);
    // The result holds B = 0 only where B was 0 or so dark that it rounds to 0: far fewer than
    // keeping Cr and Cb would have clipped, and no pile-up just above 0 either.
    QVERIFY2(blue.atLowest * 10 < blue.below, qPrintable(QStringLiteral("%1 at 0, %2 below").arg(blue.atLowest).arg(blue.below)));
    std::uint64_t nearZero = 0, inputZero = 0;
    for (qint64 y = 0; y < frame.height(); ++y)
        for (qint64 x = 0; x < frame.width(); ++x) {
            nearZero += sampleAt(e->equalized, x, y, 0) <= unsigned(3 * scale);
            inputZero += sampleAt(frame, x, y, 0) <= unsigned(3 * scale);
        }
    QVERIFY2(nearZero < 4 * inputZero + std::uint64_t(n / 50), qPrintable(QStringLiteral("%1 near 0 after, %2 before").arg(nearZero).arg(inputZero)));
    // The dialog shows the shares with their counts.
    EqualizeDialog dialog(frame, QStringLiteral("yellow.png"), true, &service, {}, std::nullopt, request.reference);
    QSignalSpy presented(&dialog, &EqualizeDialog::equalized);
    dialog.setMethod(EqualizeMethod::Match);
    QTRY_VERIFY_WITH_TIMEOUT(dialog.outcome() && dialog.outcome()->method == EqualizeMethod::Match, 30000);
    TablePanel* table = dialog.rangeTable();
    const int top = sampleType == hs::SampleType::U16 ? 65535 : 255;
    const int column = 2;   // R, G, B
    const quint64 below = dialog.outcome()->range[2].below;
    QCOMPARE(table->cell(table->rowOf(QStringLiteral("Cr, Cb kept: below 0")), column),
             QStringLiteral("%1 % (%2)").arg(100.0 * double(below) / n, 0, 'f', 2).arg(below));
    QCOMPARE(table->cell(table->rowOf(QStringLiteral("at %1").arg(top)), column),
             QStringLiteral("%1 % (%2)").arg(100.0 * double(dialog.outcome()->range[2].atHighest) / n, 0, 'f', 2).arg(dialog.outcome()->range[2].atHighest));
    QVERIFY2(dialog.statusText().contains(QStringLiteral("No channel clipped")), qPrintable(dialog.statusText()));
}

void TestEqualize::perChannelReportsTheEnds()
{
    const Frame frame = randomFrame(m_rng, hs::SampleType::U8, 50, 30, 3, ChannelOrder::Bgr, 20, 200);
    EqualizationService service;
    EqualizeRequest request;
    request.frame = frame;
    request.channels = EqualizeChannels::PerChannel;
    const EqualizationPtr e = runOne(service, request);
    QVERIFY(e && !e->error.isError());
    QCOMPARE(e->wouldClip, std::uint64_t(0));
    QCOMPARE(e->range.size(), 3);
    for (int display = 0; display < 3; ++display) {
        const int k = 2 - display;   // BGR
        std::uint64_t low = 0, high = 0;
        for (qint64 y = 0; y < frame.height(); ++y)
            for (qint64 x = 0; x < frame.width(); ++x) {
                const unsigned v = sampleAt(e->equalized, x, y, k);
                low += v == 0;
                high += v == 255;
            }
        QCOMPARE(e->range[display].below, std::uint64_t(0));   // a LUT maps inside the range
        QCOMPARE(e->range[display].atLowest, low);
        QCOMPARE(e->range[display].atHighest, high);
        QVERIFY(low > 0 && high > 0);   // the darkest value goes to 0, the brightest to 255
    }
}

void TestEqualize::saveAddsTheExtension_data()
{
    QTest::addColumn<QString>("source");
    QTest::addColumn<int>("type");
    QTest::addColumn<QString>("typed");
    QTest::addColumn<QString>("filter");
    QTest::addColumn<QString>("written");
    const int u8 = int(hs::SampleType::U8), u16 = int(hs::SampleType::U16);
    QTest::newRow("no extension, the PNG filter") << "scan.tif" << u8 << "a" << "PNG (*.png)" << "a.png";
    QTest::newRow("no extension, the TIFF filter, 16 bits") << "scan.png" << u16 << "b" << "TIFF (*.tif *.tiff)" << "b.tif";
    QTest::newRow("no extension, no filter: the source's format") << "photo.tiff" << u16 << "c" << "" << "c.tiff";
    QTest::newRow("no extension, no filter, 8-bit JPEG source") << "photo.jpg" << u8 << "d" << "" << "d.jpg";
    QTest::newRow("16 bits from a JPEG source: PNG keeps them") << "scan.jpg" << u16 << "e" << "" << "e.png";
    QTest::newRow("an extension typed is kept") << "scan.png" << u8 << "f.tif" << "PNG (*.png)" << "f.tif";
}

void TestEqualize::saveAddsTheExtension()
{
    QFETCH(QString, source);
    QFETCH(int, type);
    QFETCH(QString, typed);
    QFETCH(QString, filter);
    QFETCH(QString, written);
    const auto sampleType = hs::SampleType(type);
    const Frame frame = randomFrame(m_rng, sampleType, 40, 30, 1, ChannelOrder::Gray, 100, sampleType == hs::SampleType::U16 ? 3000 : 180);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    EqualizationService service;
    EqualizeDialog dialog(frame, dir.filePath(source), true, &service);
    QSignalSpy presented(&dialog, &EqualizeDialog::equalized);
    QTRY_COMPARE_WITH_TIMEOUT(presented.count(), 1, 30000);
    QSignalSpy saved(&dialog, &EqualizeDialog::saved);
    dialog.save(dir.filePath(typed), filter);
    QTRY_COMPARE_WITH_TIMEOUT(saved.count(), 1, 20000);
    const Error error = saved.at(0).at(0).value<Error>();
    QVERIFY2(!error.isError(), qPrintable(error.message()));
    QCOMPARE(dialog.savedPath(), dir.filePath(written));
    QVERIFY2(dialog.statusText().contains(written), qPrintable(dialog.statusText()));
    QVERIFY(!QFileInfo::exists(dir.filePath(typed)) || typed == written);
    const cv::Mat back = cv::imread(dir.filePath(written).toStdString(), cv::IMREAD_UNCHANGED);
    QCOMPARE(back.cols, 40);
    if (!written.endsWith(QStringLiteral(".jpg"))) {   // lossless: the pixels at native depth
        QCOMPARE(back.depth(), sampleType == hs::SampleType::U16 ? CV_16U : CV_8U);
        QCOMPARE(cv::norm(back, matOf(dialog.outcome()->equalized), cv::NORM_INF), 0.0);
    }
}

void TestEqualize::saveErrorsNameTheFileAndTheCause_data()
{
    QTest::addColumn<int>("type");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("cause");
    const int u8 = int(hs::SampleType::U8), u16 = int(hs::SampleType::U16);
    QTest::newRow("an extension no format has") << u8 << "out.xyz" << "no image format is known by the extension .xyz";
    QTest::newRow("16 bits into an 8-bit format") << u16 << "out.jpg" << ".jpg keeps 8 bits per sample and this image has 16";
    QTest::newRow("no extension at all") << u8 << "out" << "has no extension";
    QTest::newRow("a folder that is not there") << u8 << "no/such/folder/out.png" << "";
}

void TestEqualize::saveErrorsNameTheFileAndTheCause()
{
    QFETCH(int, type);
    QFETCH(QString, name);
    QFETCH(QString, cause);
    const Frame frame = randomFrame(m_rng, hs::SampleType(type), 20, 10, 3, ChannelOrder::Bgr, 10, 200);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    EqualizationService service;
    QSignalSpy saved(&service, &EqualizationService::saved);
    const QString path = dir.filePath(name);
    service.save(path, frame);
    QTRY_COMPARE_WITH_TIMEOUT(saved.count(), 1, 20000);
    const Error error = saved.at(0).at(2).value<Error>();
    QVERIFY(error.isError());
    QCOMPARE(error.source, path);
    QVERIFY2(error.message().startsWith(path + QStringLiteral(": ")), qPrintable(error.message()));
    QVERIFY2(error.cause.size() > 5, qPrintable(error.cause));
    QVERIFY2(!error.message().contains(QStringLiteral("OpenCV(")), qPrintable(error.message()));
    if (!cause.isEmpty())
        QVERIFY2(error.message().contains(cause), qPrintable(error.message()));
    QVERIFY(!QFileInfo::exists(path));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 0);   // nothing half-written
}

void TestEqualize::curveHasAxesInTheDataUnits_data()
{
    QTest::addColumn<int>("type");
    QTest::newRow("8-bit: 0..255") << int(hs::SampleType::U8);
    QTest::newRow("16-bit: 0..65535") << int(hs::SampleType::U16);
}

void TestEqualize::curveHasAxesInTheDataUnits()
{
    QFETCH(int, type);
    const auto sampleType = hs::SampleType(type);
    const int top = sampleType == hs::SampleType::U16 ? 65535 : 255;
    const Frame frame = randomFrame(m_rng, sampleType, 60, 40, 1, ChannelOrder::Gray, top / 5, top / 2);
    EqualizationService service;
    EqualizeDialog dialog(frame, QStringLiteral("gray.png"), true, &service);
    dialog.show();
    QSignalSpy presented(&dialog, &EqualizeDialog::equalized);
    QTRY_COMPARE_WITH_TIMEOUT(presented.count(), 1, 30000);
    CurveView* curve = dialog.curveView();
    QCOMPARE(curve->maxLevel(), double(top));
    QCOMPARE(curve->ticks().first(), 0.0);
    QCOMPARE(curve->ticks().last(), double(top));
    QVERIFY(curve->note().isEmpty());
    const QImage image = curve->grab().toImage();
    const QRectF r = curve->plotRect(curve->size());
    QVERIFY(r.left() > 20 && r.bottom() < curve->height() - 20);   // room for the ticks' labels and the titles
    // The axes are drawn along the plot's left and bottom edges.
    const auto at = [&](double x, double y) { return image.pixelColor(int(std::floor(x)), int(std::floor(y))); };
    QCOMPARE(at(r.center().x(), r.bottom()), curve->axisColor());
    QCOMPARE(at(r.left(), r.center().y()), curve->axisColor());
    // Tick labels (text) left of the axis and under it.
    auto inked = [&](const QRect& area) {
        int n = 0;
        for (int y = area.top(); y <= area.bottom(); ++y)
            for (int x = area.left(); x <= area.right(); ++x)
                n += image.pixelColor(x, y) != CurveView::background();
        return n;
    };
    QVERIFY(inked(QRect(QPoint(0, int(r.top())), QPoint(int(r.left()) - 6, int(r.bottom())))) > 20);
    QVERIFY(inked(QRect(QPoint(int(r.left()), int(r.bottom()) + 6), QPoint(int(r.right()), curve->height() - 1))) > 20);
    // The LUT's curve: at the darkest value present the output is 0, at the brightest the top.
    const std::vector<std::uint32_t>& lut = dialog.outcome()->luts[0];
    QCOMPARE(lut[std::size_t(top / 2)], std::uint32_t(top));
    const double x = r.left() + r.width() * 0.75;   // beyond the brightest input: on the top edge
    QVERIFY(inked(QRect(int(x) - 2, int(r.top()) - 2, 5, 5)) > 0);
}

void TestEqualize::claheSaysItHasNoSingleCurve()
{
    const Frame frame = randomFrame(m_rng, hs::SampleType::U8, 80, 60, 3, ChannelOrder::Bgr, 30, 160);
    EqualizationService service;
    EqualizeDialog dialog(frame, QStringLiteral("colour.png"), true, &service);
    dialog.show();
    dialog.setMethod(EqualizeMethod::Clahe);
    QTRY_VERIFY_WITH_TIMEOUT(dialog.outcome() && dialog.outcome()->method == EqualizeMethod::Clahe, 30000);
    CurveView* curve = dialog.curveView();
    QVERIFY2(curve->note().contains(QStringLiteral("no single curve")), qPrintable(curve->note()));
    // No curve and no identity line: the diagonal is background away from the note in the middle.
    const QImage image = curve->grab().toImage();
    const QRectF r = curve->plotRect(curve->size());
    for (double t : {0.04, 0.08, 0.12, 0.88, 0.92, 0.96}) {
        const QPointF p(r.left() + t * r.width(), r.bottom() - t * r.height());
        QCOMPARE(image.pixelColor(p.toPoint()), CurveView::background());
    }
    // Back to global: a curve again, and no note.
    dialog.setMethod(EqualizeMethod::Global);
    QTRY_VERIFY_WITH_TIMEOUT(dialog.outcome() && dialog.outcome()->method == EqualizeMethod::Global, 30000);
    QVERIFY(curve->note().isEmpty());
}

void TestEqualize::histogramsHaveALogOption()
{
    // One tall bin beside small ones: log counts lift the small ones.
    auto pixels = std::make_shared<std::vector<unsigned char>>(64 * 48);
    std::uniform_int_distribution<int> value(0, 255);
    for (std::size_t i = 0; i < pixels->size(); ++i)
        (*pixels)[i] = static_cast<unsigned char>(i % 4 ? 128 : value(m_rng));
    const Frame frame(std::shared_ptr<const void>(pixels, pixels->data()), pixels->data(), hs::SampleType::U8, 64, 48, 1, 64, ChannelOrder::Gray);
    EqualizationService service;
    EqualizeDialog dialog(frame, QStringLiteral("spike.png"), true, &service);
    dialog.show();
    QSignalSpy presented(&dialog, &EqualizeDialog::equalized);
    QTRY_COMPARE_WITH_TIMEOUT(presented.count(), 1, 30000);
    QVERIFY(!dialog.beforeHistogram()->logCounts() && !dialog.afterHistogram()->logCounts());
    const QSize size(300, 160);
    const QImage linear = dialog.beforeHistogram()->render(size);
    dialog.logCountsBox()->setChecked(true);
    QVERIFY(dialog.beforeHistogram()->logCounts() && dialog.afterHistogram()->logCounts());
    const QImage logarithmic = dialog.beforeHistogram()->render(size);
    // More of the plot is filled when the small bins rise.
    auto filled = [](const QImage& image) {
        const QColor corner = image.pixelColor(image.width() - 2, 2);
        int n = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x)
                n += image.pixelColor(x, y) != corner;
        return n;
    };
    QVERIFY2(filled(logarithmic) > filled(linear) + 200, qPrintable(QStringLiteral("%1 vs %2").arg(filled(logarithmic)).arg(filled(linear))));
    dialog.logCountsBox()->setChecked(false);
    QVERIFY(!dialog.afterHistogram()->logCounts());
}

QTEST_MAIN(TestEqualize)
#include "tst_equalize.moc"
