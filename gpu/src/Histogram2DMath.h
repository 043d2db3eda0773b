// Pixel -> 2-D slot mapping shared by the reference, the CPU backend and every CUDA kernel of the
// 2-D histograms: one definition compiled for host and device, as SlotMapping.h is for 1-D.
// docs/SCOPES.md writes the formulas out.
#pragma once

#include "SlotMapping.h"

#include <cmath>
#include <cstdint>

#if defined(__CUDA_ARCH__)
#define HS2_UNROLL _Pragma("unroll")
#else
#define HS2_UNROLL
#endif

namespace hs::detail {

enum class Q2 : int { Channel, Column, Luma, Cb, Cr, Hue, Saturation };

struct AxisMap2D {
    Q2 quantity = Q2::Channel;
    int channel = 0;
    ChannelMap map;               // base 0: slots [0, bins + 3) of this axis
};

struct PairMap2D {
    AxisMap2D x;
    AxisMap2D y;
    std::uint32_t ySlots = 0;     // y bins + 3
    std::uint32_t base = 0;       // first counter of this pair's grid
};

struct Map2D {
    int numPairs = 0;
    PairMap2D pair[4];
    int rgb[3] = {0, 1, 2};
    int bt709 = 1;                // 0: BT.601
    int codeBits = 8;             // D: 8 for u8, else 16
    bool needCodes = false;       // luma, Cb or Cr on some axis
    bool needHsv = false;         // hue or saturation on some axis
    std::uint32_t numSlots = 0;   // all pairs' grids
};

// Integer coefficients, scaled by 2^16; each row sums to 65536 (luma) or 0 (chroma) exactly.
struct YccCoefficients {
    std::int64_t yr, yg, yb;
    std::int64_t cbr, cbg, cbb;
    std::int64_t crr, crg, crb;
};

HS_HD YccCoefficients yccCoefficients(int bt709)
{
    if (bt709)
        return {13933, 46871, 4732, -7509, -25259, 32768, 32768, -29763, -3005};
    return {19595, 38470, 7471, -11058, -21710, 32768, 32768, -27439, -5329};
}

// IEEE single operations with no contraction into fused multiply-adds, on host and device alike.
HS_HD float mulRn(float a, float b)
{
#if defined(__CUDA_ARCH__)
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}
HS_HD float addRn(float a, float b)
{
#if defined(__CUDA_ARCH__)
    return __fadd_rn(a, b);
#else
    return a + b;
#endif
}
HS_HD float subRn(float a, float b)
{
#if defined(__CUDA_ARCH__)
    return __fsub_rn(a, b);
#else
    return a - b;
#endif
}
HS_HD float divRn(float a, float b)
{
#if defined(__CUDA_ARCH__)
    return __fdiv_rn(a, b);
#else
    return a / b;
#endif
}
HS_HD float floorF(float a) { return ::floorf(a); }

HS_HD float quietNan()
{
    union { std::uint32_t u; float f; } pun{0x7fc00000u};
    return pun.f;
}

// px[i] for a run-time i without indexing a register array (which would go to local memory).
template <typename T, int C>
HS_HD T pick(const T (&px)[C], int i)
{
    T v = px[0];
    HS2_UNROLL
    for (int k = 1; k < C; ++k)
        if (i == k)
            v = px[k];
    return v;
}

// A sample as an integer code value; false for NaN. Integers are taken as they are; floats are
// quantized to 16-bit codes: floor(v * 65535 + 0.5) in float32, held within +-2^40.
HS_HD bool codeOf(std::uint8_t v, std::int64_t& code) { code = v; return true; }
HS_HD bool codeOf(std::uint16_t v, std::int64_t& code) { code = v; return true; }
HS_HD bool codeOf(std::int32_t v, std::int64_t& code) { code = v; return true; }
HS_HD bool codeOf(std::uint32_t v, std::int64_t& code) { code = v; return true; }
HS_HD bool codeOf(float v, std::int64_t& code)
{
    if (!(v == v))
        return false;
    const float q = floorF(addRn(mulRn(v, 65535.0f), 0.5f));
    const float limit = 1099511627776.0f;  // 2^40
    code = q >= limit ? std::int64_t(1) << 40 : q <= -limit ? -(std::int64_t(1) << 40) : std::int64_t(q);
    return true;
}
HS_HD bool codeOf(HalfBits v, std::int64_t& code) { return codeOf(halfToFloat(v.bits), code); }

HS_HD float floatOf(std::uint8_t v) { return float(v); }
HS_HD float floatOf(std::uint16_t v) { return float(v); }
HS_HD float floatOf(std::int32_t v) { return float(v); }
HS_HD float floatOf(std::uint32_t v) { return float(v); }
HS_HD float floatOf(float v) { return v; }
HS_HD float floatOf(HalfBits v) { return halfToFloat(v.bits); }

// Luma, Cb and Cr codes of one pixel (valid is false when a sample is NaN).
struct Ycc {
    bool valid;
    std::int64_t y, cb, cr;
};

HS_HD Ycc yccOf(std::int64_t r, std::int64_t g, std::int64_t b, int bt709, int codeBits)
{
    const YccCoefficients k = yccCoefficients(bt709);
    const std::int64_t half = std::int64_t(1) << (codeBits - 1);
    Ycc o;
    o.valid = true;
    o.y = (k.yr * r + k.yg * g + k.yb * b + 32768) >> 16;        // rounds half up
    o.cb = half + ((k.cbr * r + k.cbg * g + k.cbb * b) >> 16);  // floor: [0, 2^D - 1] for codes in range
    o.cr = half + ((k.crr * r + k.crg * g + k.crb * b) >> 16);
    return o;
}

// HSV hue in degrees [0, 360) and saturation, float32 with every operation rounded on its own.
struct Hsv {
    float hue, sat;
};

HS_HD Hsv hsvOf(float r, float g, float b)
{
    const float nan = quietNan();
    if (!(r == r) || !(g == g) || !(b == b))
        return {nan, nan};
    const float mx = r > g ? (r > b ? r : b) : (g > b ? g : b);
    const float mn = r < g ? (r < b ? r : b) : (g < b ? g : b);
    const float d = subRn(mx, mn);
    Hsv o;
    o.sat = mx > 0.f ? divRn(d, mx) : 0.f;
    if (!(d > 0.f)) {
        o.hue = d == d ? 0.f : nan;  // grey: hue 0; inf - inf: NaN
        return o;
    }
    float h;
    if (mx == r) {
        h = divRn(subRn(g, b), d);
        if (h < 0.f)
            h = addRn(h, 6.f);
    } else if (mx == g) {
        h = addRn(divRn(subRn(b, r), d), 2.f);
    } else {
        h = addRn(divRn(subRn(r, g), d), 4.f);
    }
    float deg = mulRn(h, 60.f);
    if (deg >= 360.f)
        deg = subRn(deg, 360.f);
    o.hue = deg;
    return o;
}

// Everything a pixel's axes can ask for, computed once per pixel.
struct PixelQuantities {
    Ycc ycc;
    Hsv hsv;
};

template <typename T, int C>
HS_HD PixelQuantities pixelQuantities(const Map2D& m, const T (&px)[C])
{
    const T r = pick(px, m.rgb[0]), g = pick(px, m.rgb[1]), b = pick(px, m.rgb[2]);
    PixelQuantities q{{false, 0, 0, 0}, {0.f, 0.f}};
    if (m.needCodes) {
        std::int64_t cr = 0, cg = 0, cb = 0;
        const bool ok = codeOf(r, cr) & codeOf(g, cg) & codeOf(b, cb);
        if (ok)
            q.ycc = yccOf(cr, cg, cb, m.bt709, m.codeBits);
    }
    if (m.needHsv)
        q.hsv = hsvOf(floatOf(r), floatOf(g), floatOf(b));
    return q;
}

HS_HD std::uint32_t nanSlot(const ChannelMap& m) { return m.num_bins + 2; }

template <typename T>
inline constexpr bool kFloatSample = false;
template <>
inline constexpr bool kFloatSample<float> = true;
template <>
inline constexpr bool kFloatSample<HalfBits> = true;

// The axis slot of a pixel: `sample` is the axis channel's sample (Quantity::Channel). The
// quantity is first reduced to one integer or one float, so that one mapping follows.
template <typename T>
HS_HD std::uint32_t axisSlot(const AxisMap2D& a, T sample, std::int64_t column, const PixelQuantities& q)
{
    std::int64_t iv = 0;
    float fv = 0.f;
    bool isFloat = false;
    switch (a.quantity) {
    case Q2::Channel:
        if constexpr (kFloatSample<T>) {
            fv = floatOf(sample);
            isFloat = true;
        } else {
            iv = std::int64_t(sample);
        }
        break;
    case Q2::Column: iv = column; break;
    case Q2::Luma: iv = q.ycc.y; break;
    case Q2::Cb: iv = q.ycc.cb; break;
    case Q2::Cr: iv = q.ycc.cr; break;
    case Q2::Hue: fv = q.hsv.hue; isFloat = true; break;
    case Q2::Saturation: fv = q.hsv.sat; isFloat = true; break;
    }
    const bool code = a.quantity == Q2::Luma || a.quantity == Q2::Cb || a.quantity == Q2::Cr;
    if (code && !q.ycc.valid)
        return nanSlot(a.map);
    return isFloat ? slotOfFloat(a.map, fv) : slotOfInteger(a.map, iv);
}

// The counter of a pixel in pair p's grid, offset by the pair's base. `px` holds C samples.
template <typename T, int C>
HS_HD std::uint32_t pairSlot(const PairMap2D& p, const T (&px)[C], std::int64_t column, const PixelQuantities& q)
{
    const std::uint32_t sx = axisSlot(p.x, pick(px, p.x.channel), column, q);
    const std::uint32_t sy = axisSlot(p.y, pick(px, p.y.channel), column, q);
    return p.base + sx * p.ySlots + sy;
}

}  // namespace hs::detail
