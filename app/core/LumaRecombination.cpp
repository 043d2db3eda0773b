#include "app/core/LumaRecombination.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace {

template <typename T>
LumaRecombination recombine(const Frame& colour, const Frame& luma, const Frame& mapped, unsigned char* out,
                            std::size_t outStride)
{
    LumaRecombination counts;
    const std::int64_t top = std::numeric_limits<T>::max();
    const int channels = colour.channels();
    for (qint64 y = 0; y < colour.height(); ++y) {
        const T* in = reinterpret_cast<const T*>(colour.data() + std::size_t(y) * colour.strideBytes());
        const T* ys = reinterpret_cast<const T*>(luma.data() + std::size_t(y) * luma.strideBytes());
        const T* ys2 = reinterpret_cast<const T*>(mapped.data() + std::size_t(y) * mapped.strideBytes());
        T* o = reinterpret_cast<T*>(out + std::size_t(y) * outStride);
        for (qint64 x = 0; x < colour.width(); ++x, in += channels, o += channels) {
            const std::int64_t luma0 = ys[x], luma1 = ys2[x];
            std::int64_t d[3];
            bool outside = false;
            for (int k = 0; k < 3; ++k) {
                d[k] = std::int64_t(in[k]) - luma0;
                const std::int64_t kept = luma1 + d[k];
                if (kept < 0) {
                    ++counts.below[std::size_t(k)];
                    outside = true;
                } else if (kept > top) {
                    ++counts.above[std::size_t(k)];
                    outside = true;
                }
            }
            if (!outside) {
                for (int k = 0; k < 3; ++k)
                    o[k] = T(luma1 + d[k]);
                continue;
            }
            ++counts.scaled;
            double f = 1;   // out of range: some channel's limit is below 1
            for (int k = 0; k < 3; ++k) {
                if (d[k] < 0)
                    f = std::min(f, double(luma1) / double(-d[k]));
                else if (d[k] > 0)
                    f = std::min(f, double(top - luma1) / double(d[k]));
            }
            // Out of range needs Y' != Y; Y > Y' >= 0 when darkening, Y < Y' <= top when brightening.
            const double r = luma1 < luma0 ? double(luma1) / double(luma0) : double(top - luma1) / double(top - luma0);
            const double s = f * f + r * (1 - f);
            for (int k = 0; k < 3; ++k) {
                const double v = double(luma1) + s * double(d[k]);
                o[k] = T(std::clamp<std::int64_t>(std::llround(v), 0, top));   // the clamp only guards the last ulp
            }
        }
    }
    return counts;
}

}  // namespace

LumaRecombination recombineLuma(const Frame& colour, const Frame& luma, const Frame& mapped, unsigned char* out,
                                std::size_t outStride)
{
    if (colour.type() == hs::SampleType::U16)
        return recombine<std::uint16_t>(colour, luma, mapped, out, outStride);
    return recombine<std::uint8_t>(colour, luma, mapped, out, outStride);
}
