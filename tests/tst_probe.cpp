// The pixel probe: the mean over 1 × 1, 3 × 3 and 5 × 5 (clipped at the edge, with the count of
// pixels averaged), the luma with the settings' weights and HSV, each against an oracle written
// here (and HSV also against OpenCV's float conversion); the panel's rows, its area choice and
// its luma following the settings, in the window too.
#include "app/core/PixelProbe.h"
#include "app/gui/MainWindow.h"
#include "app/gui/ProbePanel.h"
#include "app/gui/SettingsPanel.h"
#include "widgets/ImageCanvas.h"

#include "TestSupport.h"

#include <QApplication>
#include <QComboBox>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <cmath>

using namespace testsupport;

namespace {

struct Expected {
    std::vector<double> means;   // display order
    qint64 count = 0;
    qint64 width = 0, height = 0;
    double luma = 0;
    bool hasHue = false;
    double hue = 0, saturation = 0, value = 0;
};

// Display channel `d` of frame `f` is stored at `d` except R and B of BGR(A), which swap.
int storageOf(const Frame& f, int d)
{
    const bool bgr = f.channelOrder() == ChannelOrder::Bgr || f.channelOrder() == ChannelOrder::Bgra;
    return bgr && d < 3 ? 2 - d : d;
}

// The probe from its definition: the pixels of the square that lie inside the frame, each
// channel's mean, luma = kr R + kg G + kb B, and HSV (hexcone) of the means over the type's top.
Expected oracle(const Frame& f, int x, int y, int side, double kr, double kb)
{
    Expected e;
    const double top = f.type() == hs::SampleType::U16 ? 65535 : 255;
    e.means.assign(std::size_t(f.channels()), 0.0);
    qint64 x0 = f.width(), x1 = -1, y0 = f.height(), y1 = -1;
    for (int dy = -side / 2; dy <= side / 2; ++dy)
        for (int dx = -side / 2; dx <= side / 2; ++dx) {
            const int px = x + dx, py = y + dy;
            if (px < 0 || py < 0 || px >= f.width() || py >= f.height())
                continue;
            ++e.count;
            x0 = std::min<qint64>(x0, px), x1 = std::max<qint64>(x1, px);
            y0 = std::min<qint64>(y0, py), y1 = std::max<qint64>(y1, py);
            for (int d = 0; d < f.channels(); ++d)
                e.means[std::size_t(d)] += sampleAt(f, px, py, storageOf(f, d));
        }
    e.width = x1 - x0 + 1;
    e.height = y1 - y0 + 1;
    for (double& m : e.means)
        m /= double(e.count);
    if (f.channels() < 3)
        return e;
    const double r = e.means[0], g = e.means[1], b = e.means[2];
    e.luma = kr * r + (1 - kr - kb) * g + kb * b;
    const double rn = r / top, gn = g / top, bn = b / top;
    const double mx = std::max({rn, gn, bn}), mn = std::min({rn, gn, bn}), chroma = mx - mn;
    e.value = mx;
    e.saturation = mx > 0 ? chroma / mx : 0;
    e.hasHue = chroma > 0;
    if (e.hasHue) {
        double h6 = 0;
        if (mx == rn)
            h6 = std::fmod((gn - bn) / chroma + 6.0, 6.0);
        else if (mx == gn)
            h6 = (bn - rn) / chroma + 2;
        else
            h6 = (rn - gn) / chroma + 4;
        e.hue = 60 * h6;
    }
    return e;
}

}  // namespace

class TestProbe : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void meansLumaAndHsvMatchTheOracle_data();
    void meansLumaAndHsvMatchTheOracle();
    void aGrayHasNoHue();
    void panelShowsTheAreaLumaAndHsv();
    void windowProbesWithTheSettingsLuma();

private:
    std::mt19937_64 m_rng;
    QTemporaryDir m_dir;
};

void TestProbe::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    m_rng = seededRng();
}

