// The equalization LUT, defined once in integer arithmetic so the CPU and the GPU agree exactly.
#pragma once

#include "SlotMapping.h"

#include <cstdint>

namespace hs::detail {

// cdfMin: count of the first non-empty bin; total: all counted samples.
HS_HD std::uint32_t equalizedLevel(std::uint64_t cdf, std::uint64_t cdfMin, std::uint64_t total, std::uint32_t levels,
                                   std::uint32_t value, bool belowFirst)
{
    if (total == cdfMin)
        return value;  // a constant channel stays as it is
    if (belowFirst)
        return 0;
    const std::uint64_t span = total - cdfMin;
    return std::uint32_t(((cdf - cdfMin) * (levels - 1) + span / 2) / span);
}

}  // namespace hs::detail
