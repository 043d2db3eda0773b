// io/: every format and source loads at native depth; every bad input is a typed error naming
// the file and the cause. Fixtures are written by the test itself, with OpenCV.
#include "io/FrameSource.h"
#include "io/ImageLoader.h"
#include "io/RawLoader.h"
#include "io/VideoReader.h"

#include "AviEdit.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>
#include <opencv2/videoio/registry.hpp>

#include <QElapsedTimer>

#include <fcntl.h>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

Q_DECLARE_METATYPE(ErrorKind)

class TestLoaders : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void imagesAtNativeDepth_data();
    void imagesAtNativeDepth();
    void multiPageTiffIsAStack();
    void videoFileFrameByFrame();
    void liveGStreamerSource();
    void missingCamera();
    void rawFiles_data();
    void rawFiles();
    void npyFiles_data();
    void npyFiles();
    void badInput_data();
    void badInput();
    void rawShapeKinds_data();
    void rawShapeKinds();
    void npyHeaderKinds_data();
    void npyHeaderKinds();
    void truncatedJpegWarns();
    void hugeDeclaredImageIsRefused();
    void endMarkerCheck_data();
    void endMarkerCheck();
    void budgetReadsTheHeader_data();
    void budgetReadsTheHeader();
    void tiffPagesWithinTheBudget();
    void convertedRawIsStreamedInChunks_data();
    void convertedRawIsStreamedInChunks();
    void shrinkingMappedFileIsAnError_data();
    void shrinkingMappedFileIsAnError();
    void specialFilesDoNotBlock();
    void corruptVideoFailsQuickly();
    void videoHeaderCountIsAnEstimate_data();
    void videoHeaderCountIsAnEstimate();

private:
    QString path(const QString& name) const { return m_dir.filePath(name); }
    void writeBytes(const QString& name, const QByteArray& bytes) const;
    static cv::Mat randomMat(int rows, int cols, int type, std::mt19937_64& rng);
    static QByteArray npy(int major, const QByteArray& descr, const QByteArray& shape, const QByteArray& data,
                          bool fortran = false);

    QTemporaryDir m_dir;
    std::mt19937_64 m_rng;
};

void TestLoaders::initTestCase()
{
    QVERIFY(m_dir.isValid());
    const QByteArray fixed = qgetenv("HISTOSCOPE_SEED");
    const std::uint64_t seed = fixed.isEmpty() ? std::random_device{}() : fixed.toULongLong();
    qInfo("HISTOSCOPE_SEED=%llu", static_cast<unsigned long long>(seed));
    m_rng.seed(seed);
}

void TestLoaders::writeBytes(const QString& name, const QByteArray& bytes) const
{
    QFile f(path(name));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes);
}

cv::Mat TestLoaders::randomMat(int rows, int cols, int type, std::mt19937_64& rng)
{
    cv::Mat m(rows, cols, type);
    cv::RNG cvRng(rng());
    if (CV_MAT_DEPTH(type) == CV_32F)
        cvRng.fill(m, cv::RNG::UNIFORM, -0.5, 1.5);
    else
        cvRng.fill(m, cv::RNG::UNIFORM, 0, CV_MAT_DEPTH(type) == CV_8U ? 256 : 65536);
    return m;
}

void TestLoaders::imagesAtNativeDepth_data()
{
    QTest::addColumn<QString>("suffix");
    QTest::addColumn<int>("cvType");
    QTest::addColumn<int>("sampleType");
    QTest::addColumn<bool>("lossless");
    const struct { const char* suffix; int type; hs::SampleType sample; bool lossless; } rows[] = {
        {"png", CV_8UC1, hs::SampleType::U8, true},    {"png", CV_8UC3, hs::SampleType::U8, true},
        {"png", CV_8UC4, hs::SampleType::U8, true},    {"png", CV_16UC1, hs::SampleType::U16, true},
        {"png", CV_16UC3, hs::SampleType::U16, true},  {"png", CV_16UC4, hs::SampleType::U16, true},
        {"jpg", CV_8UC1, hs::SampleType::U8, false},   {"jpg", CV_8UC3, hs::SampleType::U8, false},
        {"tif", CV_8UC1, hs::SampleType::U8, true},    {"tif", CV_8UC3, hs::SampleType::U8, true},
        {"tif", CV_8UC4, hs::SampleType::U8, true},    {"tif", CV_16UC1, hs::SampleType::U16, true},
        {"tif", CV_16UC3, hs::SampleType::U16, true},  {"tif", CV_32FC1, hs::SampleType::F32, true},
        {"tif", CV_32FC3, hs::SampleType::F32, false}  /* OpenCV writes SGI LogLuv */,  {"bmp", CV_8UC1, hs::SampleType::U8, true},
        {"bmp", CV_8UC3, hs::SampleType::U8, true},    {"webp", CV_8UC3, hs::SampleType::U8, false},
        {"webp", CV_8UC4, hs::SampleType::U8, false},  {"pgm", CV_8UC1, hs::SampleType::U8, true},
        {"pgm", CV_16UC1, hs::SampleType::U16, true},  {"ppm", CV_8UC3, hs::SampleType::U8, true},
        {"ppm", CV_16UC3, hs::SampleType::U16, true},  {"pfm", CV_32FC1, hs::SampleType::F32, true},
        {"pfm", CV_32FC3, hs::SampleType::F32, true},  {"exr", CV_32FC1, hs::SampleType::F32, true},
        {"exr", CV_32FC3, hs::SampleType::F32, true},
    };
    for (const auto& r : rows) {
        const QByteArray name = QByteArray(r.suffix) + "-" + QByteArray::number(CV_ELEM_SIZE1(r.type) * 8) + "bit-"
                              + QByteArray::number(CV_MAT_CN(r.type)) + "ch";
        QTest::newRow(name.constData()) << QString(r.suffix) << r.type << int(r.sample) << r.lossless;
    }
}

