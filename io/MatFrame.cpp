#include "io/MatFrame.h"

#include <opencv2/core.hpp>

#include <cmath>

std::optional<Frame> frameFromMat(cv::Mat mat, const QString& source, Error& error, QString* note)
{
    if (mat.empty()) {
        error = Error::make(ErrorKind::ZeroSized, source, QStringLiteral("the decoded image is empty"));
        return std::nullopt;
    }
    if (mat.dims != 2 || mat.channels() > 4) {
        error = Error::make(ErrorKind::UnsupportedType, source,
                                QStringLiteral("%1 channels in %2 dimensions cannot be counted (1 to 4 channels, 2-D)")
                                    .arg(mat.channels())
                                    .arg(mat.dims));
        return std::nullopt;
    }
    hs::SampleType type;
    switch (mat.depth()) {
    case CV_8U: type = hs::SampleType::U8; break;
    case CV_16U: type = hs::SampleType::U16; break;
    case CV_32S: type = hs::SampleType::I32; break;
    case CV_32F: type = hs::SampleType::F32; break;
    case CV_16F: type = hs::SampleType::F16; break;
    case CV_8S:
    case CV_16S:
        mat.convertTo(mat, CV_32S);
        type = hs::SampleType::I32;
        if (note)
            *note = QStringLiteral("signed samples widened to 32-bit integers");
        break;
    case CV_64F:
        mat.convertTo(mat, CV_32F);
        type = hs::SampleType::F32;
        if (note)
            *note = QStringLiteral("64-bit floats counted as 32-bit floats");
        break;
    default:
        error = Error::make(ErrorKind::UnsupportedType, source, QStringLiteral("unsupported sample depth"));
        return std::nullopt;
    }
    auto holder = std::make_shared<cv::Mat>(mat);
    Frame frame(std::shared_ptr<const void>(holder, holder.get()), holder->ptr<unsigned char>(), type, holder->cols,
                holder->rows, holder->channels(), holder->step[0], opencvOrder(holder->channels()));
    if (type == hs::SampleType::F32 || type == hs::SampleType::F16) {
        // HDR and scientific data often leave [0, 1): widen the default range to what is there.
        cv::Mat flat = holder->reshape(1);
        if (type == hs::SampleType::F16)
            flat.convertTo(flat, CV_32F);
        cv::Mat finite = flat == flat;  // NaN fails
        double lo = 0, hi = 1;
        cv::minMaxLoc(flat, &lo, &hi, nullptr, nullptr, finite);
        if (std::isfinite(lo) && std::isfinite(hi) && (lo < 0 || hi > 1))
            frame.setNominalRange(std::min(lo, 0.0), std::nextafter(std::max(hi, 1.0), HUGE_VAL));
    }
    return frame;
}
