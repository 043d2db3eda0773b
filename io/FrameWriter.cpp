#include "io/FrameWriter.h"

#include "io/AtomicFile.h"
#include "io/CodecModule.h"

#include <QFileInfo>

#include <opencv2/core.hpp>

Error saveFrame(const QString& path, const Frame& frame)
{
    int depth = -1;
    switch (frame.type()) {
    case hs::SampleType::U8: depth = CV_8U; break;
    case hs::SampleType::U16: depth = CV_16U; break;
    case hs::SampleType::F32: depth = CV_32F; break;
    default: break;
    }
    if (depth < 0 || frame.isNull())
        return Error::make(ErrorKind::UnsupportedType, path, QStringLiteral("only 8-bit, 16-bit and float frames can be saved"));
    cv::Mat mat(int(frame.height()), int(frame.width()), CV_MAKETYPE(depth, frame.channels()),
                const_cast<unsigned char*>(frame.data()), frame.strideBytes());
    std::vector<unsigned char> encoded;
    Error error;
    const ImageCodecs* codecs = codecmodule::imageCodecs(path, error);
    if (!codecs)
        return error;
    try {
        const QByteArray extension = QByteArray(".") + QFileInfo(path).suffix().toLower().toUtf8();
        if (!codecs->imencode(extension.constData(), mat, encoded))
            return Error::make(ErrorKind::WriteFailed, path, QStringLiteral("could not be encoded"));
    } catch (const cv::Exception& e) {
        return Error::make(ErrorKind::WriteFailed, path, QString::fromStdString(e.msg).trimmed());
    }
    return writeFileAtomically(path, QByteArray(reinterpret_cast<const char*>(encoded.data()), qsizetype(encoded.size())));
}

bool canSaveFormat(const QString& path, const QString& suffix, Error& error)
{
    const ImageCodecs* codecs = codecmodule::imageCodecs(path, error);
    return codecs && codecs->haveImageWriter(("x." + suffix).toStdString());
}
