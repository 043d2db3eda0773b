#include "app/core/PixelProbe.h"

#include <QFloat16>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

namespace {

template <typename T>
T load(const unsigned char* p)
{
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// One sample at native depth, and the scale that normalizes it.
double sampleOf(const unsigned char* p, hs::SampleType type)
{
    switch (type) {
    case hs::SampleType::U8: return *p;
    case hs::SampleType::U16: return load<std::uint16_t>(p);
    case hs::SampleType::I32: return load<std::int32_t>(p);
    case hs::SampleType::U32: return load<std::uint32_t>(p);
    case hs::SampleType::F16: return double(float(load<qfloat16>(p)));
    case hs::SampleType::F32: return load<float>(p);
    }
    return 0;
}

double scaleOf(hs::SampleType type)
{
    switch (type) {
    case hs::SampleType::U8: return 255.0;
    case hs::SampleType::U16: return 65535.0;
    case hs::SampleType::I32: return double(std::numeric_limits<std::int32_t>::max());
    case hs::SampleType::U32: return double(std::numeric_limits<std::uint32_t>::max());
    case hs::SampleType::F16:
    case hs::SampleType::F32: break;
    }
    return 1.0;
}

ProbeHsv hsvOf(double r, double g, double b)
{
    ProbeHsv out;
    const double hi = std::max({r, g, b}), lo = std::min({r, g, b});
    out.value = hi;
    out.saturation = hi > 0 ? (hi - lo) / hi : 0;
    const double span = hi - lo;
    if (span > 0) {
        double h = 0;
        if (hi == r)
            h = (g - b) / span;
        else if (hi == g)
            h = 2 + (b - r) / span;
        else
            h = 4 + (r - g) / span;
        h *= 60;
        out.hue = h < 0 ? h + 360 : h;
    }
    return out;
}

}  // namespace

PixelProbe probePixel(const Frame& frame, qint64 x, qint64 y, int area, LumaCoefficients luma)
{
    PixelProbe probe;
    probe.x = x;
    probe.y = y;
    probe.type = frame.type();
    probe.area = std::clamp(area | 1, 1, 15);
    if (frame.isNull() || x < 0 || y < 0 || x >= frame.width() || y >= frame.height())
        return probe;
    probe.inside = true;
    const qint64 half = probe.area / 2;
    probe.left = std::max<qint64>(0, x - half);
    probe.top = std::max<qint64>(0, y - half);
    probe.width = std::min<qint64>(frame.width() - 1, x + half) - probe.left + 1;
    probe.height = std::min<qint64>(frame.height() - 1, y + half) - probe.top + 1;
    probe.averaged = probe.width * probe.height;
    const std::size_t sampleBytes = hs::sampleSize(frame.type());
    const std::size_t pixelBytes = std::size_t(frame.channels()) * sampleBytes;
    const double scale = scaleOf(frame.type());
    for (int display = 0; display < frame.channels(); ++display) {
        const int storage = frame.storageIndexOfDisplayChannel(display);
        double sum = 0;
        for (qint64 yy = probe.top; yy < probe.top + probe.height; ++yy) {
            const unsigned char* row = frame.data() + std::size_t(yy) * frame.strideBytes();
            for (qint64 xx = probe.left; xx < probe.left + probe.width; ++xx)
                sum += sampleOf(row + std::size_t(xx) * pixelBytes + std::size_t(storage) * sampleBytes, frame.type());
        }
        ProbeSample s;
        s.channel = channelName(frame.channelOrder(), storage);
        s.value = sum / double(probe.averaged);
        s.normalized = s.value / scale;
        probe.samples.append(s);
    }
    if (frame.channels() >= 3) {
        const double r = probe.samples[0].value, g = probe.samples[1].value, b = probe.samples[2].value;
        if (luma != LumaCoefficients::None) {
            // The weights LumaPlane counts with (app/core/LumaPlane.cpp).
            const double kr = luma == LumaCoefficients::Bt601 ? 0.299 : 0.2126;
            const double kb = luma == LumaCoefficients::Bt601 ? 0.114 : 0.0722;
            probe.lumaCoefficients = luma;
            probe.luma = kr * r + (1.0 - kr - kb) * g + kb * b;
            probe.lumaNormalized = *probe.luma / scale;
        }
        probe.hsv = hsvOf(r / scale, g / scale, b / scale);
    }
    return probe;
}

QString probeValueText(const PixelProbe& probe, const ProbeSample& sample)
{
    if (hs::isFloatType(probe.type))
        return QString::number(sample.value, 'g', probe.type == hs::SampleType::F16 ? 5 : 7);
    if (probe.averaged > 1)
        return QString::number(sample.value, 'f', 2);
    return QString::number(qint64(sample.value));
}

QString probeLumaText(const PixelProbe& probe)
{
    if (!probe.luma)
        return {};
    if (hs::isFloatType(probe.type))
        return QString::number(*probe.luma, 'g', probe.type == hs::SampleType::F16 ? 5 : 7);
    return QString::number(*probe.luma, 'f', 2);
}
