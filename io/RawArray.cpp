#include "io/RawArray.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace {

template <typename T>
T readSample(const unsigned char* p, bool swap)
{
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, p, sizeof(T));
    if (swap)
        std::reverse(bytes, bytes + sizeof(T));
    T v;
    std::memcpy(&v, bytes, sizeof(T));
    return v;
}

template <typename From, typename To>
std::shared_ptr<std::vector<To>> convertSamples(const unsigned char* p, std::uint64_t count, bool swap)
{
    auto out = std::make_shared<std::vector<To>>(count);
    for (std::uint64_t i = 0; i < count; ++i)
        (*out)[i] = To(readSample<From>(p + i * sizeof(From), swap));
    return out;
}

ChannelOrder orderOf(int channels)
{
    return channels == 1 ? ChannelOrder::Gray : channels == 2 ? ChannelOrder::GrayAlpha : channels == 3 ? ChannelOrder::Rgb : ChannelOrder::Rgba;
}

bool swapsBytes(const rawformat::RawSpec& spec) { return spec.bigEndian && rawformat::rawTypeSize(spec.type) > 1; }

}  // namespace

std::shared_ptr<RawArray> RawArray::make(std::shared_ptr<MappedFile> mapped, rawformat::RawSpec spec, Error& error)
{
    std::uint64_t dataBytes = 0;
    error = rawformat::validateRaw(spec, mapped->size(), dataBytes);
    if (error.isError()) {
        error.source = mapped->path();
        return nullptr;
    }
    auto array = std::make_shared<RawArray>();
    array->m_mapped = std::move(mapped);
    array->m_spec = spec;
    const QString& path = array->m_mapped->path();
    if (spec.type == rawformat::RawType::I16)
        array->warnings << path + QStringLiteral(": 16-bit signed samples widened to 32-bit integers");
    if (spec.type == rawformat::RawType::F64)
        array->warnings << path + QStringLiteral(": 64-bit floats counted as 32-bit floats");
    return array;
}

std::shared_ptr<RawArray> RawArray::openRaw(const QString& path, rawformat::RawSpec spec, Error& error)
{
    auto mapped = MappedFile::open(path, error);
    return mapped ? make(std::move(mapped), spec, error) : nullptr;
}

std::shared_ptr<RawArray> RawArray::openNpy(const QString& path, Error& error)
{
    auto mapped = MappedFile::open(path, error);
    if (!mapped)
        return nullptr;
    rawformat::NpyHeader header;
    error = rawformat::parseNpyHeader(mapped->data(), std::size_t(mapped->size()), header);
    rawformat::RawSpec spec;
    if (!error.isError())
        error = rawformat::npyToRaw(header, mapped->size(), spec);
    if (error.isError()) {
        error.source = path;
        return nullptr;
    }
    return make(std::move(mapped), spec, error);
}

bool RawArray::convertsSamples() const
{
    using rawformat::RawType;
    const std::size_t size = rawformat::rawTypeSize(m_spec.type);
    const bool aligned = reinterpret_cast<std::uintptr_t>(m_mapped->data() + m_spec.offset) % size == 0;
    return m_spec.type == RawType::I16 || m_spec.type == RawType::F64 || swapsBytes(m_spec) || !aligned;
}

