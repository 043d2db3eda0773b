// One decoded frame as the engine counts it: native depth, interleaved channels, known channel
// order and nominal value range. Pixel memory is shared, never copied when a Frame is copied,
// so a decoder's buffer (an OpenCV matrix, a memory map) is counted in place.
#pragma once

#include "histoscope/HistogramTypes.h"

#include <QString>

#include <memory>

enum class ChannelOrder { Gray, GrayAlpha, Bgr, Bgra, Rgb, Rgba };

QString channelName(ChannelOrder order, int channel);  // "gray", "R", "G", "B", "A"

class Frame {
public:
    Frame() = default;
    Frame(std::shared_ptr<const void> owner, const unsigned char* data, hs::SampleType type, qint64 width,
          qint64 height, int channels, std::size_t strideBytes, ChannelOrder order);

    bool isNull() const { return m_data == nullptr; }
    const unsigned char* data() const { return m_data; }
    hs::SampleType type() const { return m_type; }
    qint64 width() const { return m_width; }
    qint64 height() const { return m_height; }
    int channels() const { return m_channels; }
    std::size_t strideBytes() const { return m_stride; }
    ChannelOrder channelOrder() const { return m_order; }
    // The range a histogram covers by default: [0, 256) for 8-bit, [0, 65536) for 16-bit,
    // [0, 1) for floats unless the loader saw wider data.
    double nominalLo() const { return m_lo; }
    double nominalHi() const { return m_hi; }
    void setNominalRange(double lo, double hi) { m_lo = lo; m_hi = hi; }
    // Index of channel `c` in display order (R, G, B, A) within the interleaved pixel.
    int storageIndexOfDisplayChannel(int c) const;

    hs::ImageView view() const;
    std::size_t byteCount() const { return m_stride * std::size_t(m_height); }

private:
    std::shared_ptr<const void> m_owner;
    const unsigned char* m_data = nullptr;
    hs::SampleType m_type = hs::SampleType::U8;
    qint64 m_width = 0;
    qint64 m_height = 0;
    int m_channels = 1;
    std::size_t m_stride = 0;
    ChannelOrder m_order = ChannelOrder::Gray;
    double m_lo = 0;
    double m_hi = 256;
};

// Channel order of an interleaved pixel as decoded by OpenCV (BGR first).
ChannelOrder opencvOrder(int channels);