void TestProbe::meansLumaAndHsvMatchTheOracle_data()
{
    QTest::addColumn<int>("type");
    QTest::addColumn<int>("channels");
    QTest::addColumn<int>("order");
    QTest::addColumn<int>("side");
    QTest::addColumn<int>("x");
    QTest::addColumn<int>("y");
    QTest::addColumn<int>("luma");
    const int u8 = int(hs::SampleType::U8), u16 = int(hs::SampleType::U16);
    const int bt601 = int(LumaCoefficients::Bt601), bt709 = int(LumaCoefficients::Bt709), none = int(LumaCoefficients::None);
    QTest::newRow("rgb8, one pixel, BT.709") << u8 << 3 << int(ChannelOrder::Rgb) << 1 << 7 << 5 << bt709;
    QTest::newRow("bgr8, 3x3 inside, BT.601") << u8 << 3 << int(ChannelOrder::Bgr) << 3 << 10 << 8 << bt601;
    QTest::newRow("bgr8, 5x5 inside, BT.709") << u8 << 3 << int(ChannelOrder::Bgr) << 5 << 12 << 9 << bt709;
    QTest::newRow("bgra16, 5x5 at the top-left corner: 3x3 averaged") << u16 << 4 << int(ChannelOrder::Bgra) << 5 << 0 << 0 << bt709;
    QTest::newRow("rgba16, 3x3 at the bottom-right corner: 2x2") << u16 << 4 << int(ChannelOrder::Rgba) << 3 << 22 << 16 << bt601;
    QTest::newRow("rgb8, 5x5 on the right edge: 3x5") << u8 << 3 << int(ChannelOrder::Rgb) << 5 << 22 << 8 << bt709;
    QTest::newRow("bgr8, luma off: HSV only") << u8 << 3 << int(ChannelOrder::Bgr) << 3 << 4 << 4 << none;
    QTest::newRow("gray16, 3x3: neither luma nor HSV") << u16 << 1 << int(ChannelOrder::Gray) << 3 << 9 << 3 << bt709;
    QTest::newRow("gray+alpha8, 5x5 at the left edge") << u8 << 2 << int(ChannelOrder::GrayAlpha) << 5 << 1 << 10 << bt709;
}

void TestProbe::meansLumaAndHsvMatchTheOracle()
{
    QFETCH(int, type);
    QFETCH(int, channels);
    QFETCH(int, order);
    QFETCH(int, side);
    QFETCH(int, x);
    QFETCH(int, y);
    QFETCH(int, luma);
    const Frame frame = randomFrame(m_rng, hs::SampleType(type), 23, 17, channels, ChannelOrder(order), 1, -1, 3);
    const auto coefficients = LumaCoefficients(luma);
    const double kr = coefficients == LumaCoefficients::Bt601 ? 0.299 : 0.2126;
    const double kb = coefficients == LumaCoefficients::Bt601 ? 0.114 : 0.0722;
    const Expected e = oracle(frame, x, y, side, kr, kb);
    PixelProbe p;
    p.averaged = -1;   // poisoned: the call replaces every field
    p = probePixel(frame, x, y, side, coefficients);
    QVERIFY(p.inside);
    QCOMPARE(p.area, side);
    QCOMPARE(p.averaged, e.count);
    QCOMPARE(p.width, e.width);
    QCOMPARE(p.height, e.height);
    QCOMPARE(p.samples.size(), channels);
    const double top = type == int(hs::SampleType::U16) ? 65535 : 255;
    for (int d = 0; d < channels; ++d) {
        QVERIFY2(std::abs(p.samples[d].value - e.means[std::size_t(d)]) < 1e-9, qPrintable(QString::number(p.samples[d].value)));
        QVERIFY(std::abs(p.samples[d].normalized - e.means[std::size_t(d)] / top) < 1e-12);
    }
    if (channels < 3) {
        QVERIFY(!p.luma && !p.hsv);
        return;
    }
    QCOMPARE(p.luma.has_value(), coefficients != LumaCoefficients::None);
    if (p.luma) {
        QVERIFY2(std::abs(*p.luma - e.luma) < 1e-9, qPrintable(QString::number(*p.luma)));
        QVERIFY(std::abs(*p.lumaNormalized - e.luma / top) < 1e-12);
        QCOMPARE(p.lumaCoefficients, coefficients);
    }
    QVERIFY(p.hsv);
    QCOMPARE(p.hsv->hue.has_value(), e.hasHue);
    if (e.hasHue)
        QVERIFY2(std::abs(*p.hsv->hue - e.hue) < 1e-9, qPrintable(QString::number(*p.hsv->hue)));
    QVERIFY(std::abs(p.hsv->saturation - e.saturation) < 1e-12);
    QVERIFY(std::abs(p.hsv->value - e.value) < 1e-12);
    // OpenCV's float conversion agrees (single precision: hue in degrees, S and V in 0..1).
    cv::Mat rgb(1, 1, CV_32FC3, cv::Scalar(e.means[0] / top, e.means[1] / top, e.means[2] / top)), hsv;
    cv::cvtColor(rgb, hsv, cv::COLOR_RGB2HSV);
    const cv::Vec3f h = hsv.at<cv::Vec3f>(0, 0);
    if (e.hasHue)
        QVERIFY2(std::abs(h[0] - *p.hsv->hue) < 1e-2 || std::abs(std::abs(h[0] - *p.hsv->hue) - 360) < 1e-2, qPrintable(QString::number(h[0])));
    QVERIFY(std::abs(h[1] - p.hsv->saturation) < 1e-5);
    QVERIFY(std::abs(h[2] - p.hsv->value) < 1e-5);
}

