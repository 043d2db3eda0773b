// `histoscope-cli scope`, run as a user would (QProcess), each output object checked exactly
// against an oracle written here: the pixels of a generated PNG counted with plain loops, and
// the vectorscope's and luma's integer formulas of docs/SCOPES.md written out again.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include <random>

class TestScopeCli : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void paradeCountsColumnValues();
    void jointCountsChannelPairs();
    void vectorscopeIntegerOracle_data();
    void vectorscopeIntegerOracle();
    void waveformLumaOracle();
    void grayWaveformAndRefusals();
    void outputFileMatchesStdout();
    void writeErrorIsAnError();

private:
    struct Run {
        int exitCode = -1;
        QByteArray out;
        QByteArray err;
    };
    Run cli(const QStringList& args, const QString& stdoutFile = QString());
    static QList<QJsonObject> records(const QByteArray& jsonl);
    static QJsonObject axis(const QString& name, int bins, double lo, double hi);
    static QJsonObject outside(qint64 xb = 0, qint64 xa = 0, qint64 xn = 0, qint64 yb = 0, qint64 ya = 0, qint64 yn = 0);
    static QJsonArray countsArray(const std::vector<std::vector<qint64>>& counts);

    QTemporaryDir m_dir;
    QString m_rgb;        // 8-bit RGB PNG
    QString m_gray;       // 8-bit gray PNG
    int m_w = 11, m_h = 7;
    std::vector<std::array<int, 3>> m_pixels;   // R, G, B per pixel, row-major
    std::vector<int> m_grayPixels;
};

