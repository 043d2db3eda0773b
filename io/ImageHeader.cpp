#include "io/ImageHeader.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <set>

namespace imageheader {

namespace {

// Sequential and random reads over the callback, with a small window for byte scans.
class Bytes {
public:
    Bytes(const ReadAt& read, std::uint64_t size) : m_read(read), m_size(size) {}
    std::uint64_t size() const { return m_size; }
    bool get(std::uint64_t offset, void* out, std::size_t n) const
    {
        return offset <= m_size && n <= m_size - offset && m_read(offset, out, n) == n;
    }
    std::string text(std::uint64_t offset, std::size_t n) const
    {
        std::string s(std::size_t(std::min<std::uint64_t>(n, offset < m_size ? m_size - offset : 0)), '\0');
        if (!s.empty() && m_read(offset, s.data(), s.size()) != s.size())
            s.clear();
        return s;
    }
    // One byte through a 64 KiB window: JPEG's entropy-coded data is scanned this way.
    int at(std::uint64_t offset)
    {
        if (offset >= m_size)
            return -1;
        if (offset < m_windowStart || offset >= m_windowStart + m_window.size()) {
            m_window.resize(std::size_t(std::min<std::uint64_t>(1 << 16, m_size - offset)));
            m_windowStart = offset;
            if (m_read(offset, m_window.data(), m_window.size()) != m_window.size()) {
                m_window.clear();
                return -1;
            }
        }
        return m_window[std::size_t(offset - m_windowStart)];
    }

private:
    const ReadAt& m_read;
    std::uint64_t m_size;
    std::vector<unsigned char> m_window;
    std::uint64_t m_windowStart = 0;
};

std::uint32_t be32(const unsigned char* p) { return std::uint32_t(p[0]) << 24 | std::uint32_t(p[1]) << 16 | std::uint32_t(p[2]) << 8 | p[3]; }
std::uint16_t be16(const unsigned char* p) { return std::uint16_t(p[0] << 8 | p[1]); }
std::uint32_t le32(const unsigned char* p) { return std::uint32_t(p[3]) << 24 | std::uint32_t(p[2]) << 16 | std::uint32_t(p[1]) << 8 | p[0]; }
std::uint16_t le16(const unsigned char* p) { return std::uint16_t(p[1] << 8 | p[0]); }

void png(Bytes& b, Info& info)
{
    unsigned char h[26];
    if (!b.get(0, h, sizeof h) || std::memcmp(h + 12, "IHDR", 4) != 0)
        return;
    const int colour = h[25];
    const int channels = colour == 0 ? 1 : colour == 2 ? 3 : 4;  // palette and grey+alpha: up to 4
    info.pages.push_back({be32(h + 16), be32(h + 20), channels, h[24] == 16 ? 2 : 1});
    // Walk the chunks to IEND; bytes after it are allowed.
    info.complete = false;
    std::uint64_t at = 8;
    unsigned char chunk[8];
    while (b.get(at, chunk, 8)) {
        if (std::memcmp(chunk + 4, "IEND", 4) == 0) {
            info.complete = true;
            return;
        }
        at += 12 + std::uint64_t(be32(chunk));
    }
}

bool isSof(int marker)
{
    return marker >= 0xc0 && marker <= 0xcf && marker != 0xc4 && marker != 0xc8 && marker != 0xcc;
}

void jpeg(Bytes& b, Info& info)
{
    info.complete = false;
    std::uint64_t at = 2;
    for (;;) {
        // A marker: 0xff (fill bytes allowed), then its code.
        if (b.at(at) != 0xff)
            return;
        int marker;
        do
            marker = b.at(++at);
        while (marker == 0xff);
        ++at;
        if (marker < 0)
            return;
        if (marker == 0xd9) {
            info.complete = true;
            return;
        }
        if ((marker >= 0xd0 && marker <= 0xd7) || marker == 0x01)
            continue;  // no length
        unsigned char len[2];
        if (!b.get(at, len, 2) || be16(len) < 2)
            return;
        if (isSof(marker) && info.pages.empty()) {
            unsigned char sof[6];
            if (b.get(at + 2, sof, 6))
                info.pages.push_back({be16(sof + 3), be16(sof + 1), sof[5] >= 3 ? 3 : 1, sof[0] > 8 ? 2 : 1});
        }
        at += be16(len);
        if (marker != 0xda)
            continue;
        // Entropy-coded data: 0xff is followed by a stuffed 0x00 or a restart marker, until
        // the next real marker (another scan's tables, or EOI).
        for (;;) {
            const int c = b.at(at);
            if (c < 0)
                return;
            if (c != 0xff) {
                ++at;
                continue;
            }
            const int next = b.at(at + 1);
            if (next == 0x00 || (next >= 0xd0 && next <= 0xd7) || next == 0xff) {
                at += next == 0xff ? 1 : 2;
                continue;
            }
            break;
        }
    }
}

void tiff(Bytes& b, Info& info)
{
    unsigned char h[16];
    if (!b.get(0, h, 8))
        return;
    const bool little = h[0] == 'I';
    auto u16 = [&](const unsigned char* p) { return little ? le16(p) : be16(p); };
    auto u32 = [&](const unsigned char* p) { return little ? le32(p) : be32(p); };
    auto u64 = [&](const unsigned char* p) {
        return little ? std::uint64_t(le32(p)) | std::uint64_t(le32(p + 4)) << 32 : std::uint64_t(be32(p)) << 32 | be32(p + 4);
    };
    const bool big = u16(h + 2) == 43;
    std::uint64_t ifd;
    if (big) {
        if (!b.get(0, h, 16))
            return;
        ifd = u64(h + 8);
    } else {
        ifd = u32(h + 4);
    }
    const std::size_t countSize = big ? 8 : 2, entrySize = big ? 20 : 12, valueSize = big ? 8 : 4;
    std::set<std::uint64_t> seen;
    while (ifd && info.pages.size() < kMaxPages && seen.insert(ifd).second) {
        unsigned char count[8];
        if (!b.get(ifd, count, countSize))
            return;
        const std::uint64_t entries = big ? u64(count) : u16(count);
        if (entries > 4096)
            return;
        std::vector<unsigned char> table(std::size_t(entries * entrySize + valueSize));
        if (!b.get(ifd + countSize, table.data(), table.size()))
            return;
        Page page;
        int bits = 1, samples = 1, photometric = 1;
        for (std::uint64_t e = 0; e < entries; ++e) {
            const unsigned char* p = table.data() + e * entrySize;
            const int tag = u16(p), type = u16(p + 2);
            const unsigned char* value = p + 4 + (big ? 8 : 4);
            const std::uint64_t n = big ? u64(p + 4) : u32(p + 4);
            // Values of SHORT (3) or LONG (4) type, first one only; stored in place when they fit.
            std::uint64_t v = type == 3 ? u16(value) : u32(value);
            if (type == 3 && n * 2 > valueSize) {
                unsigned char first[2];
                const std::uint64_t at = big ? u64(value) : u32(value);
                v = b.get(at, first, 2) ? u16(first) : 0;
            }
            if (type == 16)  // LONG8 (BigTIFF)
                v = u64(value);
            switch (tag) {
            case 256: page.width = v; break;
            case 257: page.height = v; break;
            case 258: bits = int(std::min<std::uint64_t>(v, 64)); break;
            case 262: photometric = int(v); break;
            case 277: samples = int(std::min<std::uint64_t>(v, 64)); break;
            default: break;
            }
        }
        page.channels = photometric == 3 ? 3 : std::max(1, std::min(samples, 4));
        page.bytesPerSample = bits <= 8 ? 1 : bits <= 16 ? 2 : bits <= 32 ? 4 : 8;
        info.pages.push_back(page);
        const unsigned char* next = table.data() + entries * entrySize;
        ifd = big ? u64(next) : u32(next);
    }
}

void bmp(Bytes& b, Info& info)
{
    unsigned char h[30];
    if (!b.get(0, h, sizeof h))
        return;
    const std::uint32_t dib = le32(h + 14);
    std::uint64_t w, hgt;
    int bpp;
    if (dib == 12) {
        w = le16(h + 18);
        hgt = le16(h + 20);
        bpp = le16(h + 24);
    } else {
        const std::int32_t sw = std::int32_t(le32(h + 18)), sh = std::int32_t(le32(h + 22));
        w = std::uint64_t(sw < 0 ? -std::int64_t(sw) : sw);
        hgt = std::uint64_t(sh < 0 ? -std::int64_t(sh) : sh);
        bpp = le16(h + 28);
    }
    info.pages.push_back({w, hgt, bpp == 32 ? 4 : 3, 1});
}

void webp(Bytes& b, Info& info)
{
    unsigned char h[30];
    if (!b.get(0, h, sizeof h))
        return;
    if (std::memcmp(h + 12, "VP8 ", 4) == 0)
        info.pages.push_back({std::uint64_t(le16(h + 26) & 0x3fff), std::uint64_t(le16(h + 28) & 0x3fff), 4, 1});
    else if (std::memcmp(h + 12, "VP8L", 4) == 0) {
        const std::uint32_t v = le32(h + 21);
        info.pages.push_back({(v & 0x3fff) + 1ull, ((v >> 14) & 0x3fff) + 1ull, 4, 1});
    } else if (std::memcmp(h + 12, "VP8X", 4) == 0) {
        const std::uint64_t w = (h[24] | h[25] << 8 | h[26] << 16) + 1ull;
        const std::uint64_t hgt = (h[27] | h[28] << 8 | h[29] << 16) + 1ull;
        info.pages.push_back({w, hgt, 4, 1});
    }
}

// Whitespace-separated numbers after a PNM or PFM magic, with '#' comments.
bool pnmNumbers(const std::string& text, std::size_t count, std::vector<double>& out)
{
    std::size_t i = 2;
    while (out.size() < count && i < text.size()) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if (std::isspace(c)) {
            ++i;
        } else if (c == '#') {
            while (i < text.size() && text[i] != '\n')
                ++i;
        } else {
            std::size_t end = i;
            while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end])))
                ++end;
            const std::string token = text.substr(i, end - i);
            if (token.empty() || token.size() > 18 || token.find_first_not_of("0123456789.-+eE") != std::string::npos)
                return false;
            out.push_back(std::strtod(token.c_str(), nullptr));
            i = end;
        }
    }
    return out.size() == count;
}

