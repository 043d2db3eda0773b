// The plain single-threaded reference every strategy is checked against, bit for bit.
// Deliberately naive: it is the definition, not a fast path.
#pragma once

#include "histoscope/HistogramTypes.h"

namespace hs {

Status referenceHistogram(const HistogramRequest& request, HistogramResult& result);

}  // namespace hs