TestScopeCli::Run TestScopeCli::cli(const QStringList& args, const QString& stdoutFile)
{
    QProcess p;
    if (!stdoutFile.isEmpty())
        p.setStandardOutputFile(stdoutFile);
    p.start(QStringLiteral(HISTOSCOPE_CLI), QStringList{"scope"} + args);
    if (!p.waitForFinished(120000))
        return {};
    return {p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
}

QList<QJsonObject> TestScopeCli::records(const QByteArray& jsonl)
{
    QList<QJsonObject> list;
    for (const QByteArray& line : jsonl.split('\n'))
        if (!line.trimmed().isEmpty() && QJsonDocument::fromJson(line).object()["record"] != "summary")
            list << QJsonDocument::fromJson(line).object();
    return list;
}

QJsonObject TestScopeCli::axis(const QString& name, int bins, double lo, double hi)
{
    return QJsonObject{{"name", name}, {"bins", bins}, {"lo", lo}, {"hi", hi}};
}

QJsonObject TestScopeCli::outside(qint64 xb, qint64 xa, qint64 xn, qint64 yb, qint64 ya, qint64 yn)
{
    return QJsonObject{{"x", QJsonObject{{"below", xb}, {"above", xa}, {"nan", xn}}},
                       {"y", QJsonObject{{"below", yb}, {"above", ya}, {"nan", yn}}}};
}

QJsonArray TestScopeCli::countsArray(const std::vector<std::vector<qint64>>& counts)
{
    QJsonArray outer;
    for (const auto& row : counts) {
        QJsonArray inner;
        for (qint64 v : row)
            inner.append(v);
        outer.append(inner);
    }
    return outer;
}

void TestScopeCli::initTestCase()
{
    QVERIFY(m_dir.isValid());
    std::mt19937 rng(1234);
    cv::Mat bgr(m_h, m_w, CV_8UC3);
    cv::Mat gray(m_h, m_w, CV_8UC1);
    const int levels[] = {0, 17, 128, 200, 255};
    for (int y = 0; y < m_h; ++y)
        for (int x = 0; x < m_w; ++x) {
            std::array<int, 3> rgb{levels[rng() % 5], levels[rng() % 5], levels[rng() % 5]};
            m_pixels.push_back(rgb);
            bgr.at<cv::Vec3b>(y, x) = cv::Vec3b(uchar(rgb[2]), uchar(rgb[1]), uchar(rgb[0]));
            const int g = int(rng() % 256);
            m_grayPixels.push_back(g);
            gray.at<uchar>(y, x) = uchar(g);
        }
    m_rgb = m_dir.filePath("rgb.png");
    m_gray = m_dir.filePath("gray.png");
    QVERIFY(cv::imwrite(m_rgb.toStdString(), bgr));
    QVERIFY(cv::imwrite(m_gray.toStdString(), gray));
}

void TestScopeCli::paradeCountsColumnValues()
{
    const Run run = cli({"parade", m_rgb});
    QCOMPARE(run.exitCode, 0);
    const auto objects = records(run.out);
    QCOMPARE(objects.size(), 3);
    const char* names[] = {"R", "G", "B"};
    for (int c = 0; c < 3; ++c) {
        std::vector<std::vector<qint64>> counts(m_w, std::vector<qint64>(256, 0));
        for (int y = 0; y < m_h; ++y)
            for (int x = 0; x < m_w; ++x)
                ++counts[x][m_pixels[y * m_w + x][c]];
        const QJsonObject expected{{"record", "histogram2d"}, {"schema", "histoscope.histogram2d/2"},
                                   {"file", m_rgb},
                                   {"kind", "parade"},
                                   {"channel", names[c]},
                                   {"x", axis("column", m_w, 0, m_w)},
                                   {"y", axis(names[c], 256, 0, 256)},
                                   {"outside", outside()},
                                   {"counts", countsArray(counts)}};
        QCOMPARE(objects[c], expected);
    }
}

void TestScopeCli::jointCountsChannelPairs()
{
    const Run run = cli({"joint", m_rgb, "--channels", "R,B", "--cpu"});
    QCOMPARE(run.exitCode, 0);
    const auto objects = records(run.out);
    QCOMPARE(objects.size(), 1);
    std::vector<std::vector<qint64>> counts(256, std::vector<qint64>(256, 0));
    for (const auto& p : m_pixels)
        ++counts[p[0]][p[2]];
    const QJsonObject expected{{"record", "histogram2d"}, {"schema", "histoscope.histogram2d/2"}, {"file", m_rgb},
                               {"kind", "joint"},                       {"channel", "R,B"},
                               {"x", axis("R", 256, 0, 256)},           {"y", axis("B", 256, 0, 256)},
                               {"outside", outside()},                  {"counts", countsArray(counts)}};
    QCOMPARE(objects[0], expected);
    // Display indices name the same channels.
    QCOMPARE(records(cli({"joint", m_rgb, "--channels", "0,2"}).out).value(0), expected);
}

void TestScopeCli::vectorscopeIntegerOracle_data()
{
    QTest::addColumn<QString>("standard");
    QTest::newRow("bt601") << "bt601";
    QTest::newRow("bt709") << "bt709";
}

void TestScopeCli::vectorscopeIntegerOracle()
{
    QFETCH(QString, standard);
    const bool bt709 = standard == "bt709";
    // Cb = 128 + floor((kbr R + kbg G + 32768 B) / 65536), Cr = 128 + floor((32768 R + krg G + krb B) / 65536)
    const qint64 kbr = bt709 ? -7509 : -11058, kbg = bt709 ? -25259 : -21710;
    const qint64 krg = bt709 ? -29763 : -27439, krb = bt709 ? -3005 : -5329;
    auto floorDiv = [](qint64 a) { return a >= 0 ? a / 65536 : -((-a + 65535) / 65536); };
    std::vector<std::vector<qint64>> counts(256, std::vector<qint64>(256, 0));
    for (const auto& p : m_pixels) {
        const qint64 cb = 128 + floorDiv(kbr * p[0] + kbg * p[1] + 32768 * p[2]);
        const qint64 cr = 128 + floorDiv(32768 * p[0] + krg * p[1] + krb * p[2]);
        ++counts[cb][cr];
    }
    const Run run = cli({"vectorscope", m_rgb, "--standard", standard});
    QCOMPARE(run.exitCode, 0);
    const auto objects = records(run.out);
    QCOMPARE(objects.size(), 1);
    const QJsonObject expected{{"record", "histogram2d"}, {"schema", "histoscope.histogram2d/2"}, {"file", m_rgb}, {"kind", "vectorscope"},
                               {"channel", "CbCr"}, {"standard", standard}, {"x", axis("Cb", 256, 0, 256)},
                               {"y", axis("Cr", 256, 0, 256)}, {"outside", outside()}, {"counts", countsArray(counts)}};
    QCOMPARE(objects[0], expected);
}

void TestScopeCli::waveformLumaOracle()
{
    // Y = floor((13933 R + 46871 G + 4732 B + 32768) / 65536), BT.709 by default; 4 column bins.
    std::vector<std::vector<qint64>> counts(4, std::vector<qint64>(256, 0));
    for (int y = 0; y < m_h; ++y)
        for (int x = 0; x < m_w; ++x) {
            const auto& p = m_pixels[y * m_w + x];
            const qint64 luma = (13933LL * p[0] + 46871LL * p[1] + 4732LL * p[2] + 32768) / 65536;
            ++counts[x * 4 / m_w][luma];   // column bin = floor(x * bins / width)
        }
    const Run run = cli({"waveform", m_rgb, "--column-bins", "4"});
    QCOMPARE(run.exitCode, 0);
    const auto objects = records(run.out);
    QCOMPARE(objects.size(), 1);
    const QJsonObject expected{{"record", "histogram2d"}, {"schema", "histoscope.histogram2d/2"}, {"file", m_rgb}, {"kind", "waveform"},
                               {"channel", "luma"}, {"standard", "bt709"}, {"x", axis("column", 4, 0, m_w)},
                               {"y", axis("luma", 256, 0, 256)}, {"outside", outside()}, {"counts", countsArray(counts)}};
    QCOMPARE(objects[0], expected);
}

void TestScopeCli::grayWaveformAndRefusals()
{
    // A gray image's waveform is of its gray values; an ROI counts its own columns only.
    std::vector<std::vector<qint64>> counts(5, std::vector<qint64>(256, 0));
    for (int y = 1; y < 4; ++y)
        for (int x = 2; x < 7; ++x)
            ++counts[x - 2][m_grayPixels[y * m_w + x]];
    Run run = cli({"waveform", m_gray, "--roi", "2,1,5,3"});
    QCOMPARE(run.exitCode, 0);
    const QJsonObject expected{{"record", "histogram2d"}, {"schema", "histoscope.histogram2d/2"}, {"file", m_gray}, {"kind", "waveform"},
                               {"channel", "gray"}, {"x", axis("column", 5, 0, 5)}, {"y", axis("gray", 256, 0, 256)},
                               {"outside", outside()}, {"counts", countsArray(counts)}};
    QCOMPARE(records(run.out).value(0), expected);

    run = cli({"vectorscope", m_gray});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("colour"), run.err.constData());
    run = cli({"histogram2d", m_rgb});
    QCOMPARE(run.exitCode, 2);
    QVERIFY(run.err.contains("unknown kind"));
    run = cli({"joint", m_rgb});
    QCOMPARE(run.exitCode, 2);
    QVERIFY(run.err.contains("--channels"));
    run = cli({"joint", m_rgb, "--channels", "R,Q"});
    QCOMPARE(run.exitCode, 1);
    QVERIFY(run.err.contains("no channel 'Q'"));
    run = cli({"parade", m_dir.filePath("missing.png")});
    QCOMPARE(run.exitCode, 1);
    QVERIFY(run.out.isEmpty());
    run = cli({"parade", m_rgb, "--roi", "9,0,5,5"});   // outside the image: the engine's words
    QCOMPARE(run.exitCode, 1);
    QVERIFY(run.err.contains("region of interest"));
}

void TestScopeCli::outputFileMatchesStdout()
{
    const QString path = m_dir.filePath("parade.jsonl");
    const Run toFile = cli({"parade", m_rgb, "-o", path});
    QCOMPARE(toFile.exitCode, 0);
    QVERIFY(toFile.out.isEmpty());
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), cli({"parade", m_rgb}).out);
}

void TestScopeCli::writeErrorIsAnError()
{
    if (!QFile::exists("/dev/full"))
        QSKIP("no /dev/full here");
    // Exit 3, as for batch: the output could not be written (issue 20, item 15).
    const Run run = cli({"parade", m_rgb}, QStringLiteral("/dev/full"));
    QCOMPARE(run.exitCode, 3);
    QVERIFY2(run.err.contains("write failed"), run.err.constData());
    const Run toDir = cli({"parade", m_rgb, "-o", m_dir.filePath("no/such/dir/out.jsonl")});
    QCOMPARE(toDir.exitCode, 3);
    QVERIFY(!toDir.err.isEmpty());
}

QTEST_GUILESS_MAIN(TestScopeCli)
#include "tst_scope_cli.moc"