void pnm(Bytes& b, Info& info, char kind)
{
    const std::string head = b.text(0, 4096);
    std::vector<double> v;
    const bool bitmap = kind == '1' || kind == '4';
    if (!pnmNumbers(head, bitmap ? 2 : 3, v) || v[0] < 0 || v[1] < 0)
        return;
    const int channels = kind == '3' || kind == '6' ? 3 : 1;
    info.pages.push_back({std::uint64_t(v[0]), std::uint64_t(v[1]), channels, !bitmap && v[2] > 255 ? 2 : 1});
}

void pfm(Bytes& b, Info& info, bool colour)
{
    std::vector<double> v;
    if (pnmNumbers(b.text(0, 4096), 2, v) && v[0] >= 0 && v[1] >= 0)
        info.pages.push_back({std::uint64_t(v[0]), std::uint64_t(v[1]), colour ? 3 : 1, 4});
}

void hdr(Bytes& b, Info& info)
{
    const std::string head = b.text(0, 8192);
    const std::size_t blank = head.find("\n\n");
    if (blank == std::string::npos)
        return;
    char a[3] = {}, c[3] = {};
    unsigned long long first = 0, second = 0;
    if (std::sscanf(head.c_str() + blank + 2, "%2s %llu %2s %llu", a, &first, c, &second) != 4)
        return;
    const bool rowsFirst = a[1] == 'Y';
    info.pages.push_back({rowsFirst ? second : first, rowsFirst ? first : second, 3, 4});
}