void TestProbe::aGrayHasNoHue()
{
    auto pixels = std::make_shared<std::vector<unsigned char>>(std::vector<unsigned char>{90, 90, 90});
    const Frame gray(std::shared_ptr<const void>(pixels, pixels->data()), pixels->data(), hs::SampleType::U8, 1, 1, 3, 3, ChannelOrder::Rgb);
    const PixelProbe p = probePixel(gray, 0, 0, 5, LumaCoefficients::Bt709);
    QCOMPARE(p.averaged, qint64(1));
    QVERIFY(p.hsv && !p.hsv->hue);
    QCOMPARE(p.hsv->saturation, 0.0);
    QVERIFY(std::abs(*p.luma - 90) < 1e-9);
    QVERIFY(!probePixel(gray, 1, 0).inside);
}

void TestProbe::panelShowsTheAreaLumaAndHsv()
{
    ProbePanel panel;
    panel.show();
    const Frame frame = randomFrame(m_rng, hs::SampleType::U8, 30, 20, 3, ChannelOrder::Bgr, 1, 254);
    panel.setLuma(LumaCoefficients::Bt709);
    panel.probeAt(frame, QPoint(10, 10));
    QCOMPARE(panel.averagedText(), QStringLiteral("1 pixel"));
    QCOMPARE(panel.rowCount(), 3);
    QCOMPARE(panel.derivedRowCount(), 4);
    QCOMPARE(panel.derivedText(0, 0), QStringLiteral("luma (BT.709)"));
    QCOMPARE(panel.derivedText(1, 0), QStringLiteral("hue"));
    QCOMPARE(panel.derivedText(2, 0), QStringLiteral("saturation"));
    QCOMPARE(panel.derivedText(3, 0), QStringLiteral("value"));
    Expected e = oracle(frame, 10, 10, 1, 0.2126, 0.0722);
    QCOMPARE(panel.valueText(0, 1), QString::number(qint64(e.means[0])));
    QCOMPARE(panel.derivedText(0, 1), QString::number(e.luma, 'f', 2));
    QCOMPARE(panel.derivedText(3, 2), QString::number(e.value, 'f', 6));
    // 3 x 3: the choice re-probes the same pixel; the means get two decimals.
    panel.setArea(3);
    QCOMPARE(panel.area(), 3);
    QCOMPARE(panel.averagedText(), QStringLiteral("mean of 9 pixels"));
    e = oracle(frame, 10, 10, 3, 0.2126, 0.0722);
    QCOMPARE(panel.valueText(0, 1), QString::number(e.means[0], 'f', 2));
    QCOMPARE(panel.derivedText(2, 2), QString::number(e.saturation, 'f', 6));
    // The settings' weights: BT.601 probes again with them.
    panel.setLuma(LumaCoefficients::Bt601);
    QCOMPARE(panel.derivedText(0, 0), QStringLiteral("luma (BT.601)"));
    e = oracle(frame, 10, 10, 3, 0.299, 0.114);
    QCOMPARE(panel.derivedText(0, 1), QString::number(e.luma, 'f', 2));
    // 5 x 5 in a corner: clipped at the edge, and said.
    panel.areaBox()->setCurrentIndex(panel.areaBox()->findData(5));
    panel.probeAt(frame, QPoint(29, 0));
    QCOMPARE(panel.averagedText(), QStringLiteral("mean of 9 pixels (3 × 3, clipped at the edge)"));
    // Luma turned off in the settings: HSV alone.
    panel.setLuma(LumaCoefficients::None);
    QCOMPARE(panel.derivedRowCount(), 3);
    QCOMPARE(panel.derivedText(0, 0), QStringLiteral("hue"));
    // A gray frame has neither.
    panel.probeAt(randomFrame(m_rng, hs::SampleType::U8, 8, 8, 1, ChannelOrder::Gray), QPoint(3, 3));
    QCOMPARE(panel.derivedRowCount(), 0);
    QCOMPARE(panel.averagedText(), QStringLiteral("mean of 25 pixels"));
    panel.clearProbe();
    QCOMPARE(panel.rowCount(), 0);
    QCOMPARE(panel.derivedRowCount(), 0);
    QVERIFY(panel.averagedText().isEmpty());
}

