// The video module (histoscope_video): VideoDecoder over cv::VideoCapture. The only code of the
// project that links opencv_videoio, so that GStreamer, FFmpeg and their codecs are loaded when a
// video is opened and not at every start (io/VideoDecoder.h says why).
#include "io/VideoDecoder.h"

#include <opencv2/videoio.hpp>
#include <opencv2/videoio/registry.hpp>

#include <new>

namespace {

cv::VideoCaptureAPIs toCv(VideoDecoder::Api api)
{
    switch (api) {
    case VideoDecoder::Api::Ffmpeg: return cv::CAP_FFMPEG;
    case VideoDecoder::Api::OpenCvMjpeg: return cv::CAP_OPENCV_MJPEG;
    case VideoDecoder::Api::GStreamer: return cv::CAP_GSTREAMER;
    case VideoDecoder::Api::V4l2: return cv::CAP_V4L2;
    case VideoDecoder::Api::Any: break;
    }
    return cv::CAP_ANY;
}

int toCv(VideoDecoder::Property property)
{
    switch (property) {
    case VideoDecoder::Property::Fps: return cv::CAP_PROP_FPS;
    case VideoDecoder::Property::Width: return cv::CAP_PROP_FRAME_WIDTH;
    case VideoDecoder::Property::Height: return cv::CAP_PROP_FRAME_HEIGHT;
    case VideoDecoder::Property::FrameCount: return cv::CAP_PROP_FRAME_COUNT;
    case VideoDecoder::Property::PositionFrames: return cv::CAP_PROP_POS_FRAMES;
    case VideoDecoder::Property::CodecPixelFormat: return cv::CAP_PROP_CODEC_PIXEL_FORMAT;
    case VideoDecoder::Property::ReadTimeoutMs: return cv::CAP_PROP_READ_TIMEOUT_MSEC;
    }
    return -1;
}

class OpenCvVideoDecoder final : public VideoDecoder {
public:
    bool hasApi(Api api) const override { return cv::videoio_registry::hasBackend(toCv(api)); }

    bool open(const std::string& name, Api api, std::string& refusal) override
    {
        try {
            return m_capture.open(name, toCv(api));
        } catch (const cv::Exception& e) {
            refusal = e.msg;
            return false;
        }
    }

    bool open(int cameraIndex, Api api, std::string& refusal) override
    {
        try {
            return m_capture.open(cameraIndex, toCv(api));
        } catch (const cv::Exception& e) {
            refusal = e.msg;
            return false;
        }
    }

    bool isOpened() const override { return m_capture.isOpened(); }

    double get(Property property) override
    {
        try {
            return m_capture.get(toCv(property));
        } catch (const cv::Exception&) {
            return 0;
        }
    }

    bool set(Property property, double value) override
    {
        try {
            return m_capture.set(toCv(property), value);
        } catch (const cv::Exception&) {
            return false;
        }
    }

    Read read(cv::Mat& mat, std::string& failure) override
    {
        try {
            return m_capture.read(mat) && !mat.empty() ? Read::Frame : Read::End;
        } catch (const cv::Exception& e) {
            failure = e.msg;
            return Read::Failed;
        }
    }

private:
    cv::VideoCapture m_capture;
};

}  // namespace

extern "C" __attribute__((visibility("default"))) VideoDecoder* histoscope_video_decoder(int abi)
{
    if (abi != kVideoDecoderAbi)
        return nullptr;
    return new (std::nothrow) OpenCvVideoDecoder;
}
