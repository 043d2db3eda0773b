#include "app/core/PixelProbe.h"

#include <QFloat16>

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

}  // namespace

PixelProbe probePixel(const Frame& frame, qint64 x, qint64 y)
{
    PixelProbe probe;
    probe.x = x;
    probe.y = y;
    probe.type = frame.type();
    if (frame.isNull() || x < 0 || y < 0 || x >= frame.width() || y >= frame.height())
        return probe;
    probe.inside = true;
    const std::size_t sampleBytes = hs::sampleSize(frame.type());
    const unsigned char* pixel =
        frame.data() + std::size_t(y) * frame.strideBytes() + std::size_t(x) * std::size_t(frame.channels()) * sampleBytes;
    for (int display = 0; display < frame.channels(); ++display) {
        const int storage = frame.storageIndexOfDisplayChannel(display);
        const unsigned char* p = pixel + std::size_t(storage) * sampleBytes;
        ProbeSample s;
        s.channel = channelName(frame.channelOrder(), storage);
        switch (frame.type()) {
        case hs::SampleType::U8: s.value = *p; s.normalized = s.value / 255.0; break;
        case hs::SampleType::U16: s.value = load<std::uint16_t>(p); s.normalized = s.value / 65535.0; break;
        case hs::SampleType::I32:
            s.value = load<std::int32_t>(p);
            s.normalized = s.value / double(std::numeric_limits<std::int32_t>::max());
            break;
        case hs::SampleType::U32:
            s.value = load<std::uint32_t>(p);
            s.normalized = s.value / double(std::numeric_limits<std::uint32_t>::max());
            break;
        case hs::SampleType::F16: s.value = double(float(load<qfloat16>(p))); s.normalized = s.value; break;
        case hs::SampleType::F32: s.value = load<float>(p); s.normalized = s.value; break;
        }
        probe.samples.append(s);
    }
    return probe;
}

QString probeValueText(const PixelProbe& probe, const ProbeSample& sample)
{
    if (hs::isFloatType(probe.type))
        return QString::number(sample.value, 'g', probe.type == hs::SampleType::F16 ? 5 : 7);
    return QString::number(qint64(sample.value));
}
