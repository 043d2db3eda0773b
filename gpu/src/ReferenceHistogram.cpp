#include "histoscope/ReferenceHistogram.h"

#include "RequestPlan.h"

#include <cstring>
#include <vector>

namespace hs {

Status referenceHistogram(const HistogramRequest& request, HistogramResult& result)
{
    if (request.image.space != MemorySpace::Host)
        return Status::error(ErrorCode::InvalidArgument, "the reference reads host memory only");
    detail::RequestPlan plan;
    if (Status s = detail::buildPlan(request, plan); !s)
        return s;
    std::vector<std::uint64_t> slots(plan.map.num_slots, 0);
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
                }
            }
        }
    });
    detail::unpackSlots(plan, slots.data(), result, false);
    result.strategyRan = Strategy::Cpu;
    result.timings = {};
    return Status::success();
}

}  // namespace hs
