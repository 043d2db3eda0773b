#include "histoscope/HistogramMatching.h"

namespace hs {

std::vector<std::uint32_t> matchingLut(const std::vector<std::uint64_t>& source, const std::vector<std::uint64_t>& reference)
{
    std::vector<std::uint32_t> lut(source.size(), 0);
    std::uint64_t n = 0, nRef = 0;
    for (std::uint64_t c : source)
        n += c;
    for (std::uint64_t c : reference)
        nRef += c;
    if (n == 0 || nRef == 0 || reference.empty()) {
        for (std::size_t v = 0; v < lut.size(); ++v)
            lut[v] = std::uint32_t(v);
        return lut;
    }
    // Both CDFs only grow, so u never moves back: one pass over each histogram.
    std::uint64_t cdf = 0, cdfRef = reference[0];
    std::size_t u = 0;
    for (std::size_t v = 0; v < source.size(); ++v) {
        cdf += source[v];
        while (u + 1 < reference.size() && static_cast<unsigned __int128>(cdfRef) * n < static_cast<unsigned __int128>(cdf) * nRef)
            cdfRef += reference[++u];
        lut[v] = std::uint32_t(u);
    }
    return lut;
}

}  // namespace hs
