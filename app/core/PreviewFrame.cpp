#include "app/core/PreviewFrame.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

Frame previewFrame(const Frame& frame)
{
    if (frame.isNull() || frame.width() <= 0 || frame.height() <= 0)
        return {};
    int depth = CV_8U;
    switch (frame.type()) {
    case hs::SampleType::U8: depth = CV_8U; break;
    case hs::SampleType::U16: depth = CV_16U; break;
    case hs::SampleType::I32: depth = CV_32S; break;
    case hs::SampleType::F16: depth = CV_16F; break;
    case hs::SampleType::F32: depth = CV_32F; break;
    case hs::SampleType::U32: depth = CV_32S; break;  // shown through its bit pattern's low range
    }
    const cv::Mat pixels(int(frame.height()), int(frame.width()), CV_MAKETYPE(depth, frame.channels()),
                         const_cast<unsigned char*>(frame.data()), frame.strideBytes());
    cv::Mat source = pixels;
    if (depth == CV_16F)
        pixels.convertTo(source, CV_32F);
    cv::Mat eight;
    if (depth == CV_8U) {
        eight = source;
    } else {
        const double scale = 256.0 / (frame.nominalHi() - frame.nominalLo());
        source.convertTo(eight, CV_8U, scale, -frame.nominalLo() * scale);
    }
    auto rgb = std::make_shared<cv::Mat>(int(frame.height()), int(frame.width()), CV_8UC3);
    cv::Mat& target = *rgb;
    switch (frame.channelOrder()) {
    case ChannelOrder::Gray: cv::cvtColor(eight, target, cv::COLOR_GRAY2RGB); break;
    case ChannelOrder::GrayAlpha: {
        cv::Mat gray;
        cv::extractChannel(eight, gray, 0);
        cv::cvtColor(gray, target, cv::COLOR_GRAY2RGB);
        break;
    }
    case ChannelOrder::Bgr: cv::cvtColor(eight, target, cv::COLOR_BGR2RGB); break;
    case ChannelOrder::Bgra: cv::cvtColor(eight, target, cv::COLOR_BGRA2RGB); break;
    case ChannelOrder::Rgb: eight.copyTo(target); break;
    case ChannelOrder::Rgba: cv::cvtColor(eight, target, cv::COLOR_RGBA2RGB); break;
    }
    const unsigned char* pixels8 = rgb->data;
    const std::size_t stride = rgb->step[0];
    return Frame(std::move(rgb), pixels8, hs::SampleType::U8, frame.width(), frame.height(), 3, stride,
                 ChannelOrder::Rgb);
}
