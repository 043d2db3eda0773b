#include "app/cli/FirstFrameRequest.h"

#include "app/core/FrameRequest.h"

hs::HistogramRequest firstFrameRequest(const Frame& frame, FrameSource& source, const CountSettings& counting,
                                       QStringList* notices)
{
    // Each channel over its own range (one outlier in B leaves R's bins alone); an array counted
    // in chunks over the whole array's per-channel extremes, by the same rule as for one frame.
    RangeOptions options{RangeScope::PerChannel, {}, {}};
    if (const ChannelExtrema whole = source.finiteExtremes(); !whole.empty()) {
        ChannelExtremes extremes;
        for (std::size_t c = 0; c < whole.size() && c < extremes.size(); ++c)
            if (whole[c])
                extremes[c] = ValueRange{whole[c]->first, whole[c]->second};
        options.extremes = extremes;
    }
    const ResolvedRequest resolved = resolveRequest(frame, counting, std::nullopt, options);
    if (notices)
        *notices = resolved.notices;
    return resolved.request;
}

hs::HistogramRequest FileBinning::requestFor(const Frame& frame)
{
    if (m_first)
        return sameBinningRequest(frame, *m_first);
    m_first = firstFrameRequest(frame, m_source, m_counting, &m_notices);
    return *m_first;
}