void TestLoaders::imagesAtNativeDepth()
{
    QFETCH(QString, suffix);
    QFETCH(int, cvType);
    QFETCH(int, sampleType);
    QFETCH(bool, lossless);
    const QString file = path(QStringLiteral("image-%1.%2").arg(QTest::currentDataTag()).arg(suffix));
    const cv::Mat written = randomMat(37, 53, cvType, m_rng);
    try {
        if (!cv::imwrite(QFile::encodeName(file).toStdString(), written))
            QSKIP("this OpenCV build cannot write the format");
    } catch (const cv::Exception& e) {
        QSKIP(qPrintable(QStringLiteral("this OpenCV build has no %1 codec: %2").arg(suffix, QString::fromStdString(e.msg))));
    }
    const ImageLoadResult result = ImageLoader::load(file);
    if (!result.ok() && suffix == "exr")
        QSKIP("OpenEXR decoding is disabled in this OpenCV build");
    QVERIFY2(result.ok(), qPrintable(result.error.message()));
    QCOMPARE(result.frames.size(), std::size_t(1));
    const Frame& f = result.frames[0];
    QCOMPARE(f.width(), 53);
    QCOMPARE(f.height(), 37);
    QCOMPARE(f.channels(), CV_MAT_CN(cvType));
    QCOMPARE(int(f.type()), sampleType);
    QCOMPARE(int(f.channelOrder()), int(opencvOrder(CV_MAT_CN(cvType))));
    if (lossless) {
        const cv::Mat loaded(int(f.height()), int(f.width()), cvType, const_cast<unsigned char*>(f.data()), f.strideBytes());
        QCOMPARE(cv::norm(loaded, written, cv::NORM_INF), 0.0);
    }
}

void TestLoaders::multiPageTiffIsAStack()
{
    std::vector<cv::Mat> pages;
    for (int i = 0; i < 4; ++i)
        pages.push_back(randomMat(20, 30, CV_16UC1, m_rng));
    const QString file = path("stack.tif");
    QVERIFY(cv::imwritemulti(QFile::encodeName(file).toStdString(), pages));
    const ImageLoadResult result = ImageLoader::load(file);
    QVERIFY2(result.ok(), qPrintable(result.error.message()));
    QCOMPARE(result.frames.size(), std::size_t(4));
    for (int i = 0; i < 4; ++i) {
        const Frame& f = result.frames[i];
        QCOMPARE(int(f.type()), int(hs::SampleType::U16));
        QCOMPARE(reinterpret_cast<const std::uint16_t*>(f.data())[7], pages[i].at<std::uint16_t>(0, 7));
    }
}

void TestLoaders::videoFileFrameByFrame()
{
    const QString file = path("clip.avi");
    cv::VideoWriter writer(QFile::encodeName(file).toStdString(), cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 25.0,
                           cv::Size(64, 48));
    if (!writer.isOpened())
        QSKIP("this OpenCV build cannot write MJPEG/AVI");
    for (int i = 0; i < 12; ++i)
        writer.write(cv::Mat(48, 64, CV_8UC3, cv::Scalar(20 * i, 100, 200 - 10 * i)));
    writer.release();
    Error error;
    auto reader = VideoReader::openFile(file, error);
    QVERIFY2(reader, qPrintable(error.message()));
    QCOMPARE(reader->info().frameCount, 12);
    QCOMPARE(reader->info().fps, 25.0);
    QCOMPARE(reader->info().width, 64);
    Frame frame;
    int frames = 0;
    while (reader->read(frame, error))
        ++frames;
    QVERIFY2(!error.isError(), qPrintable(error.message()));
    QCOMPARE(frames, 12);
    QVERIFY(reader->seek(5, error));
    QVERIFY(reader->read(frame, error));
    QCOMPARE(frame.channels(), 3);
    // MJPEG is lossy: frame 5's blue channel is near 100 (channel order BGR: index 0 is blue).
    QVERIFY(std::abs(int(frame.data()[0]) - 100) < 12);
    QVERIFY(!reader->seek(40, error));
    QVERIFY(error.message().contains(file));
}

void TestLoaders::liveGStreamerSource()
{
    if (!cv::videoio_registry::hasBackend(cv::CAP_GSTREAMER))
        QSKIP("OpenCV was built without GStreamer");
    Error error;
    auto source = openLiveSource("videotestsrc num-buffers=15 pattern=ball ! video/x-raw,width=96,height=64", error);
    if (!source && error.cause.contains("could not be started"))
        QSKIP("GStreamer's videotestsrc is not installed (gstreamer1.0-plugins-base)");
    QVERIFY2(source, qPrintable(error.message()));
    QCOMPARE(int(source->kind()), int(FrameSource::MediaKind::Live));
    Frame frame;
    int frames = 0;
    while (source->next(frame, error))
        ++frames;
    QCOMPARE(frames, 15);
    QCOMPARE(frame.width(), 96);
    // The end of a live stream is an error that names the source, never a hang.
    QCOMPARE(int(error.kind), int(ErrorKind::SourceLost));
    QVERIFY(error.message().contains("videotestsrc"));
}

void TestLoaders::missingCamera()
{
    Error error;
    QVERIFY(!openLiveSource("/dev/video-histoscope-missing", error));
    QCOMPARE(int(error.kind), int(ErrorKind::Missing));
    QVERIFY(error.message().contains("/dev/video-histoscope-missing"));
}

void TestLoaders::rawFiles_data()
{
    QTest::addColumn<QString>("type");
    QTest::addColumn<bool>("bigEndian");
    QTest::addColumn<int>("offset");
    QTest::addColumn<int>("channels");
    for (const char* t : {"u8", "u16", "i16", "u32", "i32", "f32", "f64"})
        for (bool big : {false, true})
            for (int channels : {1, 3}) {
                const QByteArray name = QByteArray(t) + (big ? "-be" : "-le") + "-c" + QByteArray::number(channels);
                QTest::newRow(name.constData()) << QString(t) << big << (channels == 3 ? 7 : 0) << channels;
            }
}

