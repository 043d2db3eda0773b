#include "io/RawFormat.h"

#include <cctype>
#include <cstring>
#include <limits>

namespace rawformat {

namespace {

// The file is named by the caller, which knows it; the kind is known only here.
Error problem(ErrorKind kind, const std::string& cause) { return Error::make(kind, QString(), QString::fromStdString(cause)); }

bool mulOverflows(std::uint64_t a, std::uint64_t b, std::uint64_t& out)
{
    if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a)
        return true;
    out = a * b;
    return false;
}

std::string trim(const std::string& s)
{
    std::size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b])))
        ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1])))
        --e;
    return s.substr(b, e - b);
}

// The value text after 'key': in a Python dict literal, up to the matching end.
bool dictValue(const std::string& dict, const std::string& key, std::string& value)
{
    const std::string quoted[] = {"'" + key + "'", "\"" + key + "\""};
    for (const std::string& q : quoted) {
        std::size_t at = dict.find(q);
        if (at == std::string::npos)
            continue;
        at = dict.find(':', at + q.size());
        if (at == std::string::npos)
            return false;
        ++at;
        while (at < dict.size() && std::isspace(static_cast<unsigned char>(dict[at])))
            ++at;
        if (at >= dict.size())
            return false;
        std::size_t end;
        if (dict[at] == '(' || dict[at] == '[') {
            // A tuple, or a structured dtype's list of fields: to its matching bracket.
            int depth = 0;
            for (end = at; end < dict.size(); ++end) {
                if (dict[end] == '(' || dict[end] == '[')
                    ++depth;
                else if ((dict[end] == ')' || dict[end] == ']') && --depth == 0)
                    break;
            }
            if (end >= dict.size())
                return false;
            ++end;
        } else if (dict[at] == '\'' || dict[at] == '"') {
            end = dict.find(dict[at], at + 1);
            if (end == std::string::npos)
                return false;
            ++end;
        } else {
            end = dict.find_first_of(",}", at);
            if (end == std::string::npos)
                return false;
        }
        value = trim(dict.substr(at, end - at));
        return true;
    }
    return false;
}

}  // namespace

std::optional<RawType> rawTypeFromName(const std::string& name)
{
    static const std::pair<const char*, RawType> names[] = {{"u8", RawType::U8},   {"u16", RawType::U16},
                                                            {"i16", RawType::I16}, {"u32", RawType::U32},
                                                            {"i32", RawType::I32}, {"f32", RawType::F32},
                                                            {"f64", RawType::F64}};
    for (const auto& [n, t] : names)
        if (name == n)
            return t;
    return std::nullopt;
}

std::size_t rawTypeSize(RawType type)
{
    switch (type) {
    case RawType::U8: return 1;
    case RawType::U16:
    case RawType::I16: return 2;
    case RawType::U32:
    case RawType::I32:
    case RawType::F32: return 4;
    case RawType::F64: return 8;
    }
    return 1;
}

Error validateRaw(RawSpec& spec, std::uint64_t fileSize, std::uint64_t& dataBytes)
{
    if (spec.channels < 1 || spec.channels > 4)
        return problem(ErrorKind::UnsupportedType, "channel count " + std::to_string(spec.channels) + " is outside 1..4");
    if (spec.width < 0 || spec.height < 0)
        return problem(ErrorKind::InvalidInput, "negative dimensions");
    if (fileSize == 0)
        return problem(ErrorKind::Empty, "the file is empty");
    if (spec.offset > fileSize)
        return problem(ErrorKind::Truncated, "header offset " + std::to_string(spec.offset) + " is past the end of the "
                                                 + std::to_string(fileSize) + "-byte file");
    const std::uint64_t sample = rawTypeSize(spec.type) * std::uint64_t(spec.channels);
    if (spec.width == 0 && spec.height == 1) {
        spec.width = std::int64_t((fileSize - spec.offset) / sample);
        if ((fileSize - spec.offset) % sample)
            return problem(ErrorKind::Truncated, "the data is " + std::to_string(fileSize - spec.offset)
                                                     + " bytes, not a whole number of " + std::to_string(sample) + "-byte samples");
    }
    if (spec.width == 0 || spec.height == 0)
        return problem(ErrorKind::ZeroSized, "a dimension is zero");
    std::uint64_t pixels = 0, bytes = 0;
    if (mulOverflows(std::uint64_t(spec.width), std::uint64_t(spec.height), pixels) || mulOverflows(pixels, sample, bytes)
        || bytes > std::uint64_t(std::numeric_limits<std::int64_t>::max()))
        return problem(ErrorKind::Overflow, "the dimensions " + std::to_string(spec.width) + "x" + std::to_string(spec.height)
                                                + "x" + std::to_string(spec.channels) + " overflow a byte count");
    if (bytes > fileSize - spec.offset)
        return problem(ErrorKind::Truncated, "truncated: the shape needs " + std::to_string(bytes)
                                                 + " bytes after the header, the file has " + std::to_string(fileSize - spec.offset));
    dataBytes = bytes;
    return {};
}

