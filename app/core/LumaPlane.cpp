#include "app/core/LumaPlane.h"

#include "io/MatFrame.h"

#include <opencv2/core.hpp>

namespace {

int cvDepth(hs::SampleType type)
{
    switch (type) {
    case hs::SampleType::U8: return CV_8U;
    case hs::SampleType::U16: return CV_16U;
    case hs::SampleType::I32: return CV_32S;
    case hs::SampleType::F16: return CV_16F;
    case hs::SampleType::U32:
    case hs::SampleType::F32: break;
    }
    return CV_32F;
}

}  // namespace

std::optional<Frame> lumaPlane(const Frame& frame, LumaCoefficients coefficients)
{
    if (coefficients == LumaCoefficients::None || frame.channels() < 3 || frame.isNull()
        || frame.type() == hs::SampleType::U32)
        return std::nullopt;
    const double kr = coefficients == LumaCoefficients::Bt601 ? 0.299 : 0.2126;
    const double kb = coefficients == LumaCoefficients::Bt601 ? 0.114 : 0.0722;
    const double kg = 1.0 - kr - kb;
    const int depth = cvDepth(frame.type());
    const cv::Mat pixels(int(frame.height()), int(frame.width()), CV_MAKETYPE(depth, frame.channels()),
                         const_cast<unsigned char*>(frame.data()), frame.strideBytes());
    cv::Mat weights = cv::Mat::zeros(1, frame.channels(), CV_32F);
    weights.at<float>(0, frame.storageIndexOfDisplayChannel(0)) = float(kr);
    weights.at<float>(0, frame.storageIndexOfDisplayChannel(1)) = float(kg);
    weights.at<float>(0, frame.storageIndexOfDisplayChannel(2)) = float(kb);
    cv::Mat source = pixels;
    if (depth == CV_16F)
        pixels.convertTo(source, CV_32F);
    cv::Mat luma;
    cv::transform(source, luma, weights);  // saturates and rounds back to the source depth
    if (depth == CV_16F)
        luma.convertTo(luma, CV_16F);
    Error error;
    auto result = frameFromMat(luma, QStringLiteral("luma"), error);
    if (result)
        result->setNominalRange(frame.nominalLo(), frame.nominalHi());
    return result;
}