void TestLoaders::rawFiles()
{
    QFETCH(QString, type);
    QFETCH(bool, bigEndian);
    QFETCH(int, offset);
    QFETCH(int, channels);
    const auto rawType = *rawformat::rawTypeFromName(type.toStdString());
    const std::size_t size = rawformat::rawTypeSize(rawType);
    const int width = 13, height = 5, count = width * height * channels;
    QByteArray bytes(offset, 'h');
    std::vector<double> values(count);
    for (int i = 0; i < count; ++i) {
        values[i] = double(m_rng() % 200) + (type.startsWith('f') ? 0.25 : 0) - (type.startsWith('i') ? 50 : 0);
        unsigned char b[8];
        switch (rawType) {
        case rawformat::RawType::U8: b[0] = std::uint8_t(values[i]); break;
        case rawformat::RawType::U16: { std::uint16_t v = std::uint16_t(values[i]); std::memcpy(b, &v, 2); break; }
        case rawformat::RawType::I16: { std::int16_t v = std::int16_t(values[i]); std::memcpy(b, &v, 2); break; }
        case rawformat::RawType::U32: { std::uint32_t v = std::uint32_t(values[i]); std::memcpy(b, &v, 4); break; }
        case rawformat::RawType::I32: { std::int32_t v = std::int32_t(values[i]); std::memcpy(b, &v, 4); break; }
        case rawformat::RawType::F32: { float v = float(values[i]); std::memcpy(b, &v, 4); break; }
        case rawformat::RawType::F64: { double v = values[i]; std::memcpy(b, &v, 8); break; }
        }
        if (bigEndian)
            std::reverse(b, b + size);
        bytes.append(reinterpret_cast<const char*>(b), qsizetype(size));
    }
    writeBytes("data.raw", bytes);
    rawformat::RawSpec spec;
    spec.width = width;
    spec.height = height;
    spec.channels = channels;
    spec.type = rawType;
    spec.bigEndian = bigEndian;
    spec.offset = std::uint64_t(offset);
    const RawLoadResult r = RawLoader::loadRaw(path("data.raw"), spec);
    QVERIFY2(r.ok(), qPrintable(r.error.message()));
    QCOMPARE(r.frame.width(), width);
    QCOMPARE(r.frame.height(), height);
    QCOMPARE(r.frame.channels(), channels);
    for (int i = 0; i < count; i += 7) {
        double got = 0;
        const unsigned char* p = r.frame.data() + std::size_t(i) * hs::sampleSize(r.frame.type());
        switch (r.frame.type()) {
        case hs::SampleType::U8: got = *p; break;
        case hs::SampleType::U16: { std::uint16_t v; std::memcpy(&v, p, 2); got = v; break; }
        case hs::SampleType::I32: { std::int32_t v; std::memcpy(&v, p, 4); got = v; break; }
        case hs::SampleType::U32: { std::uint32_t v; std::memcpy(&v, p, 4); got = v; break; }
        case hs::SampleType::F32: { float v; std::memcpy(&v, p, 4); got = v; break; }
        default: QFAIL("unexpected type");
        }
        QCOMPARE(got, values[i]);
    }
}

QByteArray TestLoaders::npy(int major, const QByteArray& descr, const QByteArray& shape, const QByteArray& data, bool fortran)
{
    QByteArray dict = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + shape + ", }";
    const int prefix = major == 1 ? 10 : 12;
    while ((prefix + dict.size() + 1) % 64)
        dict += ' ';
    dict += '\n';
    QByteArray out("\x93NUMPY", 6);
    out += char(major);
    out += char(0);
    const quint32 len = quint32(dict.size());
    out += char(len & 0xff);
    out += char((len >> 8) & 0xff);
    if (major > 1) {
        out += char((len >> 16) & 0xff);
        out += char((len >> 24) & 0xff);
    }
    return out + dict + data;
}

void TestLoaders::npyFiles_data()
{
    QTest::addColumn<int>("major");
    QTest::addColumn<QByteArray>("descr");
    QTest::addColumn<QByteArray>("shape");
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    QTest::addColumn<int>("channels");
    QTest::addColumn<int>("sampleType");
    QTest::newRow("v1 u1 keys") << 1 << QByteArray("|u1") << QByteArray("(1000,)") << 1000 << 1 << 1 << int(hs::SampleType::U8);
    QTest::newRow("v1 u2 image") << 1 << QByteArray("<u2") << QByteArray("(20, 30)") << 30 << 20 << 1 << int(hs::SampleType::U16);
    QTest::newRow("v2 f4 rgb") << 2 << QByteArray("<f4") << QByteArray("(8, 9, 3)") << 9 << 8 << 3 << int(hs::SampleType::F32);
    QTest::newRow("v3 i4 keys") << 3 << QByteArray("<i4") << QByteArray("(77,)") << 77 << 1 << 1 << int(hs::SampleType::I32);
    QTest::newRow("v1 big-endian u4") << 1 << QByteArray(">u4") << QByteArray("(50,)") << 50 << 1 << 1 << int(hs::SampleType::U32);
    QTest::newRow("v1 f8 widened") << 1 << QByteArray("<f8") << QByteArray("(4, 4, 4)") << 4 << 4 << 4 << int(hs::SampleType::F32);
}

void TestLoaders::npyFiles()
{
    QFETCH(int, major);
    QFETCH(QByteArray, descr);
    QFETCH(QByteArray, shape);
    QFETCH(int, width);
    QFETCH(int, height);
    QFETCH(int, channels);
    QFETCH(int, sampleType);
    const int item = descr.mid(2).toInt();
    QByteArray data(width * height * channels * item, 0);
    for (int i = 0; i < data.size(); ++i)
        data[i] = char(m_rng());
    // Make the first sample a known value in the file's byte order.
    if (descr.startsWith('>')) {
        data[0] = 0; data[1] = 0; data[2] = 1; data[3] = 2;  // 258 big-endian
    }
    writeBytes("array.npy", npy(major, descr, shape, data));
    const RawLoadResult r = RawLoader::loadNpy(path("array.npy"));
    QVERIFY2(r.ok(), qPrintable(r.error.message()));
    QCOMPARE(r.frame.width(), width);
    QCOMPARE(r.frame.height(), height);
    QCOMPARE(r.frame.channels(), channels);
    QCOMPARE(int(r.frame.type()), sampleType);
    if (descr.startsWith('>'))
        QCOMPARE(reinterpret_cast<const std::uint32_t*>(r.frame.data())[0], 258u);
}

