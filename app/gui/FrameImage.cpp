#include "app/gui/FrameImage.h"

QImage frameImage(const Frame& rgb)
{
    if (rgb.isNull() || rgb.type() != hs::SampleType::U8 || rgb.channels() != 3
        || rgb.channelOrder() != ChannelOrder::Rgb)
        return {};
    // The cleanup hook owns a copy of the frame, so the pixels live as long as the image.
    auto* keeper = new Frame(rgb);
    return QImage(rgb.data(), int(rgb.width()), int(rgb.height()), qsizetype(rgb.strideBytes()),
                  QImage::Format_RGB888, [](void* info) { delete static_cast<Frame*>(info); }, keeper);
}
