#include "gpu/testing/Histogram2DCases.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

namespace hs::testing {

namespace {

Case2D make(std::string name, SampleType type, std::int64_t w, std::int64_t h, int channels, std::string kind,
            Content2D content = Content2D::Uniform)
{
    Case2D c;
    c.name = std::move(name);
    c.type = type;
    c.width = w;
    c.height = h;
    c.channels = channels;
    c.kind = std::move(kind);
    c.content = content;
    return c;
}

// A value of the type's natural range for a position in [0, 1], wider than it at both ends for
// the signed and float types so that the margins fill.
double spanValue(SampleType type, double t)
{
    switch (type) {
    case SampleType::U8: return std::floor(t * 255.999);
    case SampleType::U16: return std::floor(t * 65535.999);
    case SampleType::I32: return std::floor(-2000 + t * 70000.0);
    case SampleType::U32: return std::floor(t * 70000.0);
    case SampleType::F16:
    case SampleType::F32: return -0.05 + t * 1.1;
    }
    return 0;
}

std::uint16_t floatToHalf(float f)
{
    // Round to nearest even, enough for test data (no subnormal halves needed).
    std::uint32_t x;
    std::memcpy(&x, &f, 4);
    const std::uint32_t sign = (x >> 16) & 0x8000u;
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return std::uint16_t(sign | 0x7e00u);
    if ((x & 0x7fffffffu) == 0x7f800000u)
        return std::uint16_t(sign | 0x7c00u);
    const int exponent = int((x >> 23) & 0xff) - 127 + 15;
    if (exponent >= 31)
        return std::uint16_t(sign | 0x7c00u);
    if (exponent <= 0)
        return std::uint16_t(sign);
    std::uint32_t mantissa = x & 0x7fffffu;
    std::uint32_t h = sign | (std::uint32_t(exponent) << 10) | (mantissa >> 13);
    const std::uint32_t rest = mantissa & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
        ++h;
    return std::uint16_t(h);
}

void store(unsigned char* p, SampleType type, double v)
{
    switch (type) {
    case SampleType::U8: { const std::uint8_t x = std::uint8_t(v); std::memcpy(p, &x, 1); break; }
    case SampleType::U16: { const std::uint16_t x = std::uint16_t(v); std::memcpy(p, &x, 2); break; }
    case SampleType::I32: { const std::int32_t x = std::int32_t(v); std::memcpy(p, &x, 4); break; }
    case SampleType::U32: { const std::uint32_t x = std::uint32_t(v); std::memcpy(p, &x, 4); break; }
    case SampleType::F16: { const std::uint16_t x = floatToHalf(float(v)); std::memcpy(p, &x, 2); break; }
    case SampleType::F32: { const float x = float(v); std::memcpy(p, &x, 4); break; }
    }
}

}  // namespace

std::vector<Case2D> histogram2DMatrix()
{
    std::vector<Case2D> m;
    const SampleType types[] = {SampleType::U8, SampleType::U16, SampleType::I32, SampleType::U32, SampleType::F16,
                                SampleType::F32};
    const char* kinds[] = {"parade", "waveform709", "vectorscope601", "joint", "huesat", "mixed"};
    // Every kind on every type, three channels, a small odd-sized frame.
    for (SampleType t : types)
        for (const char* k : kinds)
            m.push_back(make(std::string(k) + "-" + std::string(sampleTypeName(t)), t, 67, 29, 3, k));
    // Float specials (NaN, infinities, far out of range) through every colour path.
    for (const char* k : {"parade", "vectorscope709", "huesat", "mixed"}) {
        m.push_back(make(std::string(k) + "-f32-specials", SampleType::F32, 45, 21, 3, k, Content2D::Specials));
        m.push_back(make(std::string(k) + "-f16-specials", SampleType::F16, 45, 21, 4, k, Content2D::Specials));
    }
    // Channel counts: 1 and 2 channels (column and channel quantities), 4 channels BGRA-ordered.
    m.push_back(make("parade-u8-gray", SampleType::U8, 133, 41, 1, "parade"));
    m.push_back(make("joint-u16-2ch", SampleType::U16, 97, 33, 2, "joint"));
    m.push_back(make("parade-u8-4ch", SampleType::U8, 101, 37, 4, "parade"));
    m.push_back(make("vectorscope709-u8-bgra", SampleType::U8, 101, 37, 4, "vectorscope709-bgr"));
    // ROI offsets and padded strides.
    {
        Case2D c = make("parade-u8-roi-stride", SampleType::U8, 211, 67, 3, "parade");
        c.extraStrideSamples = 13;
        c.roi = Rect{7, 5, 150, 50};
        m.push_back(c);
        c = make("vectorscope601-u16-roi-stride", SampleType::U16, 190, 80, 3, "vectorscope601");
        c.extraStrideSamples = 5;
        c.roi = Rect{3, 11, 171, 60};
        m.push_back(c);
        c = make("mixed-f32-roi-stride", SampleType::F32, 120, 70, 4, "mixed");
        c.extraStrideSamples = 3;
        c.roi = Rect{1, 2, 117, 61};
        m.push_back(c);
        c = make("waveform601-u8-roi-odd", SampleType::U8, 257, 40, 3, "waveform601");
        c.extraStrideSamples = 1;
        c.roi = Rect{3, 1, 251, 37};
        m.push_back(c);
        c = make("joint-i32-roi", SampleType::I32, 90, 90, 3, "joint-odd");
        c.roi = Rect{10, 10, 70, 70};
        m.push_back(c);
    }
    // Distributions: smooth (runs of equal cells), constant (one hot cell).
    for (const char* k : {"parade", "vectorscope709", "joint", "waveform601"}) {
        m.push_back(make(std::string(k) + "-u8-smooth", SampleType::U8, 640, 360, 3, k, Content2D::Smooth));
        m.push_back(make(std::string(k) + "-u8-constant", SampleType::U8, 320, 240, 3, k, Content2D::Constant));
    }
    // Bin layouts: column bins of uneven width and a column range inside the region (below and
    // above slots), coarse vectorscope bins, odd joint ranges, a grid of 2^22 cells (tiles).
    m.push_back(make("parade-bins-u8", SampleType::U8, 300, 50, 3, "parade-bins"));
    m.push_back(make("parade-bins-u16-smooth", SampleType::U16, 400, 60, 3, "parade-bins", Content2D::Smooth));
    m.push_back(make("vectorscope-coarse-u16", SampleType::U16, 200, 100, 3, "vectorscope-coarse"));
    m.push_back(make("joint-odd-u8", SampleType::U8, 150, 80, 3, "joint-odd"));
    m.push_back(make("joint-odd-f32", SampleType::F32, 150, 80, 3, "joint-odd"));
    m.push_back(make("joint-large-u16", SampleType::U16, 300, 200, 3, "joint-large"));
    // Counter bounds: more than 2^16 pixels in one x slot (32-bit strip counters) and in one cell.
    m.push_back(make("parade-tall-u8-constant", SampleType::U8, 8, 70000, 3, "parade", Content2D::Constant));
    m.push_back(make("vectorscope709-u8-constant-big", SampleType::U8, 700, 500, 3, "vectorscope709", Content2D::Constant));
    m.push_back(make("mixed-u8-big", SampleType::U8, 1024, 600, 3, "mixed"));
    // One long row (chunks along columns) and a single pixel.
    m.push_back(make("vectorscope601-u8-long-row", SampleType::U8, 300001, 1, 3, "vectorscope601"));
    m.push_back(make("joint-u8-one-pixel", SampleType::U8, 1, 1, 3, "joint"));
    return m;
}

Image2D makeImage2D(const Case2D& c, std::mt19937_64& rng)
{
    Image2D image;
    const std::size_t sample = sampleSize(c.type);
    const std::size_t stride = (std::size_t(c.width) * c.channels + c.extraStrideSamples) * sample;
    image.bytes.assign(stride * std::size_t(c.height) + 16, 0);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const double constant[4] = {unit(rng), unit(rng), unit(rng), unit(rng)};
    const double phase = unit(rng) * 6.28;
    for (std::int64_t y = 0; y < c.height; ++y) {
        unsigned char* row = image.bytes.data() + std::size_t(y) * stride;
        // Padding holds real-looking values: reading it would show up as a wrong count.
        for (std::size_t k = std::size_t(c.width) * c.channels; k < std::size_t(c.width) * c.channels + c.extraStrideSamples; ++k)
            store(row + k * sample, c.type, spanValue(c.type, unit(rng)));
        for (std::int64_t x = 0; x < c.width; ++x) {
            for (int ch = 0; ch < c.channels; ++ch) {
                double t = unit(rng);
                if (c.content == Content2D::Constant)
                    t = constant[ch];
                else if (c.content == Content2D::Smooth)
                    t = std::clamp(0.5 + 0.45 * std::sin(phase + 0.013 * double(x) * (ch + 1) + 0.021 * double(y))
                                       + (unit(rng) < 0.05 ? 0.01 : 0.0),
                                   0.0, 1.0);
                double v = spanValue(c.type, t);
                if (c.content == Content2D::Specials && isFloatType(c.type)) {
                    const double u = unit(rng);
                    if (u < 0.04)
                        v = std::numeric_limits<double>::quiet_NaN();
                    else if (u < 0.06)
                        v = std::numeric_limits<double>::infinity();
                    else if (u < 0.08)
                        v = -std::numeric_limits<double>::infinity();
                    else if (u < 0.10)
                        v = 1e30 * (u < 0.09 ? 1 : -1);
                    else if (u < 0.13)
                        v = 1.0;  // saturation and luma at the top of the range
                }
                store(row + (std::size_t(x) * c.channels + ch) * sample, c.type, v);
            }
        }
    }
    image.view.data = image.bytes.data();
    image.view.space = MemorySpace::Host;
    image.view.type = c.type;
    image.view.width = c.width;
    image.view.height = c.height;
    image.view.strideBytes = stride;
    image.view.channels = c.channels;
    image.view.roi = c.roi;
    return image;
}

Histogram2DRequest makeRequest2D(const Case2D& c, const ImageView& view, Strategy strategy)
{
    const std::int64_t w = regionWidth(view);
    const std::array<int, 3> rgb{0, 1, 2};
    std::vector<int> all;
    for (int ch = 0; ch < view.channels; ++ch)
        all.push_back(ch);
    Histogram2DRequest r;
    if (c.kind == "parade") {
        r = paradeRequest(view, all);
    } else if (c.kind == "parade-bins") {
        r = paradeRequest(view, all, 7);
        for (AxisPair& p : r.pairs) {
            p.x.binning.lo = 3;
            p.x.binning.hi = double(w - 5);
            p.y.binning.bins = 100;  // uneven value bins too
        }
    } else if (c.kind == "waveform601") {
        r = lumaWaveformRequest(view, YCbCrStandard::Bt601, rgb);
    } else if (c.kind == "waveform709") {
        r = lumaWaveformRequest(view, YCbCrStandard::Bt709, rgb);
    } else if (c.kind == "vectorscope601") {
        r = vectorscopeRequest(view, YCbCrStandard::Bt601, rgb);
    } else if (c.kind == "vectorscope709") {
        r = vectorscopeRequest(view, YCbCrStandard::Bt709, rgb);
    } else if (c.kind == "vectorscope709-bgr") {
        r = vectorscopeRequest(view, YCbCrStandard::Bt709, {2, 1, 0});
    } else if (c.kind == "vectorscope-coarse") {
        r = vectorscopeRequest(view, YCbCrStandard::Bt601, rgb, 61);
        r.pairs[0].x.binning.lo = 10000;  // a window inside the code range: margins fill
        r.pairs[0].y.binning.hi = 50000;
    } else if (c.kind == "joint") {
        r = jointRequest(view, 0, view.channels > 1 ? 1 : 0);
    } else if (c.kind == "joint-odd") {
        r = jointRequest(view, 0, view.channels > 2 ? 2 : 0);
        r.pairs[0].x.binning.bins = 37;
        r.pairs[0].x.binning.lo = isFloatType(view.type) ? 0.1 : 20;
        r.pairs[0].x.binning.hi = isFloatType(view.type) ? 0.9 : 200.5;
        r.pairs[0].y.binning.bins = 300;
    } else if (c.kind == "joint-large") {
        r = jointRequest(view, 1, 2);
        r.pairs[0].x.binning.bins = 2048;
        r.pairs[0].y.binning.bins = 2048;
    } else if (c.kind == "huesat") {
        r = hueSaturationRequest(view, rgb);
    } else {  // mixed: four pairs of every quantity at once
        r.image = view;
        r.rgb = {2, 0, 1};
        r.standard = YCbCrStandard::Bt601;
        r.pairs.push_back({columnAxis(w, 5), colourAxis(Quantity::Luma, view.type)});
        r.pairs.push_back({colourAxis(Quantity::Cb, view.type), colourAxis(Quantity::Cr, view.type)});
        r.pairs.push_back({channelAxis(1, view.type), colourAxis(Quantity::Hue, view.type)});
        r.pairs.push_back({colourAxis(Quantity::Saturation, view.type), columnAxis(w)});
        r.pairs[3].y.binning.bins = std::uint32_t(std::max<std::int64_t>(1, w / 3));
    }
    r.strategy = strategy;
    return r;
}

Histogram2DResult poisoned2D()
{
    Histogram2DResult r;
    Histogram2D h;
    h.axes.x.binning.bins = 2;
    h.axes.y.binning.bins = 2;
    h.grid.assign(25, 0xdeadbeefull);
    r.histograms = {h, h};
    r.pixels = 12345;
    return r;
}

std::string describeDifference2D(const Histogram2DResult& expected, const Histogram2DResult& actual)
{
    std::ostringstream out;
    if (expected.histograms.size() != actual.histograms.size()) {
        out << expected.histograms.size() << " histograms expected, " << actual.histograms.size() << " delivered";
        return out.str();
    }
    if (expected.pixels != actual.pixels)
        out << "pixels " << expected.pixels << " expected, " << actual.pixels << " delivered; ";
    for (std::size_t i = 0; i < expected.histograms.size(); ++i) {
        const Histogram2D& e = expected.histograms[i];
        const Histogram2D& a = actual.histograms[i];
        if (e.grid.size() != a.grid.size()) {
            out << "pair " << i << ": grid of " << e.grid.size() << " expected, " << a.grid.size() << "; ";
            continue;
        }
        int shown = 0;
        std::size_t wrong = 0;
        for (std::size_t k = 0; k < e.grid.size(); ++k) {
            if (e.grid[k] == a.grid[k])
                continue;
            ++wrong;
            if (shown++ < 4)
                out << "pair " << i << " slot (" << k / e.ySlots() << ", " << k % e.ySlots() << "): " << e.grid[k]
                    << " expected, " << a.grid[k] << "; ";
        }
        if (wrong)
            out << "pair " << i << ": " << wrong << " slot(s) differ; ";
    }
    return out.str();
}

}  // namespace hs::testing
