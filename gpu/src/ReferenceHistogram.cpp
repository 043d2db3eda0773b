#include "histoscope/ReferenceHistogram.h"

#include "RequestPlan.h"

#include <array>
#include <cstring>
#include <vector>

namespace hs {

namespace {

// The sample as a number, written out here rather than shared with the counting paths, which
// compare order-preserving keys instead.
template <typename T>
double numericValue(T v)
{
    if constexpr (std::is_same_v<T, detail::HalfBits>)
        return double(detail::halfToFloat(v.bits));
    else
        return double(v);
}

struct ChannelRange {
    bool seen = false;
    double lo = 0;
    double hi = 0;
};

}  // namespace

Status referenceHistogram(const HistogramRequest& request, HistogramResult& result)
{
    if (request.image.space != MemorySpace::Host)
        return Status::error(ErrorCode::InvalidArgument, "the reference reads host memory only");
    detail::RequestPlan plan;
    if (Status s = detail::buildPlan(request, plan); !s)
        return s;
    std::vector<std::uint64_t> slots(plan.map.num_slots, 0);
    std::array<ChannelRange, kMaxChannels> ranges{};
    detail::visitSampleType(plan.type, [&](auto tag) {
        using T = decltype(tag);
        for (std::int64_t r = 0; r < plan.rows; ++r) {
            const unsigned char* row = plan.row(r);
            for (std::int64_t x = 0; x < plan.width; ++x) {
                for (int c = 0; c < plan.channels; ++c) {
                    const detail::ChannelMap& m = plan.map.ch[c];
                    if (!m.active)
                        continue;
                    T v;
                    std::memcpy(&v, row + (std::size_t(x) * plan.channels + c) * sizeof(T), sizeof(T));
                    ++slots[detail::slotOf(m, v)];
                    const double value = numericValue(v);
                    if (value != value)
                        continue;  // NaN is counted, but has no place among the extremes
                    ChannelRange& range = ranges[std::size_t(c)];
                    if (!range.seen || value < range.lo)
                        range.lo = value;
                    if (!range.seen || value > range.hi)
                        range.hi = value;
                    range.seen = true;
                }
            }
        }
    });
    const std::array<unsigned long long, detail::kExtremaWords> unused{};
    detail::unpackSlots(plan, slots.data(), unused.data(), result, false);
    for (ChannelHistogram& h : result.channels) {
        const ChannelRange& range = ranges[std::size_t(h.channel)];
        h.hasValues = range.seen;
        h.minValue = range.seen ? range.lo + 0.0 : 0.0;  // + 0.0: a zero is reported as +0
        h.maxValue = range.seen ? range.hi + 0.0 : 0.0;
    }
    result.strategyRan = Strategy::Cpu;
    result.strategyReason = "reference";
    result.timings = {};
    return Status::success();
}

}  // namespace hs