Error parseNpyHeader(const unsigned char* data, std::size_t size, NpyHeader& header)
{
    static const unsigned char magic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
    if (size < 10)
        return problem(ErrorKind::DecodeFailed, "too short for a .npy header");
    if (std::memcmp(data, magic, 6) != 0)
        return problem(ErrorKind::DecodeFailed, "not a .npy file (bad magic)");
    header.major = data[6];
    header.minor = data[7];
    std::uint64_t headerLength, prefix;
    if (header.major == 1) {
        headerLength = std::uint64_t(data[8]) | (std::uint64_t(data[9]) << 8);
        prefix = 10;
    } else if (header.major == 2 || header.major == 3) {
        if (size < 12)
            return problem(ErrorKind::Truncated, "too short for a version 2 .npy header");
        headerLength = std::uint64_t(data[8]) | (std::uint64_t(data[9]) << 8) | (std::uint64_t(data[10]) << 16)
                     | (std::uint64_t(data[11]) << 24);
        prefix = 12;
    } else {
        return problem(ErrorKind::UnsupportedType,
                       "unsupported .npy version " + std::to_string(header.major) + "." + std::to_string(header.minor));
    }
    if (headerLength > size - prefix)
        return problem(ErrorKind::Truncated, "truncated: the header claims " + std::to_string(headerLength)
                                                 + " bytes, the file has " + std::to_string(size - prefix) + " after the prefix");
    header.dataOffset = prefix + headerLength;
    const std::string dict(reinterpret_cast<const char*>(data + prefix), std::size_t(headerLength));
    std::string descr, fortran, shape;
    if (!dictValue(dict, "descr", descr) || !dictValue(dict, "fortran_order", fortran) || !dictValue(dict, "shape", shape))
        return problem(ErrorKind::DecodeFailed, "the header dictionary lacks descr, fortran_order or shape");
    if (!descr.empty() && descr.front() == '[')
        return problem(ErrorKind::UnsupportedType, "a structured dtype (fields " + (descr.size() > 80 ? descr.substr(0, 77) + "..." : descr)
                                                       + ") is not counted: save one field as its own array, e.g. np.save(f, a['x'])");
    if (descr.size() < 4 || (descr.front() != '\'' && descr.front() != '"'))
        return problem(ErrorKind::UnsupportedType, "unsupported dtype " + descr.substr(0, 80));
    descr = descr.substr(1, descr.size() - 2);
    header.byteOrder = descr[0];
    if (header.byteOrder != '<' && header.byteOrder != '>' && header.byteOrder != '|' && header.byteOrder != '=')
        return problem(ErrorKind::DecodeFailed, "dtype '" + descr + "' has no byte order");
    if (header.byteOrder == '=')
        header.byteOrder = '<';
    header.kind = descr[1];
    const std::string digits = descr.substr(2);
    if (digits.empty() || digits.size() > 2 || !std::isdigit(static_cast<unsigned char>(digits[0]))
        || (digits.size() == 2 && !std::isdigit(static_cast<unsigned char>(digits[1]))))
        return problem(ErrorKind::UnsupportedType, "unsupported dtype '" + descr + "'");
    header.itemSize = std::stoi(digits);
    header.fortranOrder = fortran == "True";
    if (fortran != "True" && fortran != "False")
        return problem(ErrorKind::DecodeFailed, "fortran_order is neither True nor False");
    if (shape.size() < 2 || shape.front() != '(' || shape.back() != ')')
        return problem(ErrorKind::DecodeFailed, "shape " + shape + " is not a tuple");
    header.shape.clear();
    std::string inner = shape.substr(1, shape.size() - 2);
    std::size_t start = 0;
    while (start < inner.size()) {
        std::size_t comma = inner.find(',', start);
        if (comma == std::string::npos)
            comma = inner.size();
        const std::string item = trim(inner.substr(start, comma - start));
        if (!item.empty()) {
            if (item.size() > 19 || item.find_first_not_of("0123456789") != std::string::npos)
                return problem(ErrorKind::DecodeFailed, "shape entry '" + item + "' is not a non-negative integer");
            header.shape.push_back(std::stoull(item));
        }
        start = comma + 1;
    }
    return {};
}