Frame RawArray::convert(std::uint64_t first, std::uint64_t count, qint64 width, qint64 height) const
{
    using rawformat::RawType;
    const int channels = m_spec.channels;
    const std::size_t size = rawformat::rawTypeSize(m_spec.type);
    const unsigned char* p = m_mapped->data() + m_spec.offset + first * std::uint64_t(channels) * size;
    const std::uint64_t samples = count * std::uint64_t(channels);
    const bool swap = swapsBytes(m_spec);
    hs::SampleType type = hs::SampleType::U8;
    std::shared_ptr<const void> owner;
    const void* data = p;
    auto keep = [&](auto vec) {
        owner = std::shared_ptr<const void>(vec, vec->data());
        data = vec->data();
    };
    switch (m_spec.type) {
    case RawType::U8: type = hs::SampleType::U8; owner = m_mapped; break;
    case RawType::U16: type = hs::SampleType::U16; keep(convertSamples<std::uint16_t, std::uint16_t>(p, samples, swap)); break;
    case RawType::U32: type = hs::SampleType::U32; keep(convertSamples<std::uint32_t, std::uint32_t>(p, samples, swap)); break;
    case RawType::I32: type = hs::SampleType::I32; keep(convertSamples<std::int32_t, std::int32_t>(p, samples, swap)); break;
    case RawType::F32: type = hs::SampleType::F32; keep(convertSamples<float, float>(p, samples, swap)); break;
    case RawType::I16: type = hs::SampleType::I32; keep(convertSamples<std::int16_t, std::int32_t>(p, samples, swap)); break;
    case RawType::F64: type = hs::SampleType::F32; keep(convertSamples<double, float>(p, samples, swap)); break;
    }
    Frame frame(std::move(owner), static_cast<const unsigned char*>(data), type, width, height, channels,
                std::size_t(width) * std::size_t(channels) * hs::sampleSize(type), orderOf(channels));
    if (m_spec.type == RawType::I16)
        frame.setNominalRange(-32768, 32768);
    return frame;
}

Frame RawArray::whole() const
{
    if (convertsSamples())
        return convert(0, pixelCount(), m_spec.width, m_spec.height);
    hs::SampleType type = hs::SampleType::U8;
    switch (m_spec.type) {
    case rawformat::RawType::U16: type = hs::SampleType::U16; break;
    case rawformat::RawType::U32: type = hs::SampleType::U32; break;
    case rawformat::RawType::I32: type = hs::SampleType::I32; break;
    case rawformat::RawType::F32: type = hs::SampleType::F32; break;
    default: break;
    }
    const std::size_t stride = std::size_t(m_spec.width) * std::size_t(m_spec.channels) * hs::sampleSize(type);
    return Frame(m_mapped, m_mapped->data() + m_spec.offset, type, m_spec.width, m_spec.height, m_spec.channels, stride,
                 orderOf(m_spec.channels));
}

Frame RawArray::chunk(std::uint64_t first, std::uint64_t count) const
{
    return convert(first, count, qint64(count), 1);
}

std::vector<std::optional<std::pair<double, double>>> RawArray::finiteExtremes(std::uint64_t chunkPixels) const
{
    const int channels = std::max(1, m_spec.channels);
    std::vector<double> lo(static_cast<std::size_t>(channels), HUGE_VAL), hi(lo.size(), -HUGE_VAL);
    const std::uint64_t total = pixelCount();
    for (std::uint64_t first = 0; first < total; first += chunkPixels) {
        const Frame part = chunk(first, std::min(chunkPixels, total - first));
        const std::size_t samples = std::size_t(part.width()) * std::size_t(part.channels());
        auto scan = [&](auto* values) {
            for (std::size_t i = 0; i < samples; ++i)
                if (std::isfinite(double(values[i]))) {
                    const std::size_t c = i % std::size_t(channels);
                    lo[c] = std::min(lo[c], double(values[i]));
                    hi[c] = std::max(hi[c], double(values[i]));
                }
        };
        switch (part.type()) {
        case hs::SampleType::F32: scan(reinterpret_cast<const float*>(part.data())); break;
        case hs::SampleType::U8: scan(part.data()); break;
        case hs::SampleType::U16: scan(reinterpret_cast<const std::uint16_t*>(part.data())); break;
        case hs::SampleType::U32: scan(reinterpret_cast<const std::uint32_t*>(part.data())); break;
        case hs::SampleType::I32: scan(reinterpret_cast<const std::int32_t*>(part.data())); break;
        case hs::SampleType::F16: break;
        }
    }
    std::vector<std::optional<std::pair<double, double>>> out(static_cast<std::size_t>(channels));
    for (std::size_t c = 0; c < out.size(); ++c)
        if (lo[c] <= hi[c])
            out[c] = std::pair{lo[c], hi[c]};
    return out;
}

bool RawArray::intact(Error& error) const
{
    if (m_mapped->intact())
        return true;
    error = Error::make(ErrorKind::Truncated, m_mapped->path(),
                        QStringLiteral("the file shrank while it was being read; its counts are incomplete"));
    return false;
}
