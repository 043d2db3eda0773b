// OpenCV's imgcodecs as the image module (io/image/, the shared object histoscope_image) gives it,
// for ImageFile, FrameWriter and the equalisation's save: the programs link no imgcodecs
// (io/CodecModule.h says why). Each function is the cv:: function of its name with
// cv::IMREAD_UNCHANGED where it reads, and throws what it throws (cv::Exception, defined in
// opencv_core, which both sides link).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace cv {
class Mat;
}

class ImageCodecs {
public:
    virtual std::size_t imcount(const std::string& path) const = 0;
    virtual bool imreadmulti(const std::string& path, std::vector<cv::Mat>& pages, int start, int count) const = 0;
    virtual cv::Mat imdecode(const cv::Mat& encoded) const = 0;
    virtual bool imencode(const std::string& extension, const cv::Mat& mat, std::vector<unsigned char>& out) const = 0;
    virtual bool haveImageWriter(const std::string& name) const = 0;

protected:
    ~ImageCodecs() = default;  // the module's one instance lives as long as the process
};

// The module's one exported function: its codecs, or null when `abi` is not its own.
inline constexpr int kImageCodecsAbi = 1;
inline constexpr const char* kImageCodecsEntry = "histoscope_image_codecs";
using ImageCodecsEntry = const ImageCodecs* (*)(int abi);
