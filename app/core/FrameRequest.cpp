#include "app/core/FrameRequest.h"

#include <algorithm>
#include <cmath>

hs::HistogramRequest frameRequest(const Frame& frame, const CountSettings& settings, std::optional<hs::Rect> roi)
{
    hs::ChannelBinning b;
    const bool integer = !hs::isFloatType(frame.type());
    b.lo = settings.autoRange ? frame.nominalLo() : settings.lo;
    b.hi = settings.autoRange ? frame.nominalHi() : settings.hi;
    if (settings.bins == 0 && integer) {
        b.bins = std::uint32_t(std::clamp(std::ceil(b.hi) - std::ceil(b.lo), 1.0, double(hs::kMaxBins)));
        b.identity = true;
    } else {
        b.bins = std::uint32_t(std::clamp(settings.bins, 1, int(hs::kMaxBins)));
        // One integer per bin (256 bins of 8-bit data): say so, and statistics report values.
        b.identity = integer && std::ceil(b.hi) - std::ceil(b.lo) == double(b.bins);
    }
    hs::ImageView view = frame.view();
    view.roi = roi;
    hs::HistogramRequest request = hs::makeRequest(view, b, settings.strategy);
    for (int c = 0; c < frame.channels(); ++c) {
        // channelMask is in display order (R, G, B, A); a gray frame always counts channel 0.
        int display = c;
        for (int d = 0; d < frame.channels(); ++d)
            if (frame.storageIndexOfDisplayChannel(d) == c)
                display = d;
        request.binning[c].active = frame.channels() == 1 || ((settings.channelMask >> display) & 1u);
    }
    bool any = false;
    for (int c = 0; c < frame.channels(); ++c)
        any |= request.binning[c].active;
    if (!any)
        request.binning[0].active = true;
    return request;
}

QString resultChannelName(const Frame& frame, const hs::ChannelHistogram& histogram)
{
    return channelName(frame.channelOrder(), histogram.channel);
}

hs::StatisticsContext statisticsContext(const Frame& frame, const hs::ChannelHistogram&)
{
    hs::StatisticsContext context;
    context.type = frame.type();
    return context;
}

QVector<NamedChannel> displayOrderedChannels(const Frame& frame, const hs::HistogramResult& result)
{
    QVector<NamedChannel> out;
    for (int display = 0; display < frame.channels(); ++display)
        for (const hs::ChannelHistogram& h : result.channels)
            if (h.channel == frame.storageIndexOfDisplayChannel(display))
                out.append({resultChannelName(frame, h), &h});
    return out;
}