Error npyToRaw(const NpyHeader& header, std::uint64_t fileSize, RawSpec& spec)
{
    if (header.fortranOrder)
        return problem(ErrorKind::UnsupportedType,
                       "Fortran-ordered arrays are not supported; save it in C order (np.ascontiguousarray)");
    std::optional<RawType> type;
    const int size = header.itemSize;
    if (header.kind == 'u' && size == 1) type = RawType::U8;
    else if (header.kind == 'b' && size == 1) type = RawType::U8;
    else if (header.kind == 'u' && size == 2) type = RawType::U16;
    else if (header.kind == 'i' && size == 2) type = RawType::I16;
    else if (header.kind == 'u' && size == 4) type = RawType::U32;
    else if (header.kind == 'i' && size == 4) type = RawType::I32;
    else if (header.kind == 'f' && size == 4) type = RawType::F32;
    else if (header.kind == 'f' && size == 8) type = RawType::F64;
    if (!type)
        return problem(ErrorKind::UnsupportedType, std::string("dtype ") + header.kind + std::to_string(size)
                                                       + " is not supported (u1, u2, i2, u4, i4, f4, f8)");
    spec = RawSpec{};
    spec.type = *type;
    spec.bigEndian = header.byteOrder == '>';
    spec.offset = header.dataOffset;
    const auto& s = header.shape;
    if (s.size() == 1) {
        spec.width = std::int64_t(s[0]);
        spec.height = 1;
    } else if (s.size() == 2) {
        spec.height = std::int64_t(s[0]);
        spec.width = std::int64_t(s[1]);
    } else if (s.size() == 3 && s[2] >= 1 && s[2] <= 4) {
        spec.height = std::int64_t(s[0]);
        spec.width = std::int64_t(s[1]);
        spec.channels = int(s[2]);
    } else if (s.size() == 3) {
        return problem(ErrorKind::UnsupportedType, "shape (" + std::to_string(s[0]) + ", " + std::to_string(s[1]) + ", "
                                                       + std::to_string(s[2]) + ") has " + std::to_string(s[2])
                                                       + " channels; an image has 1 to 4 (height, width, channels)");
    } else {
        return problem(ErrorKind::UnsupportedType,
                       "shape with " + std::to_string(s.size()) + " dimensions is not an image or a key array");
    }
    for (std::uint64_t d : s)
        if (d > std::uint64_t(std::numeric_limits<std::int64_t>::max()))
            return problem(ErrorKind::Overflow, "a dimension overflows");
    std::uint64_t dataBytes = 0;
    if (spec.width == 0 || spec.height == 0)
        return problem(ErrorKind::ZeroSized, "the array has no elements (a dimension is zero)");
    Error error = validateRaw(spec, fileSize, dataBytes);
    if (error.isError())
        return error;
    if (dataBytes != fileSize - spec.offset)
        return problem(ErrorKind::HeaderMismatch, "the header's shape needs " + std::to_string(dataBytes) + " bytes but the file holds "
                                                      + std::to_string(fileSize - spec.offset) + " after the header");
    return {};
}

}  // namespace rawformat