void TestLoaders::badInput_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("rawShape");   // empty: load as an image or .npy
    QTest::addColumn<ErrorKind>("kind");
    QTest::addColumn<QString>("cause");
    QTest::newRow("missing image") << "nope.png" << QByteArray() << "" << ErrorKind::Missing << "no such file";
    QTest::newRow("empty image") << "empty.png" << QByteArray("") << "" << ErrorKind::Empty << "empty";
    QTest::newRow("corrupt png") << "corrupt.png" << QByteArray("\x89PNG\r\n\x1a\ngarbage garbage garbage", 30) << ""
                                 << ErrorKind::DecodeFailed << "corrupt";
    QTest::newRow("text as jpeg") << "notes.jpg" << QByteArray("just some text, not a JPEG") << "" << ErrorKind::DecodeFailed << "not a supported image";
    QTest::newRow("directory") << "adir.png" << QByteArray("<dir>") << "" << ErrorKind::NotAFile << "not a regular file (a folder)";
    QTest::newRow("empty npy") << "empty.npy" << QByteArray("") << "" << ErrorKind::Empty << "empty";
    QTest::newRow("npy bad magic") << "bad.npy" << QByteArray("PK\x03\x04 this is a zip", 20) << "" << ErrorKind::DecodeFailed << "bad magic";
    QTest::newRow("npy header lies") << "lies.npy" << npy(1, "<u2", "(100, 100)", QByteArray(500, 'x')) << ""
                                     << ErrorKind::Truncated << "needs 20000 bytes";
    QTest::newRow("npy extra data") << "extra.npy" << npy(1, "|u1", "(10,)", QByteArray(25, 'x')) << ""
                                    << ErrorKind::HeaderMismatch << "holds 25";
    QTest::newRow("npy zero-sized") << "zero.npy" << npy(1, "|u1", "(0,)", QByteArray()) << "" << ErrorKind::ZeroSized << "zero";
    QTest::newRow("npy complex") << "complex.npy" << npy(1, "<c8", "(4,)", QByteArray(32, 'x')) << ""
                                 << ErrorKind::UnsupportedType << "not supported";
    QTest::newRow("npy fortran") << "fortran.npy" << npy(1, "<u2", "(2, 2)", QByteArray(8, 'x'), true) << ""
                                 << ErrorKind::UnsupportedType << "Fortran";
    QTest::newRow("npy truncated header") << "short.npy" << QByteArray("\x93NUMPY\x01\x00\xff\x00{'descr'", 17) << ""
                                          << ErrorKind::Truncated << "header claims";
    QTest::newRow("raw truncated") << "short.raw" << QByteArray(100, 'x') << "20x10" << ErrorKind::Truncated << "needs 200 bytes";
    QTest::newRow("raw overflow") << "big.raw" << QByteArray(100, 'x') << "4294967296x4294967296" << ErrorKind::Overflow << "overflow";
    QTest::newRow("raw empty") << "nothing.raw" << QByteArray("") << "10x10" << ErrorKind::Empty << "empty";
    QTest::newRow("raw zero width") << "zero.raw" << QByteArray(10, 'x') << "0x10" << ErrorKind::ZeroSized << "zero";
}

void TestLoaders::badInput()
{
    QFETCH(QString, file);
    QFETCH(QByteArray, content);
    QFETCH(QString, rawShape);
    QFETCH(ErrorKind, kind);
    QFETCH(QString, cause);
    const QString full = path(file);
    if (content == "<dir>")
        QVERIFY(QDir().mkpath(full));
    else if (kind != ErrorKind::Missing)
        writeBytes(file, content);
    std::optional<rawformat::RawSpec> raw;
    if (!rawShape.isEmpty()) {
        rawformat::RawSpec spec;
        const QStringList dims = rawShape.split('x');
        spec.width = dims[0].toLongLong();
        spec.height = dims[1].toLongLong();
        raw = spec;
    }
    Error error;
    auto source = openFrameSource(full, raw, error);
    QVERIFY(!source);
    QCOMPARE(int(error.kind), int(kind));
    QVERIFY2(error.message().startsWith(full), qPrintable(error.message()));
    QVERIFY2(error.message().contains(cause, Qt::CaseInsensitive), qPrintable(error.message()));
}

// Issue 17: the parsers decide an error's kind where they find the fault. The rows marked
// "was" are the ones RawArray used to guess differently from the message's words.
void TestLoaders::rawShapeKinds_data()
{
    QTest::addColumn<qint64>("width");
    QTest::addColumn<qint64>("height");
    QTest::addColumn<int>("channels");
    QTest::addColumn<QString>("type");
    QTest::addColumn<quint64>("offset");
    QTest::addColumn<quint64>("fileSize");
    QTest::addColumn<ErrorKind>("kind");
    QTest::addColumn<QString>("cause");
    QTest::newRow("five channels (was decode-failed)") << qint64(4) << qint64(4) << 5 << "u8" << quint64(0) << quint64(80)
                                                       << ErrorKind::UnsupportedType << "channel count 5 is outside 1..4";
    QTest::newRow("negative width (was decode-failed)") << qint64(-1) << qint64(4) << 1 << "u8" << quint64(0) << quint64(80)
                                                        << ErrorKind::InvalidInput << "negative dimensions";
    QTest::newRow("offset past the end (was header-mismatch)") << qint64(4) << qint64(4) << 1 << "u8" << quint64(200) << quint64(100)
                                                               << ErrorKind::Truncated << "header offset 200 is past the end of the 100-byte file";
    QTest::newRow("part of a sample (was decode-failed)") << qint64(0) << qint64(1) << 1 << "u16" << quint64(0) << quint64(101)
                                                          << ErrorKind::Truncated << "the data is 101 bytes, not a whole number of 2-byte samples";
    QTest::newRow("empty file") << qint64(4) << qint64(4) << 1 << "u8" << quint64(0) << quint64(0) << ErrorKind::Empty << "the file is empty";
    QTest::newRow("zero height") << qint64(4) << qint64(0) << 1 << "u8" << quint64(0) << quint64(16) << ErrorKind::ZeroSized
                                 << "a dimension is zero";
    QTest::newRow("overflowing shape") << qint64(1) << (qint64(1) << 62) << 4 << "f64" << quint64(0) << quint64(16) << ErrorKind::Overflow
                                       << "the dimensions 1x4611686018427387904x4 overflow a byte count";
    QTest::newRow("too few bytes") << qint64(4) << qint64(4) << 1 << "u16" << quint64(0) << quint64(16) << ErrorKind::Truncated
                                   << "truncated: the shape needs 32 bytes after the header, the file has 16";
}