void exr(Bytes& b, Info& info)
{
    const std::string head = b.text(8, 1 << 16);
    std::size_t at = 0;
    int channels = 0;
    Page page;
    bool window = false;
    while (at < head.size() && head[at] != '\0') {
        const std::size_t nameEnd = head.find('\0', at);
        const std::size_t typeEnd = nameEnd == std::string::npos ? nameEnd : head.find('\0', nameEnd + 1);
        if (typeEnd == std::string::npos || typeEnd + 5 > head.size())
            return;
        const std::string name = head.substr(at, nameEnd - at), type = head.substr(nameEnd + 1, typeEnd - nameEnd - 1);
        const std::uint32_t size = le32(reinterpret_cast<const unsigned char*>(head.data() + typeEnd + 1));
        const std::size_t value = typeEnd + 5;
        if (size > head.size() - value)
            return;
        const auto* p = reinterpret_cast<const unsigned char*>(head.data() + value);
        if (name == "dataWindow" && type == "box2i" && size == 16) {
            const std::int64_t x0 = std::int32_t(le32(p)), y0 = std::int32_t(le32(p + 4));
            const std::int64_t x1 = std::int32_t(le32(p + 8)), y1 = std::int32_t(le32(p + 12));
            page.width = x1 >= x0 ? std::uint64_t(x1 - x0 + 1) : 0;
            page.height = y1 >= y0 ? std::uint64_t(y1 - y0 + 1) : 0;
            window = true;
        } else if (name == "channels" && type == "chlist") {
            for (std::size_t i = 0; i < size && p[i] != 0; ++channels) {
                while (i < size && p[i] != 0)
                    ++i;
                i += 17;  // NUL, pixel type, linear flag, reserved, x and y sampling
            }
        }
        at = value + size;
    }
    if (window) {
        page.channels = std::clamp(channels, 1, 4);
        page.bytesPerSample = 4;
        info.pages.push_back(page);
    }
}

}  // namespace

