#include "HostileCorpus.h"

#include <QDir>
#include <QFile>

#include <opencv2/imgcodecs.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace hostile {

namespace {

QByteArray be32(quint32 v)
{
    QByteArray b(4, 0);
    b[0] = char(v >> 24);
    b[1] = char(v >> 16);
    b[2] = char(v >> 8);
    b[3] = char(v);
    return b;
}

}  // namespace

bool writeBytes(const QByteArray& nativePath, const QByteArray& bytes)
{
    const int fd = ::open(nativePath.constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return false;
    const bool ok = ::write(fd, bytes.constData(), std::size_t(bytes.size())) == bytes.size();
    return ::close(fd) == 0 && ok;
}

QByteArray y4m(const char* colour, int width, int height, int frames, std::mt19937_64& rng)
{
    const QByteArray space(colour);
    const int planes = space == "444alpha" ? 4 : space.startsWith("mono") ? 1 : 3;
    const int bytes = space.endsWith("16") ? 2 : 1;
    QByteArray out = QStringLiteral("YUV4MPEG2 W%1 H%2 F25:1 Ip A1:1 C%3\n").arg(width).arg(height).arg(colour).toLatin1();
    for (int f = 0; f < frames; ++f)
        out += "FRAME\n" + randomBytes(width * height * planes * bytes, rng);
    return out;
}

QByteArray gif()
{
    // GIF89a, 1x1, a two-colour global table, one image block of one pixel, the trailer.
    return QByteArray("GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff"
                      "\x2c\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02\x44\x01\x00\x3b", 35);
}

QByteArray wav()
{
    QByteArray data(64, '\0');
    auto le = [](quint32 v, int n) { QByteArray b; for (int i = 0; i < n; ++i) b += char(v >> (8 * i)); return b; };
    return "RIFF" + le(36 + quint32(data.size()), 4) + "WAVEfmt " + le(16, 4) + le(1, 2) + le(1, 2) + le(8000, 4) + le(16000, 4)
         + le(2, 2) + le(16, 2) + "data" + le(quint32(data.size()), 4) + data;
}

QByteArray pngDeclaring(std::uint32_t width, std::uint32_t height)
{
    QByteArray png("\x89PNG\r\n\x1a\n", 8);
    const QByteArray ihdr = "IHDR" + be32(width) + be32(height) + QByteArray("\x08\x02\x00\x00\x00", 5);
    return png + be32(13) + ihdr + be32(0) + be32(0) + "IEND" + be32(0xae426082);
}

bool writeZeroPng(const QString& path, int width, int height)
{
    return cv::imwrite(QFile::encodeName(path).toStdString(), cv::Mat::zeros(height, width, CV_8UC1),
                       {cv::IMWRITE_PNG_COMPRESSION, 9});
}

bool writeZeroTiff(const QString& path, int pages, int width, int height)
{
    const cv::Mat zero = cv::Mat::zeros(height, width, CV_8UC1);
    return cv::imwritemulti(QFile::encodeName(path).toStdString(), std::vector<cv::Mat>(std::size_t(pages), zero));
}

QByteArray randomImage(const char* extension, int width, int height, std::mt19937_64& rng)
{
    cv::Mat m(height, width, CV_8UC3);
    cv::RNG(rng()).fill(m, cv::RNG::UNIFORM, 0, 256);
    std::vector<unsigned char> out;
    cv::imencode(extension, m, out);
    return QByteArray(reinterpret_cast<const char*>(out.data()), qsizetype(out.size()));
}

QByteArray cutMp4(int garbage, std::mt19937_64& rng)
{
    return QByteArray::fromHex("000000186674797069736f6d0000020069736f6d69736f32") + randomBytes(garbage, rng);
}

QByteArray randomBytes(int size, std::mt19937_64& rng)
{
    QByteArray b(size, 0);
    for (char& c : b)
        c = char(rng());
    return b;
}

QByteArray npy(const QByteArray& descr, const QByteArray& shape, int dataBytes, std::mt19937_64& rng, bool quoted)
{
    const QByteArray value = quoted ? "'" + descr + "'" : descr;
    QByteArray dict = "{'descr': " + value + ", 'fortran_order': False, 'shape': " + shape + ", }";
    while ((10 + dict.size() + 1) % 64)
        dict += ' ';
    dict += '\n';
    QByteArray out("\x93NUMPY\x01\x00", 8);
    out += char(dict.size() & 0xff);
    out += char(dict.size() >> 8);
    return out + dict + randomBytes(dataBytes, rng);
}

int writeCorpus(const QString& dir, std::mt19937_64& rng)
{
    QDir().mkpath(dir);
    const QByteArray d = QFile::encodeName(dir) + '/';
    int n = 0;
    auto put = [&](const QByteArray& name, const QByteArray& bytes) { n += writeBytes(d + name, bytes) ? 1 : 0; };
    const QByteArray jpeg = randomImage(".jpg", 40, 30, rng);
    put("good.png", randomImage(".png", 33, 21, rng));
    put("bomb-header.png", pngDeclaring(200000, 200000));
    put("lying-ihdr.png", pngDeclaring(64, 64));
    put("cut.png", randomImage(".png", 64, 64, rng).left(300));
    put("cut.jpg", jpeg.left(jpeg.size() / 2));
    put("trailer.jpg", jpeg + randomBytes(500, rng));
    put("png-named.jpg", randomImage(".png", 16, 16, rng));
    put("text.jpg", "not a JPEG at all");
    put("empty.png", QByteArray());
    put("random.tif", "II*\0" + randomBytes(2000, rng));
    put("tiff-loop.tif", QByteArray("II*\0\x08\0\0\0\x01\0\0\x01\x03\0\x01\0\0\0\x40\0\0\0\x08\0\0\0", 26));
    put("random.mp4", cutMp4(3000, rng));
    put("random.avi", "RIFF" + randomBytes(3000, rng));
    put("lies.npy", npy("<u2", "(1000, 1000)", 500, rng));
    put("huge-shape.npy", npy("<u2", "(99999999999999, 99999999999999)", 64, rng));
    put("complex.npy", npy("<c8", "(4,)", 32, rng));
    put("caf\xe9.png", randomImage(".png", 8, 8, rng));
    n += writeZeroPng(dir + "/zeros-bomb.png", 4000, 4000) ? 1 : 0;
    n += writeZeroTiff(dir + "/pages.tif", 12, 500, 500) ? 1 : 0;
    n += ::mkfifo((d + "fifo.png").constData(), 0644) == 0 ? 1 : 0;
    n += QDir().mkpath(dir + "/folder.jpg") ? 1 : 0;
    n += ::symlink("loop2.png", (d + "loop1.png").constData()) == 0 && ::symlink("loop1.png", (d + "loop2.png").constData()) == 0 ? 2 : 0;
    n += ::symlink("/dev/zero", (d + "device.png").constData()) == 0 ? 1 : 0;
    return n;
}

}  // namespace hostile
