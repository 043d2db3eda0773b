#include "app/cli/FirstFrameRequest.h"

#include "app/core/FrameRequest.h"

hs::HistogramRequest firstFrameRequest(const Frame& frame, FrameSource& source, const CountSettings& counting,
                                       QStringList* notices)
{
    const ResolvedRequest resolved = resolveRequest(frame, counting);
    hs::HistogramRequest request = resolved.request;
    const auto extremes = source.finiteExtremes();
    if (!extremes) {
        if (notices)
            *notices = resolved.notices;
        return request;
    }
    // A frame of just the extremes gets the range the whole array would get.
    const float values[2] = {float(extremes->first), float(extremes->second)};
    const Frame whole(nullptr, reinterpret_cast<const unsigned char*>(values), hs::SampleType::F32, 2, 1, 1, sizeof values,
                      ChannelOrder::Gray);
    const ResolvedRequest wholeResolved = resolveRequest(whole, counting);
    if (notices)
        *notices = wholeResolved.notices;
    const hs::ChannelBinning binning = wholeResolved.request.binning[0];
    for (hs::ChannelBinning& b : request.binning)
        b = {b.active, binning.bins, binning.lo, binning.hi, binning.identity};  // each channel keeps its own active flag
    return request;
}

hs::HistogramRequest FileBinning::requestFor(const Frame& frame)
{
    if (m_first)
        return sameBinningRequest(frame, *m_first);
    m_first = firstFrameRequest(frame, m_source, m_counting, &m_notices);
    return *m_first;
}