void TestLoaders::rawShapeKinds()
{
    QFETCH(qint64, width);
    QFETCH(qint64, height);
    QFETCH(int, channels);
    QFETCH(QString, type);
    QFETCH(quint64, offset);
    QFETCH(quint64, fileSize);
    QFETCH(ErrorKind, kind);
    QFETCH(QString, cause);
    rawformat::RawSpec spec;
    spec.width = width;
    spec.height = height;
    spec.channels = channels;
    spec.type = *rawformat::rawTypeFromName(type.toStdString());
    spec.offset = offset;
    std::uint64_t bytes = 0;
    const Error error = rawformat::validateRaw(spec, fileSize, bytes);
    QCOMPARE(int(error.kind), int(kind));
    QVERIFY(error.source.isEmpty());  // the caller names the file
    QCOMPARE(error.cause, cause);
}

void TestLoaders::npyHeaderKinds_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<ErrorKind>("kind");
    QTest::addColumn<QString>("cause");
    const QByteArray four = npy(1, "|u1", "(4,)", QByteArray(4, 'x'));
    QTest::newRow("version 2 cut short (was decode-failed)") << QByteArray("\x93NUMPY\x02\x00\x40\x00\x00", 11) << ErrorKind::Truncated
                                                             << "too short for a version 2 .npy header";
    QTest::newRow("dictionary without a shape (was header-mismatch)") << QByteArray(four).replace("'shape'", "'forma'")
                                                                       << ErrorKind::DecodeFailed
                                                                       << "the header dictionary lacks descr, fortran_order or shape";
    QTest::newRow("four dimensions (was decode-failed)") << npy(1, "|u1", "(2, 2, 2, 2)", QByteArray(16, 'x')) << ErrorKind::UnsupportedType
                                                         << "shape with 4 dimensions is not an image or a key array";
    // Words inside the data named a kind the old guess believed.
    QTest::newRow("shape entry 'empty' (was empty)") << npy(1, "|u1", "(empty,)", QByteArray(4, 'x')) << ErrorKind::DecodeFailed
                                                     << "shape entry 'empty' is not a non-negative integer";
    QTest::newRow("dtype '<truncated' (was truncated)") << npy(1, "<truncated", "(4,)", QByteArray(4, 'x')) << ErrorKind::UnsupportedType
                                                        << "unsupported dtype '<truncated'";
    QTest::newRow("bad magic") << QByteArray("PK\x03\x04 this is a zip", 20) << ErrorKind::DecodeFailed << "not a .npy file (bad magic)";
    QTest::newRow("complex dtype") << npy(1, "<c8", "(4,)", QByteArray(32, 'x')) << ErrorKind::UnsupportedType
                                   << "dtype c8 is not supported (u1, u2, i2, u4, i4, f4, f8)";
    QTest::newRow("extra data") << npy(1, "|u1", "(4,)", QByteArray(9, 'x')) << ErrorKind::HeaderMismatch
                                << "the header's shape needs 4 bytes but the file holds 9 after the header";
}

void TestLoaders::npyHeaderKinds()
{
    QFETCH(QByteArray, bytes);
    QFETCH(ErrorKind, kind);
    QFETCH(QString, cause);
    const auto* data = reinterpret_cast<const unsigned char*>(bytes.constData());
    rawformat::NpyHeader header;
    Error error = rawformat::parseNpyHeader(data, std::size_t(bytes.size()), header);
    rawformat::RawSpec spec;
    if (!error.isError())
        error = rawformat::npyToRaw(header, std::uint64_t(bytes.size()), spec);
    QCOMPARE(int(error.kind), int(kind));
    QVERIFY(error.source.isEmpty());
    QCOMPARE(error.cause, cause);
}

void TestLoaders::truncatedJpegWarns()
{
    const QString file = path("cut.jpg");
    const cv::Mat image = randomMat(120, 160, CV_8UC3, m_rng);
    std::vector<unsigned char> encoded;
    QVERIFY(cv::imencode(".jpg", image, encoded));
    writeBytes("cut.jpg", QByteArray(reinterpret_cast<const char*>(encoded.data()), qsizetype(encoded.size() * 6 / 10)));
    const ImageLoadResult result = ImageLoader::load(file);
    // libjpeg fills the missing part; the user must still hear about it, by file name.
    if (result.ok()) {
        QVERIFY(!result.warnings.isEmpty());
        QVERIFY2(result.warnings.first().startsWith(file), qPrintable(result.warnings.first()));
        QVERIFY(result.warnings.first().contains("end-of-image"));
    } else {
        QVERIFY(result.error.message().startsWith(file));
    }
}

void TestLoaders::hugeDeclaredImageIsRefused()
{
    // A valid PNG signature and IHDR declaring 200000 x 200000 pixels, with no data: refused
    // from its header with the sizes named, not a crash or a 120 GB allocation.
    QByteArray png("\x89PNG\r\n\x1a\n", 8);
    QByteArray ihdr("IHDR");
    auto be32 = [](quint32 v) { QByteArray b(4, 0); b[0] = char(v >> 24); b[1] = char(v >> 16); b[2] = char(v >> 8); b[3] = char(v); return b; };
    ihdr += be32(200000) + be32(200000) + QByteArray("\x08\x02\x00\x00\x00", 5);
    png += be32(13) + ihdr + be32(0 /* CRC not checked before the size */) + be32(0) + QByteArray("IEND") + be32(0xae426082);
    writeBytes("huge.png", png);
    const ImageLoadResult result = ImageLoader::load(path("huge.png"));
    QVERIFY(!result.ok());
    QCOMPARE(int(result.error.kind), int(ErrorKind::TooLarge));
    QVERIFY(result.error.message().startsWith(path("huge.png")));
    QVERIFY2(result.error.message().contains("200000x200000"), qPrintable(result.error.message()));
}


