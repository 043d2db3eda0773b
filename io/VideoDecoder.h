// OpenCV's videoio behind an interface of plain types, implemented by the video module
// (io/video/, the shared object histoscope_video) and used by VideoReader only: the programs
// link no videoio, and load the module when the first video or live source is opened
// (io/CodecModule.h says why).
//
// Both sides are built together by this project with one compiler and one OpenCV, so the
// interface is C++; the one C symbol (kVideoDecoderEntry) checks kVideoDecoderAbi, so that a
// module left from another build is refused rather than called. No exception crosses it.
#pragma once

#include <memory>
#include <string>

namespace cv {
class Mat;
}

class VideoDecoder {
public:
    // OpenCV's backends VideoReader asks for (cv::CAP_FFMPEG, ...).
    enum class Api { Any, Ffmpeg, OpenCvMjpeg, GStreamer, V4l2 };
    // cv::CAP_PROP_FPS, ...; CodecPixelFormat is libavcodec's raw tag of the decoder's format.
    enum class Property { Fps, Width, Height, FrameCount, PositionFrames, CodecPixelFormat, ReadTimeoutMs };
    enum class Read { Frame, End, Failed };

    virtual ~VideoDecoder() = default;
    virtual bool hasApi(Api api) const = 0;
    // False when the source could not be opened; `refusal` is OpenCV's exception text, if it threw.
    virtual bool open(const std::string& name, Api api, std::string& refusal) = 0;
    virtual bool open(int cameraIndex, Api api, std::string& refusal) = 0;
    virtual bool isOpened() const = 0;
    // 0 when OpenCV has no value for it (or throws).
    virtual double get(Property property) = 0;
    virtual bool set(Property property, double value) = 0;
    // Failed: `failure` is OpenCV's exception text. End: no frame came (end, or a lost source).
    virtual Read read(cv::Mat& mat, std::string& failure) = 0;
};

// The module's one exported function: a new decoder, or null when `abi` is not its own.
inline constexpr int kVideoDecoderAbi = 1;
inline constexpr const char* kVideoDecoderEntry = "histoscope_video_decoder";
using VideoDecoderEntry = VideoDecoder* (*)(int abi);
