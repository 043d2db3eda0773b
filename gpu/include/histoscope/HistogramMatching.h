// Exact histogram matching: the LUT that gives one histogram the shape of another. One
// definition, used by the app's Match to Reference, the tests and the self-check; the LUT is
// applied with HistogramEngine::applyLuts (on the GPU when there is one).
#pragma once

#include <cstdint>
#include <vector>

namespace hs {

// For each value v of the source, the smallest u whose reference cumulative share reaches the
// source's at v: cdf_ref(u) * n >= cdf(v) * n_ref, compared exactly (128-bit products, so counts
// up to 2^63 each). Values below the source's smallest present value map like it. Both histograms
// have one bin per value (256 for u8, 65536 for u16); the LUT has one entry per source bin, each
// a reference bin. An empty source or reference gives the identity.
std::vector<std::uint32_t> matchingLut(const std::vector<std::uint64_t>& source,
                                       const std::vector<std::uint64_t>& reference);

}  // namespace hs
