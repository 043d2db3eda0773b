// Headerless raw samples and NumPy .npy headers, apart from the mapped files they describe, so
// the libFuzzer target links them with Qt Core alone. Every check says what is wrong in words a
// user can act on, as an Error whose kind is decided here, where the fault is known; the caller
// names the file (Error::source).
#pragma once

#include "common/Error.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rawformat {

enum class RawType { U8, U16, I16, U32, I32, F32, F64 };
std::optional<RawType> rawTypeFromName(const std::string& name);  // "u8", "u16", "i16", ...
std::size_t rawTypeSize(RawType type);

struct RawSpec {
    std::int64_t width = 0;    // 0 with height 1: as many samples as the file holds (1-D keys)
    std::int64_t height = 1;
    int channels = 1;
    RawType type = RawType::U8;
    bool bigEndian = false;
    std::uint64_t offset = 0;  // header bytes to skip
};

// Checks a spec against a file size; on success `dataBytes` is the byte count the shape needs.
// A 0-width 1-D spec takes its width from the file.
Error validateRaw(RawSpec& spec, std::uint64_t fileSize, std::uint64_t& dataBytes);

struct NpyHeader {
    int major = 0;
    int minor = 0;
    char byteOrder = '<';        // '<', '>' or '|'
    char kind = 'u';             // 'u', 'i', 'f', 'b'
    int itemSize = 1;
    bool fortranOrder = false;
    std::vector<std::uint64_t> shape;
    std::uint64_t dataOffset = 0;
};

// Parses the magic, version and header dictionary of a .npy file (versions 1 to 3).
Error parseNpyHeader(const unsigned char* data, std::size_t size, NpyHeader& header);

// The raw type of a .npy dtype, and the shape as width/height/channels, or an error.
Error npyToRaw(const NpyHeader& header, std::uint64_t fileSize, RawSpec& spec);

}  // namespace rawformat
