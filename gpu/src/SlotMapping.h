// Sample -> slot mapping shared by the CPU reference, the CPU backend and every CUDA kernel.
// One definition compiled for host and device is what makes "bit for bit equal" possible.
//
// Each active channel owns (bins + 3) consecutive slots: its bins, then below, above and NaN.
// Counting out-of-range samples as ordinary slots means no kernel needs a second code path.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define HS_HD __host__ __device__ __forceinline__
#else
#define HS_HD inline
#endif

namespace hs::detail {

enum class MapMode : int { Identity, Shift, Divide, General, Float };

inline constexpr std::uint32_t kExtraSlots = 3;  // below, above, NaN

struct ChannelMap {
    MapMode mode = MapMode::Identity;
    bool active = false;
    std::uint32_t num_bins = 0;
    std::uint32_t base = 0;       // first slot of this channel
    std::int64_t ilo = 0;         // integer samples: lowest value counted
    std::uint64_t irange = 0;     // integer samples: hi - lo
    std::uint32_t shift = 0;      // Shift: bin = (v - lo) >> shift
    std::uint32_t div = 1;        // Divide: bin = (v - lo) / div
    float flo = 0.f;              // float samples: [flo, fhi)
    float fhi = 0.f;
    float fscale = 0.f;           // float(bins) / (fhi - flo), as CUB computes it
};

struct SlotMap {
    int num_channels = 1;         // interleaved channels in the pixel
    std::uint32_t num_slots = 0;  // sum over active channels of bins + 3
    ChannelMap ch[4];
};

// Half-precision bits to float, exact, without cuda_fp16 so the host reference needs no CUDA.
struct HalfBits { std::uint16_t bits; };

HS_HD float halfToFloat(std::uint16_t h)
{
    const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
    std::uint32_t exponent = (h >> 10) & 0x1fu;
    std::uint32_t mantissa = h & 0x3ffu;
    std::uint32_t bits;
    if (exponent == 0x1fu) {
        bits = sign | 0x7f800000u | (mantissa << 13);
    } else if (exponent != 0) {
        bits = sign | ((exponent + 112u) << 23) | (mantissa << 13);
    } else if (mantissa == 0) {
        bits = sign;
    } else {
        // Subnormal half: normalise into a float.
        exponent = 113u;
        while ((mantissa & 0x400u) == 0) {
            mantissa <<= 1;
            --exponent;
        }
        bits = sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13);
    }
    union { std::uint32_t u; float f; } pun{bits};
    return pun.f;
}

HS_HD std::uint32_t slotOfInteger(const ChannelMap& m, std::int64_t v)
{
    if (v < m.ilo)
        return m.base + m.num_bins;
    const std::uint64_t d = std::uint64_t(v - m.ilo);
    if (d >= m.irange)
        return m.base + m.num_bins + 1;
    std::uint32_t bin;
    switch (m.mode) {
    case MapMode::Identity: bin = std::uint32_t(d); break;
    case MapMode::Shift: bin = std::uint32_t(d >> m.shift); break;
    case MapMode::Divide: bin = std::uint32_t(d) / m.div; break;
    default: bin = std::uint32_t((d * m.num_bins) / m.irange); break;
    }
    return m.base + bin;
}

HS_HD std::uint32_t slotOfFloat(const ChannelMap& m, float x)
{
    if (!(x == x))
        return m.base + m.num_bins + 2;
    if (x < m.flo)
        return m.base + m.num_bins;
    if (x >= m.fhi)
        return m.base + m.num_bins + 1;
    // A product, never a fused multiply-add: the subtraction is rounded first, as on the host.
    std::uint32_t bin = std::uint32_t((x - m.flo) * m.fscale);
    if (bin >= m.num_bins)
        bin = m.num_bins - 1;  // rounding can reach the upper edge for x just below hi
    return m.base + bin;
}

HS_HD std::uint32_t slotOf(const ChannelMap& m, std::uint8_t v) { return slotOfInteger(m, v); }
HS_HD std::uint32_t slotOf(const ChannelMap& m, std::uint16_t v) { return slotOfInteger(m, v); }
HS_HD std::uint32_t slotOf(const ChannelMap& m, std::int32_t v) { return slotOfInteger(m, v); }
HS_HD std::uint32_t slotOf(const ChannelMap& m, std::uint32_t v) { return slotOfInteger(m, v); }
HS_HD std::uint32_t slotOf(const ChannelMap& m, float v) { return slotOfFloat(m, v); }
HS_HD std::uint32_t slotOf(const ChannelMap& m, HalfBits v) { return slotOfFloat(m, halfToFloat(v.bits)); }

// The extremes of the counted samples travel as order-preserving 32-bit keys: an unsigned compare
// of two keys is the numeric compare of their samples, so min and max are integer min and max on
// every type, and one 64-bit atomic max per word merges them. NaN has no key.
HS_HD bool orderedKey(std::uint8_t v, std::uint32_t& key) { key = v; return true; }
HS_HD bool orderedKey(std::uint16_t v, std::uint32_t& key) { key = v; return true; }
HS_HD bool orderedKey(std::uint32_t v, std::uint32_t& key) { key = v; return true; }
HS_HD bool orderedKey(std::int32_t v, std::uint32_t& key) { key = std::uint32_t(v) ^ 0x80000000u; return true; }
HS_HD bool orderedKey(float v, std::uint32_t& key)
{
    if (!(v == v))
        return false;
    union { float f; std::uint32_t u; } pun{v};
    // Negative floats order backwards by their bits: flip them all; positive ones go above.
    key = (pun.u & 0x80000000u) ? ~pun.u : (pun.u | 0x80000000u);
    return true;
}
HS_HD bool orderedKey(HalfBits v, std::uint32_t& key) { return orderedKey(halfToFloat(v.bits), key); }

// The skew sample's pixel i of `count` (host and device alike), as an index into the walked
// pixels in row-major order: pairs of neighbours (p, p + 1) spread evenly, so that the estimate
// also sees how often neighbouring samples share a slot (runs, as in smooth frames).
HS_HD std::uint64_t samplePixel(std::uint64_t pixels, std::uint32_t i, std::uint32_t count)
{
    const std::uint64_t pairs = (std::uint64_t(count) + 1) / 2;
    const std::uint64_t p = pixels * (i / 2) / pairs;
    if ((i & 1u) == 0)
        return p;
    return p + 1 < pixels ? p + 1 : (p > 0 ? p - 1 : p);
}

// Per channel, two 64-bit words after the slot totals: both merged by atomic max, zero while no
// sample was seen. The minimum is stored complemented so that max finds it.
inline constexpr std::uint32_t kExtremaWords = 2 * 4;
inline constexpr unsigned long long kExtremaSeen = 1ull << 32;
HS_HD unsigned long long encodeMinKey(std::uint32_t key) { return kExtremaSeen | std::uint32_t(~key); }
HS_HD unsigned long long encodeMaxKey(std::uint32_t key) { return kExtremaSeen | key; }

}  // namespace hs::detail
