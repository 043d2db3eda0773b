#include "io/Frame.h"

QString channelName(ChannelOrder order, int channel)
{
    switch (order) {
    case ChannelOrder::Gray: return QStringLiteral("gray");
    case ChannelOrder::GrayAlpha: return channel == 0 ? QStringLiteral("gray") : QStringLiteral("A");
    case ChannelOrder::Bgr:
    case ChannelOrder::Bgra: {
        static const char* names[] = {"B", "G", "R", "A"};
        return QString::fromLatin1(names[qBound(0, channel, 3)]);
    }
    case ChannelOrder::Rgb:
    case ChannelOrder::Rgba: {
        static const char* names[] = {"R", "G", "B", "A"};
        return QString::fromLatin1(names[qBound(0, channel, 3)]);
    }
    }
    return QString::number(channel);
}

ChannelOrder opencvOrder(int channels)
{
    switch (channels) {
    case 1: return ChannelOrder::Gray;
    case 2: return ChannelOrder::GrayAlpha;
    case 3: return ChannelOrder::Bgr;
    default: return ChannelOrder::Bgra;
    }
}

Frame::Frame(std::shared_ptr<const void> owner, const unsigned char* data, hs::SampleType type, qint64 width,
             qint64 height, int channels, std::size_t strideBytes, ChannelOrder order)
    : m_owner(std::move(owner)), m_data(data), m_type(type), m_width(width), m_height(height), m_channels(channels),
      m_stride(strideBytes), m_order(order)
{
    switch (type) {
    case hs::SampleType::U8: m_lo = 0; m_hi = 256; break;
    case hs::SampleType::U16: m_lo = 0; m_hi = 65536; break;
    case hs::SampleType::F16:
    case hs::SampleType::F32: m_lo = 0; m_hi = 1; break;
    case hs::SampleType::I32: m_lo = -32768; m_hi = 32768; break;
    case hs::SampleType::U32: m_lo = 0; m_hi = 65536; break;
    }
}

int Frame::storageIndexOfDisplayChannel(int c) const
{
    if ((m_order == ChannelOrder::Bgr || m_order == ChannelOrder::Bgra) && c < 3)
        return 2 - c;
    return c;
}

hs::ImageView Frame::view() const
{
    hs::ImageView v;
    v.data = m_data;
    v.space = hs::MemorySpace::Host;
    v.type = m_type;
    v.width = m_width;
    v.height = m_height;
    v.strideBytes = m_stride;
    v.channels = m_channels;
    return v;
}
