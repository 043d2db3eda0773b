// What an image file says about itself before it is decoded: its format (from the magic
// bytes, never the extension), the size of each page, and whether its end marker is there.
// Plain C++ reading through a callback, so a decompression bomb is refused from a few header
// bytes, a TIFF's pages are sized without decoding them, and a fuzz target can drive it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace imageheader {

enum class Format { Unknown, Png, Jpeg, Tiff, Bmp, Webp, Pnm, Pfm, Hdr, Exr };
const char* formatName(Format format);

struct Page {
    std::uint64_t width = 0;
    std::uint64_t height = 0;
    int channels = 1;        // as OpenCV decodes it (palettes expanded)
    int bytesPerSample = 1;
    // Bytes of the decoded page; saturates rather than overflows.
    std::uint64_t decodedBytes() const;
};

struct Info {
    Format format = Format::Unknown;
    std::vector<Page> pages;  // empty when the format is unknown or its header unreadable
    bool complete = true;     // JPEG and PNG: the end-of-image marker (EOI, IEND) was found
};

// Reads up to `size` bytes at `offset` into `out`, returning how many it read.
using ReadAt = std::function<std::size_t(std::uint64_t offset, void* out, std::size_t size)>;

inline constexpr std::size_t kMaxPages = 1u << 16;

Info inspect(const ReadAt& read, std::uint64_t fileSize);

}  // namespace imageheader