void TestProbe::windowProbesWithTheSettingsLuma()
{
    QSettings().clear();
    MainWindow window;
    window.show();
    cv::Mat m(24, 32, CV_8UC3);
    cv::randu(m, cv::Scalar::all(1), cv::Scalar::all(255));
    const QString path = m_dir.filePath("probe.png");
    QVERIFY(cv::imwrite(path.toStdString(), m));
    window.openPath(path);
    QTRY_VERIFY_WITH_TIMEOUT(window.lastSnapshot(), 20000);
    HistogramSettings settings = window.settingsPanel()->settings();
    settings.display.luma = LumaCoefficients::Bt601;
    window.setSettings(settings);
    ProbePanel* probe = window.probePanel();
    probe->setArea(3);
    ImageCanvas* canvas = window.imageView();
    QTRY_VERIFY(canvas->isVisible());
    const QPoint pixel(12, 9);
    auto aim = [&] {
        QTest::mouseMove(canvas, QPoint(1, 1));
        QTest::mouseMove(canvas, canvas->imageToWidget(QPointF(pixel) + QPointF(0.5, 0.5)).toPoint());
        return probe->positionText() == QStringLiteral("x 12  y 9");
    };
    QTRY_VERIFY2(aim(), qPrintable(probe->positionText()));
    QCOMPARE(probe->averagedText(), QStringLiteral("mean of 9 pixels"));
    QCOMPARE(probe->derivedText(0, 0), QStringLiteral("luma (BT.601)"));
    // The oracle on the file's pixels: OpenCV stores B, G, R.
    double r = 0, g = 0, b = 0;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
            const cv::Vec3b v = m.at<cv::Vec3b>(pixel.y() + dy, pixel.x() + dx);
            b += v[0], g += v[1], r += v[2];
        }
    const double luma = (0.299 * r + 0.587 * g + 0.114 * b) / 9;
    QCOMPARE(probe->derivedText(0, 1), QString::number(luma, 'f', 2));
    QCOMPARE(probe->valueText(0, 1), QString::number(r / 9, 'f', 2));
}

QTEST_MAIN(TestProbe)
#include "tst_probe.moc"
