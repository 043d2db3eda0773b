// libFuzzer entry: the .npy header parser, the raw shape checks and the image header reader
// (io/ImageHeader.h, which sizes PNG, JPEG, TIFF... before decoding) on arbitrary bytes.
#include "../ImageHeader.h"
#include "../RawFormat.h"

#include <algorithm>
#include <cstring>

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size)
{
    rawformat::NpyHeader header;
    if (!rawformat::parseNpyHeader(data, size, header).isError()) {
        rawformat::RawSpec spec;
        rawformat::npyToRaw(header, size, spec);
    }
    if (size >= 24) {
        // The first bytes choose a raw spec; the rest stand for the file.
        rawformat::RawSpec spec;
        std::int64_t dims[2];
        std::memcpy(dims, data, sizeof dims);
        spec.width = dims[0];
        spec.height = dims[1];
        spec.channels = data[16] % 6;
        spec.type = rawformat::RawType(data[17] % 7);
        spec.bigEndian = data[18] & 1;
        spec.offset = data[19];
        std::uint64_t bytes = 0;
        rawformat::validateRaw(spec, size - 20, bytes);
    }
    imageheader::inspect(
        [&](std::uint64_t offset, void* out, std::size_t n) {
            if (offset >= size)
                return std::size_t(0);
            const std::size_t got = std::min<std::size_t>(n, size - std::size_t(offset));
            std::memcpy(out, data + offset, got);
            return got;
        },
        size);
    return 0;
}