// Issue 11, item 16: the end-of-image check follows the file's structure, not its last 64
// bytes, and the format comes from the magic bytes, not the extension.
void TestLoaders::endMarkerCheck_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("warning");  // empty: none
    std::vector<unsigned char> jpeg, progressive, png;
    const cv::Mat image = randomMat(90, 120, CV_8UC3, m_rng);
    QVERIFY(cv::imencode(".jpg", image, jpeg));
    QVERIFY(cv::imencode(".jpg", image, progressive, {cv::IMWRITE_JPEG_PROGRESSIVE, 1}));
    QVERIFY(cv::imencode(".png", image, png));
    auto bytes = [](const std::vector<unsigned char>& v) { return QByteArray(reinterpret_cast<const char*>(v.data()), qsizetype(v.size())); };
    QByteArray trailer(700, 0);
    for (char& c : trailer)
        c = char(m_rng());
    trailer.replace("\xff\xd9", "xx");
    QTest::newRow("JPEG with 700 bytes after its end") << "trailer.jpg" << bytes(jpeg) + trailer << "";
    QTest::newRow("progressive JPEG") << "progressive.jpg" << bytes(progressive) << "";
    QTest::newRow("PNG named .jpg") << "really-png.jpg" << bytes(png) << "";
    QTest::newRow("JPEG named .png") << "really-jpeg.png" << bytes(jpeg) << "";
    QTest::newRow("PNG with bytes after IEND") << "tail.png" << bytes(png) + trailer << "";
    QTest::newRow("JPEG cut short") << "cut.jpg" << bytes(jpeg).left(qsizetype(jpeg.size() * 7 / 10)) << "end-of-image";
    QTest::newRow("JPEG cut short, named .png") << "cut-jpeg.png" << bytes(jpeg).left(qsizetype(jpeg.size() * 7 / 10)) << "end-of-image";
}

void TestLoaders::endMarkerCheck()
{
    QFETCH(QString, name);
    QFETCH(QByteArray, bytes);
    QFETCH(QString, warning);
    writeBytes(name, bytes);
    const ImageLoadResult result = ImageLoader::load(path(name));
    QVERIFY2(result.ok(), qPrintable(result.error.message()));
    QCOMPARE(result.frames.front().width(), 120);
    if (warning.isEmpty()) {
        QVERIFY2(result.warnings.isEmpty(), qPrintable(result.warnings.join('\n')));
    } else {
        QCOMPARE(result.warnings.size(), 1);
        QVERIFY(result.warnings.first().startsWith(path(name)));
        QVERIFY(result.warnings.first().contains(warning));
    }
}

// Issue 11, item 13: the decoded size comes from each format's header, before decoding.
void TestLoaders::budgetReadsTheHeader_data()
{
    QTest::addColumn<QString>("extension");
    QTest::addColumn<int>("cvType");
    QTest::addColumn<int>("estimatedChannels");  // as the header promises at most
    QTest::newRow("png gray 16") << ".png" << CV_16UC1 << 1;
    QTest::newRow("png rgb") << ".png" << CV_8UC3 << 3;
    QTest::newRow("png rgba") << ".png" << CV_8UC4 << 4;
    QTest::newRow("jpeg") << ".jpg" << CV_8UC3 << 3;
    QTest::newRow("jpeg gray") << ".jpg" << CV_8UC1 << 1;
    QTest::newRow("tiff 16") << ".tif" << CV_16UC3 << 3;
    QTest::newRow("tiff float") << ".tif" << CV_32FC1 << 1;
    QTest::newRow("bmp") << ".bmp" << CV_8UC3 << 3;
    QTest::newRow("webp") << ".webp" << CV_8UC3 << 4;
    QTest::newRow("pgm 16") << ".pgm" << CV_16UC1 << 1;
    QTest::newRow("ppm") << ".ppm" << CV_8UC3 << 3;
    QTest::newRow("pfm") << ".pfm" << CV_32FC3 << 3;
    QTest::newRow("hdr") << ".hdr" << CV_32FC3 << 3;
}

void TestLoaders::budgetReadsTheHeader()
{
    QFETCH(QString, extension);
    QFETCH(int, cvType);
    QFETCH(int, estimatedChannels);
    const int width = 37 + int(m_rng() % 40), height = 23 + int(m_rng() % 30);
    std::vector<unsigned char> encoded;
    if (!cv::imencode(extension.toStdString(), randomMat(height, width, cvType, m_rng), encoded))
        QSKIP("this OpenCV cannot write the format");
    const QString name = "budget" + extension;
    writeBytes(name, QByteArray(reinterpret_cast<const char*>(encoded.data()), qsizetype(encoded.size())));
    const std::uint64_t decoded = std::uint64_t(width) * height * estimatedChannels * CV_ELEM_SIZE1(cvType);
    const std::uint64_t need = decoded + (extension == ".tif" ? 0 : encoded.size());
    const ImageLoadResult refused = ImageLoader::load(path(name), need - 1);
    QCOMPARE(int(refused.error.kind), int(ErrorKind::TooLarge));
    QVERIFY2(refused.error.message().contains(QStringLiteral("%1x%2 pixels").arg(width).arg(height)), qPrintable(refused.error.message()));
    const ImageLoadResult loaded = ImageLoader::load(path(name), need);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error.message()));
    QCOMPARE(loaded.frames.front().width(), width);
}