const char* formatName(Format format)
{
    switch (format) {
    case Format::Unknown: return "unknown";
    case Format::Png: return "PNG";
    case Format::Jpeg: return "JPEG";
    case Format::Tiff: return "TIFF";
    case Format::Bmp: return "BMP";
    case Format::Webp: return "WebP";
    case Format::Pnm: return "PNM";
    case Format::Pfm: return "PFM";
    case Format::Hdr: return "Radiance HDR";
    case Format::Exr: return "OpenEXR";
    }
    return "unknown";
}

std::uint64_t Page::decodedBytes() const
{
    std::uint64_t out = width;
    for (std::uint64_t factor : {height, std::uint64_t(channels), std::uint64_t(bytesPerSample)})
        if (factor && out > std::numeric_limits<std::uint64_t>::max() / factor)
            return std::numeric_limits<std::uint64_t>::max();
        else
            out *= factor;
    return out;
}

Info inspect(const ReadAt& read, std::uint64_t fileSize)
{
    Info info;
    Bytes b(read, fileSize);
    unsigned char m[12] = {};
    b.get(0, m, std::size_t(std::min<std::uint64_t>(fileSize, sizeof m)));
    if (std::memcmp(m, "\x89PNG\r\n\x1a\n", 8) == 0) {
        info.format = Format::Png;
        png(b, info);
    } else if (m[0] == 0xff && m[1] == 0xd8) {
        info.format = Format::Jpeg;
        jpeg(b, info);
    } else if ((std::memcmp(m, "II", 2) == 0 && (m[2] == 42 || m[2] == 43) && m[3] == 0)
               || (std::memcmp(m, "MM", 2) == 0 && m[2] == 0 && (m[3] == 42 || m[3] == 43))) {
        info.format = Format::Tiff;
        tiff(b, info);
    } else if (m[0] == 'B' && m[1] == 'M') {
        info.format = Format::Bmp;
        bmp(b, info);
    } else if (std::memcmp(m, "RIFF", 4) == 0 && std::memcmp(m + 8, "WEBP", 4) == 0) {
        info.format = Format::Webp;
        webp(b, info);
    } else if (m[0] == 'P' && m[1] >= '1' && m[1] <= '6') {
        info.format = Format::Pnm;
        pnm(b, info, char(m[1]));
    } else if (m[0] == 'P' && (m[1] == 'F' || m[1] == 'f')) {
        info.format = Format::Pfm;
        pfm(b, info, m[1] == 'F');
    } else if (std::memcmp(m, "#?RADIANCE", 10) == 0 || std::memcmp(m, "#?RGBE", 6) == 0) {
        info.format = Format::Hdr;
        hdr(b, info);
    } else if (std::memcmp(m, "\x76\x2f\x31\x01", 4) == 0) {
        info.format = Format::Exr;
        exr(b, info);
    }
    return info;
}

}  // namespace imageheader
