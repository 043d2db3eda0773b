// The image module (histoscope_image): ImageCodecs over OpenCV's imgcodecs. With the video
// module, the only code of the project that links opencv_imgcodecs, so that GDAL, GDCM, Poppler
// and the rest it links are loaded when an image is decoded or written, not at every start
// (io/CodecModule.h says why).
#include "io/ImageCodecs.h"

#include <opencv2/imgcodecs.hpp>

namespace {

class OpenCvImageCodecs final : public ImageCodecs {
public:
    std::size_t imcount(const std::string& path) const override { return cv::imcount(path, cv::IMREAD_UNCHANGED); }

    bool imreadmulti(const std::string& path, std::vector<cv::Mat>& pages, int start, int count) const override
    {
        return cv::imreadmulti(path, pages, start, count, cv::IMREAD_UNCHANGED);
    }

    cv::Mat imdecode(const cv::Mat& encoded) const override { return cv::imdecode(encoded, cv::IMREAD_UNCHANGED); }

    bool imencode(const std::string& extension, const cv::Mat& mat, std::vector<unsigned char>& out) const override
    {
        return cv::imencode(extension, mat, out);
    }

    bool haveImageWriter(const std::string& name) const override { return cv::haveImageWriter(name); }
};

}  // namespace

extern "C" __attribute__((visibility("default"))) const ImageCodecs* histoscope_image_codecs(int abi)
{
    static const OpenCvImageCodecs codecs;
    return abi == kImageCodecsAbi ? &codecs : nullptr;
}