// Issue 11, item 13: a stack is decoded a range of pages at a time, never all at once.
void TestLoaders::tiffPagesWithinTheBudget()
{
    std::vector<cv::Mat> pages;
    for (int i = 0; i < 6; ++i)
        pages.push_back(randomMat(50, 100, CV_16UC1, m_rng));  // 10 kB a page decoded
    const QString file = path("budget-stack.tif");
    QVERIFY(cv::imwritemulti(QFile::encodeName(file).toStdString(), pages));
    const std::uint64_t budget = 25000;  // two pages
    const ImageLoadResult whole = ImageLoader::load(file, budget);
    QCOMPARE(int(whole.error.kind), int(ErrorKind::TooLarge));
    SourceOptions options;
    options.memoryBudget = budget;
    Error error;
    auto source = openFrameSource(file, options, error);
    QVERIFY2(source, qPrintable(error.message()));
    QCOMPARE(source->frameCount(), 6);
    Frame frame;
    int page = 0;
    while (source->next(frame, error)) {
        QCOMPARE(reinterpret_cast<const std::uint16_t*>(frame.data())[77], pages[std::size_t(page)].at<std::uint16_t>(0, 77));
        ++page;
    }
    QVERIFY2(!error.isError(), qPrintable(error.message()));
    QCOMPARE(page, 6);
}

// Issue 11, item 13: big-endian, unaligned, i16 and f64 data are converted a chunk at a time.
void TestLoaders::convertedRawIsStreamedInChunks_data()
{
    QTest::addColumn<QString>("type");
    QTest::addColumn<bool>("bigEndian");
    QTest::addColumn<int>("offset");
    QTest::newRow("u16 big-endian") << "u16" << true << 0;
    QTest::newRow("u32 unaligned") << "u32" << false << 3;
    QTest::newRow("i16") << "i16" << false << 0;
    QTest::newRow("f64 big-endian") << "f64" << true << 8;
}

void TestLoaders::convertedRawIsStreamedInChunks()
{
    QFETCH(QString, type);
    QFETCH(bool, bigEndian);
    QFETCH(int, offset);
    const auto rawType = *rawformat::rawTypeFromName(type.toStdString());
    const int size = int(rawformat::rawTypeSize(rawType));
    const int samples = 300000;
    QByteArray bytes(offset, 'h');
    std::vector<double> values(samples);
    for (int i = 0; i < samples; ++i) {
        values[std::size_t(i)] = double(m_rng() % 1000) - (type.startsWith('i') ? 500 : 0);
        unsigned char b[8];
        switch (rawType) {
        case rawformat::RawType::U16: { std::uint16_t v = std::uint16_t(values[i]); std::memcpy(b, &v, 2); break; }
        case rawformat::RawType::U32: { std::uint32_t v = std::uint32_t(values[i]); std::memcpy(b, &v, 4); break; }
        case rawformat::RawType::I16: { std::int16_t v = std::int16_t(values[i]); std::memcpy(b, &v, 2); break; }
        case rawformat::RawType::F64: { double v = values[i]; std::memcpy(b, &v, 8); break; }
        default: QFAIL("not a row type");
        }
        if (bigEndian)
            std::reverse(b, b + size);
        bytes.append(reinterpret_cast<const char*>(b), size);
    }
    writeBytes("chunks.raw", bytes);
    SourceOptions options;
    options.raw = rawformat::RawSpec{0, 1, 1, rawType, bigEndian, std::uint64_t(offset)};
    options.memoryBudget = 400000;  // chunks of 25,000 samples
    options.streamChunks = true;
    Error error;
    auto source = openFrameSource(path("chunks.raw"), options, error);
    QVERIFY2(source, qPrintable(error.message()));
    Frame frame;
    int chunks = 0;
    std::size_t at = 0;
    while (source->next(frame, error)) {
        ++chunks;
        QVERIFY(frame.byteCount() <= 100000);
        for (qint64 i = 0; i < frame.width(); ++i, ++at) {
            const unsigned char* p = frame.data() + i * qint64(hs::sampleSize(frame.type()));
            double got = 0;
            switch (frame.type()) {
            case hs::SampleType::U16: { std::uint16_t v; std::memcpy(&v, p, 2); got = v; break; }
            case hs::SampleType::U32: { std::uint32_t v; std::memcpy(&v, p, 4); got = v; break; }
            case hs::SampleType::I32: { std::int32_t v; std::memcpy(&v, p, 4); got = v; break; }
            case hs::SampleType::F32: { float v; std::memcpy(&v, p, 4); got = v; break; }
            default: QFAIL("unexpected type");
            }
            if (got != values[at])
                QFAIL(qPrintable(QStringLiteral("sample %1: %2, not %3").arg(at).arg(got).arg(values[at])));
        }
    }
    QVERIFY2(!error.isError(), qPrintable(error.message()));
    QCOMPARE(at, std::size_t(samples));
    QCOMPARE(chunks, 12);
}

// Issue 11, item 11: a mapped file that shrinks under the reader is an error, not a SIGBUS.
void TestLoaders::shrinkingMappedFileIsAnError_data()
{
    QTest::addColumn<bool>("npy");
    QTest::newRow("raw keys") << false;
    QTest::newRow(".npy") << true;
}

void TestLoaders::shrinkingMappedFileIsAnError()
{
    QFETCH(bool, npy);
    const int size = 4 << 20;
    QByteArray data(size, 0);
    for (char& c : data)
        c = char(1 + m_rng() % 255);
    const QString name = npy ? "shrinks.npy" : "shrinks.raw";
    writeBytes(name, npy ? TestLoaders::npy(1, "|u1", "(4194304,)", data) : data);
    SourceOptions options;
    if (!npy)
        options.raw = rawformat::RawSpec{};
    Error error;
    auto source = openFrameSource(path(name), options, error);
    QVERIFY2(source, qPrintable(error.message()));
    Frame frame;
    QVERIFY(source->next(frame, error));
    QVERIFY(::truncate(QFile::encodeName(path(name)).constData(), 8192) == 0);
    // Read every byte, as the engine would: the pages past the new end are gone.
    std::uint64_t zeros = 0;
    for (std::size_t i = 0; i < frame.byteCount(); ++i)
        zeros += frame.data()[i] == 0;
    QVERIFY(zeros > 0);
    QVERIFY(!source->next(frame, error));
    QCOMPARE(int(error.kind), int(ErrorKind::Truncated));
    QVERIFY(error.message().startsWith(path(name)));
    QVERIFY(error.message().contains("shrank"));
}

