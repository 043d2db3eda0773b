#include "io/RawLoader.h"

#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <cstring>
#include <vector>

namespace {

struct MappedFile {
    QFile file;
    uchar* data = nullptr;
    ~MappedFile()
    {
        if (data)
            file.unmap(data);
    }
};

ErrorKind kindOf(const std::string& error)
{
    if (error.find("truncated") != std::string::npos)
        return ErrorKind::Truncated;
    if (error.find("overflow") != std::string::npos)
        return ErrorKind::Overflow;
    if (error.find("empty") != std::string::npos)
        return ErrorKind::Empty;
    if (error.find("zero") != std::string::npos)
        return ErrorKind::ZeroSized;
    if (error.find("header") != std::string::npos || error.find("past the end") != std::string::npos)
        return ErrorKind::HeaderMismatch;
    if (error.find("not supported") != std::string::npos || error.find("unsupported") != std::string::npos)
        return ErrorKind::UnsupportedType;
    return ErrorKind::DecodeFailed;
}

std::shared_ptr<MappedFile> mapFile(const QString& path, Error& error)
{
    const QFileInfo info(path);
    if (!info.exists()) {
        error = Error::make(ErrorKind::Missing, path, QStringLiteral("no such file"));
        return nullptr;
    }
    auto mapped = std::make_shared<MappedFile>();
    mapped->file.setFileName(path);
    if (!info.isFile() || !mapped->file.open(QIODevice::ReadOnly)) {
        error = Error::make(ErrorKind::Unreadable, path,
                                QStringLiteral("cannot be read (%1)").arg(mapped->file.errorString()));
        return nullptr;
    }
    if (mapped->file.size() == 0) {
        error = Error::make(ErrorKind::Empty, path, QStringLiteral("the file is empty"));
        return nullptr;
    }
    mapped->data = mapped->file.map(0, mapped->file.size());
    if (!mapped->data) {
        error = Error::make(ErrorKind::Unreadable, path,
                                QStringLiteral("cannot be memory-mapped (%1)").arg(mapped->file.errorString()));
        return nullptr;
    }
    return mapped;
}

template <typename T>
T readSample(const uchar* p, bool swap)
{
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, p, sizeof(T));
    if (swap)
        std::reverse(bytes, bytes + sizeof(T));
    T v;
    std::memcpy(&v, bytes, sizeof(T));
    return v;
}

// Converts samples into a type the engine counts, into an owned copy.
template <typename From, typename To>
std::shared_ptr<std::vector<To>> convert(const uchar* p, std::uint64_t count, bool swap)
{
    auto out = std::make_shared<std::vector<To>>(count);
    for (std::uint64_t i = 0; i < count; ++i)
        (*out)[i] = To(readSample<From>(p + i * sizeof(From), swap));
    return out;
}

RawLoadResult frameFromMapped(const QString& path, std::shared_ptr<MappedFile> mapped, rawformat::RawSpec spec)
{
    using rawformat::RawType;
    RawLoadResult result;
    std::uint64_t dataBytes = 0;
    const std::string error = rawformat::validateRaw(spec, std::uint64_t(mapped->file.size()), dataBytes);
    if (!error.empty()) {
        result.error = Error::make(kindOf(error), path, QString::fromStdString(error));
        return result;
    }
    const uchar* p = mapped->data + spec.offset;
    const std::uint64_t count = dataBytes / rawformat::rawTypeSize(spec.type);
    const bool swap = spec.bigEndian && rawformat::rawTypeSize(spec.type) > 1;
    const ChannelOrder order = spec.channels == 1 ? ChannelOrder::Gray
                              : spec.channels == 2 ? ChannelOrder::GrayAlpha
                              : spec.channels == 3 ? ChannelOrder::Rgb
                                                   : ChannelOrder::Rgba;
    auto make = [&](std::shared_ptr<const void> owner, const void* data, hs::SampleType type) {
        const std::size_t stride = std::size_t(spec.width) * spec.channels * hs::sampleSize(type);
        result.frame = Frame(std::move(owner), static_cast<const unsigned char*>(data), type, spec.width, spec.height,
                             spec.channels, stride, order);
    };
    auto keep = [&](auto vec) { return std::shared_ptr<const void>(vec, vec->data()); };
    const bool aligned = reinterpret_cast<std::uintptr_t>(p) % rawformat::rawTypeSize(spec.type) == 0;
    switch (spec.type) {
    case RawType::U8: make(mapped, p, hs::SampleType::U8); break;
    case RawType::U16:
        if (swap || !aligned) { auto v = convert<std::uint16_t, std::uint16_t>(p, count, swap); make(keep(v), v->data(), hs::SampleType::U16); }
        else make(mapped, p, hs::SampleType::U16);
        break;
    case RawType::U32:
        if (swap || !aligned) { auto v = convert<std::uint32_t, std::uint32_t>(p, count, swap); make(keep(v), v->data(), hs::SampleType::U32); }
        else make(mapped, p, hs::SampleType::U32);
        break;
    case RawType::I32:
        if (swap || !aligned) { auto v = convert<std::int32_t, std::int32_t>(p, count, swap); make(keep(v), v->data(), hs::SampleType::I32); }
        else make(mapped, p, hs::SampleType::I32);
        break;
    case RawType::F32:
        if (swap || !aligned) { auto v = convert<float, float>(p, count, swap); make(keep(v), v->data(), hs::SampleType::F32); }
        else make(mapped, p, hs::SampleType::F32);
        break;
    case RawType::I16: {
        auto v = convert<std::int16_t, std::int32_t>(p, count, swap);
        make(keep(v), v->data(), hs::SampleType::I32);
        result.warnings << path + QStringLiteral(": 16-bit signed samples widened to 32-bit integers");
        break;
    }
    case RawType::F64: {
        auto v = convert<double, float>(p, count, swap);
        make(keep(v), v->data(), hs::SampleType::F32);
        result.warnings << path + QStringLiteral(": 64-bit floats counted as 32-bit floats");
        break;
    }
    }
    if (spec.type == RawType::I16)
        result.frame.setNominalRange(-32768, 32768);
    return result;
}

}  // namespace

RawLoadResult RawLoader::loadRaw(const QString& path, rawformat::RawSpec spec)
{
    RawLoadResult result;
    auto mapped = mapFile(path, result.error);
    if (!mapped)
        return result;
    return frameFromMapped(path, std::move(mapped), spec);
}

RawLoadResult RawLoader::loadNpy(const QString& path)
{
    RawLoadResult result;
    auto mapped = mapFile(path, result.error);
    if (!mapped)
        return result;
    rawformat::NpyHeader header;
    const std::uint64_t size = std::uint64_t(mapped->file.size());
    std::string error = rawformat::parseNpyHeader(mapped->data, std::size_t(size), header);
    rawformat::RawSpec spec;
    if (error.empty())
        error = rawformat::npyToRaw(header, size, spec);
    if (!error.empty()) {
        result.error = Error::make(kindOf(error), path, QString::fromStdString(error));
        return result;
    }
    return frameFromMapped(path, std::move(mapped), spec);
}
