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
            bool clips = false;
            for (int k = 0; k < 3; ++k) {
                const std::int64_t kept = luma1 + std::int64_t(in[k]) - luma0;   // Cr and Cb kept
                if (kept < 0) {
                    ++counts.below[std::size_t(k)];
                    clips = true;
                } else if (kept > top) {
                    ++counts.above[std::size_t(k)];
                    clips = true;
                }
            }
            counts.wouldClip += clips;
            if (luma1 == luma0) {
                for (int k = 0; k < 3; ++k)
                    o[k] = in[k];
                continue;
            }
            // Darker: toward black (Y > Y' >= 0); brighter: toward white (Y < Y' <= top).
            const bool darker = luma1 < luma0;
            const double s = darker ? double(luma1) / double(luma0) : double(top - luma1) / double(top - luma0);
            for (int k = 0; k < 3; ++k) {
                const double v = darker ? double(in[k]) * s : double(top) - double(top - in[k]) * s;
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