// Issue 11, item 14: a FIFO with an image's name neither blocks nor passes as a file.
void TestLoaders::specialFilesDoNotBlock()
{
    const QString fifo = path("pipe.png");
    QVERIFY(::mkfifo(QFile::encodeName(fifo).constData(), 0644) == 0);
    for (const QString& name : {fifo, QStringLiteral("/dev/zero")}) {
        Error error;
        QVERIFY(!openFrameSource(name, std::nullopt, error));
        QCOMPARE(int(error.kind), int(ErrorKind::NotAFile));
        QVERIFY(error.message().startsWith(name));
    }
    Error error;
    SourceOptions raw;
    raw.raw = rawformat::RawSpec{};
    QVERIFY(!openFrameSource(path("pipe.raw"), raw, error));
    QVERIFY(::mkfifo(QFile::encodeName(path("pipe.raw")).constData(), 0644) == 0);
    QVERIFY(!openFrameSource(path("pipe.raw"), raw, error));
    QCOMPARE(int(error.kind), int(ErrorKind::NotAFile));
}

// Issue 11, item 12: a corrupt video goes to FFmpeg (or OpenCV's MJPEG reader), which refuse
// it at once, never to GStreamer's typefinding, which can hang on it.
void TestLoaders::corruptVideoFailsQuickly()
{
    QElapsedTimer timer;
    timer.start();
    for (int i = 0; i < 8; ++i) {
        QByteArray bytes(3000, 0);
        for (char& c : bytes)
            c = char(m_rng());
        writeBytes("noise.mp4", bytes);
        Error error;
        QVERIFY(!VideoReader::openFile(path("noise.mp4"), error));
        QCOMPARE(int(error.kind), int(ErrorKind::DecodeFailed));
        QVERIFY(error.message().startsWith(path("noise.mp4")));
    }
    QVERIFY2(timer.elapsed() < 20000, "opening corrupt videos took too long");
}

// Issue 10, real-world media: a header's frame count is an estimate. A file is decoded to its
// end, a clean end before or after the header's count is the end (with a warning, never an
// error, so the app plays it to the end without an error banner), and only data cut short of
// what the container declares is an error, which says at which frame decoding stopped.
void TestLoaders::videoHeaderCountIsAnEstimate_data()
{
    QTest::addColumn<QString>("edit");
    QTest::addColumn<bool>("cut");
    QTest::newRow("zero-size repeat entries") << "repeats" << false;
    QTest::newRow("inflated header count") << "inflated" << false;
    QTest::newRow("truncated in the middle") << "truncated" << true;
}

void TestLoaders::videoHeaderCountIsAnEstimate()
{
    QFETCH(QString, edit);
    QFETCH(bool, cut);
    if (!cv::videoio_registry::hasBackend(cv::CAP_FFMPEG))
        QSKIP("the zero-size index entries are FFmpeg's reading; this OpenCV has no FFmpeg");
    const int written = 12 + int(m_rng() % 12);
    const QString name = "estimate-" + edit + ".avi";
    {
        cv::VideoWriter writer(path(name).toStdString(), cv::CAP_FFMPEG, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 10.0,
                               cv::Size(64, 48));
        if (!writer.isOpened())
            QSKIP("no MJPG AVI writer");
        for (int i = 0; i < written; ++i)
            writer.write(randomMat(48, 64, CV_8UC3, m_rng));
    }
    QFile file(path(name));
    QVERIFY(file.open(QIODevice::ReadOnly));
    QByteArray bytes = file.readAll();
    file.close();
    qint64 header = written;
    if (edit == "repeats") {
        bytes = aviedit::withRepeatEntries(bytes, 3);
        QVERIFY(!bytes.isEmpty());
        header = 4 * written;
    } else if (edit == "inflated") {
        header = 444;
        aviedit::setHeaderFrameCount(bytes, std::uint32_t(header));
    } else {
        bytes = bytes.left(bytes.size() / 2);
    }
    writeBytes(name, bytes);

    Error error;
    auto source = openFrameSource(path(name), std::nullopt, error);
    QVERIFY2(source, qPrintable(error.message()));
    QCOMPARE(source->frameCount(), header);
    Frame frame;
    qint64 decoded = 0;
    while (source->next(frame, error)) {
        QCOMPARE(frame.width(), qint64(64));
        ++decoded;
    }
    if (cut) {
        QCOMPARE(int(error.kind), int(ErrorKind::Truncated));
        QVERIFY2(error.message().startsWith(path(name)), qPrintable(error.message()));
        QVERIFY2(error.message().contains(QStringLiteral("decoding stopped at frame %1 ").arg(decoded)), qPrintable(error.message()));
        QVERIFY2(decoded > 0 && decoded < written, qPrintable(QString::number(decoded)));
        QVERIFY(!source->next(frame, error));  // still the same error, not a clean end
        QCOMPARE(int(error.kind), int(ErrorKind::Truncated));
        return;
    }
    QVERIFY2(!error.isError(), qPrintable(error.message()));  // a clean end: the app shows no error
    QCOMPARE(decoded, qint64(written));
    QCOMPARE(source->frameCount(), qint64(written));  // the count is now the frames decoded
    QCOMPARE(source->warnings.size(), 1);
    const QString warning = source->warnings.first();
    QVERIFY2(warning.startsWith(path(name)), qPrintable(warning));
    QVERIFY2(warning.contains(QStringLiteral("header declares %1 frame(s), %2 were decoded").arg(header).arg(written)), qPrintable(warning));
    // The reader itself, as the app's media worker uses it: the end is an end, not an error.
    auto reader = VideoReader::openFile(path(name), error);
    QVERIFY(reader);
    while (reader->read(frame, error)) {
    }
    QVERIFY(!error.isError());
    QCOMPARE(reader->position(), qint64(written));
}

QTEST_GUILESS_MAIN(TestLoaders)
#include "tst_loaders.moc"
