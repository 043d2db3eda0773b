#include "io/ImageLoader.h"

#include "io/MatFrame.h"

#include <QFile>
#include <QFileInfo>

#include <opencv2/imgcodecs.hpp>

namespace {

// OpenCV decodes a truncated JPEG or PNG silently (libjpeg only prints to stderr), so look for
// the end markers ourselves and warn, naming the file.
QString truncationWarning(const QString& path, const QByteArray& tail, const QString& suffix)
{
    if ((suffix == "jpg" || suffix == "jpeg") && !tail.contains("\xff\xd9"))
        return path + QStringLiteral(": JPEG data ends before its end-of-image marker; the image may be incomplete");
    if (suffix == "png" && !tail.contains("IEND"))
        return path + QStringLiteral(": PNG data ends before its IEND chunk; the image may be incomplete");
    return {};
}

}  // namespace

QStringList ImageLoader::nameFilters()
{
    return {"*.png", "*.jpg", "*.jpeg", "*.tif", "*.tiff", "*.bmp", "*.webp", "*.pgm", "*.ppm", "*.pnm",
            "*.pbm", "*.pfm", "*.exr", "*.hdr", "*.jp2"};
}

bool ImageLoader::isImageFile(const QString& path)
{
    const QString suffix = "*." + QFileInfo(path).suffix().toLower();
    return nameFilters().contains(suffix);
}

ImageLoadResult ImageLoader::load(const QString& path)
{
    ImageLoadResult result;
    const QFileInfo info(path);
    if (!info.exists()) {
        result.error = Error::make(ErrorKind::Missing, path, QStringLiteral("no such file"));
        return result;
    }
    QFile file(path);
    if (!info.isFile() || !file.open(QIODevice::ReadOnly)) {
        result.error = Error::make(ErrorKind::Unreadable, path,
                                       QStringLiteral("cannot be read (%1)").arg(file.errorString()));
        return result;
    }
    if (info.size() == 0) {
        result.error = Error::make(ErrorKind::Empty, path, QStringLiteral("the file is empty"));
        return result;
    }
    const qint64 tailBytes = qMin<qint64>(info.size(), 64);
    file.seek(info.size() - tailBytes);
    const QString warning = truncationWarning(path, file.read(tailBytes), info.suffix().toLower());
    file.close();

    std::vector<cv::Mat> pages;
    const std::string native = QFile::encodeName(path).toStdString();
    try {
        const int flags = cv::IMREAD_UNCHANGED;
        const QString suffix = info.suffix().toLower();
        if (suffix == "tif" || suffix == "tiff") {
            if (!cv::imreadmulti(native, pages, flags))
                pages.clear();
        } else {
            cv::Mat mat = cv::imread(native, flags);
            if (!mat.empty())
                pages.push_back(mat);
        }
    } catch (const cv::Exception& e) {
        result.error = Error::make(ErrorKind::DecodeFailed, path,
                                       QStringLiteral("the decoder refused it: %1").arg(QString::fromStdString(e.msg).trimmed()));
        return result;
    }
    if (pages.empty()) {
        result.error = Error::make(ErrorKind::DecodeFailed, path,
                                       QStringLiteral("not a supported image, or corrupt or truncated data"));
        return result;
    }
    for (std::size_t i = 0; i < pages.size(); ++i) {
        QString note;
        auto frame = frameFromMat(pages[i], path, result.error, &note);
        if (!frame) {
            result.frames.clear();
            return result;
        }
        if (!note.isEmpty() && i == 0)
            result.warnings << path + QStringLiteral(": ") + note;
        result.frames.push_back(*frame);
    }
    if (!warning.isEmpty())
        result.warnings << warning;
    return result;
}
