#include "app/core/FrameRequest.h"

#include <opencv2/core.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace {

// The float just above x, as a double: the engine compares float samples with float(hi), so a
// double "just above" would round back onto x and push the largest sample out of range.
double nextFloatUp(double x) { return double(std::nextafter(float(x), std::numeric_limits<float>::infinity())); }

bool holdsAnInteger(double lo, double hi) { return std::ceil(lo) < std::ceil(hi); }

template <typename T, typename ToDouble>
void scan(const Frame& frame, const hs::Rect& r, ToDouble toDouble, double& lo, double& hi)
{
    const int channels = frame.channels();
    for (std::int64_t y = r.y; y < r.y + r.height; ++y) {
        const auto* row = reinterpret_cast<const T*>(frame.data() + std::size_t(y) * frame.strideBytes());
        for (std::int64_t i = r.x * channels; i < (r.x + r.width) * channels; ++i) {
            const double v = toDouble(row[i]);
            if (std::isfinite(v)) {
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
        }
    }
}

}  // namespace

std::optional<ValueRange> finiteExtremes(const Frame& frame, std::optional<hs::Rect> roi)
{
    if (frame.isNull())
        return std::nullopt;
    hs::Rect r = roi.value_or(hs::Rect{0, 0, frame.width(), frame.height()});
    r.x = std::clamp<std::int64_t>(r.x, 0, frame.width());
    r.y = std::clamp<std::int64_t>(r.y, 0, frame.height());
    r.width = std::clamp<std::int64_t>(r.width, 0, frame.width() - r.x);
    r.height = std::clamp<std::int64_t>(r.height, 0, frame.height() - r.y);
    double lo = std::numeric_limits<double>::infinity();
    double hi = -lo;
    auto same = [](auto v) { return double(v); };
    switch (frame.type()) {
    case hs::SampleType::U8: scan<std::uint8_t>(frame, r, same, lo, hi); break;
    case hs::SampleType::U16: scan<std::uint16_t>(frame, r, same, lo, hi); break;
    case hs::SampleType::I32: scan<std::int32_t>(frame, r, same, lo, hi); break;
    case hs::SampleType::U32: scan<std::uint32_t>(frame, r, same, lo, hi); break;
    case hs::SampleType::F32: scan<float>(frame, r, same, lo, hi); break;
    case hs::SampleType::F16: scan<cv::float16_t>(frame, r, [](cv::float16_t v) { return double(float(v)); }, lo, hi); break;
    }
    if (!(lo <= hi))
        return std::nullopt;
    return ValueRange{lo, hi};
}

ResolvedRequest resolveRequest(const Frame& frame, const CountSettings& settings, std::optional<hs::Rect> roi)
{
    ResolvedRequest out;
    const bool integer = !hs::isFloatType(frame.type());
    // The type's range. Floats have none, so one rule serves every source (EXR, .npy, raw):
    // [0, 1) unless the data leave it, then widened to hold every finite sample.
    auto typeRange = [&]() -> ValueRange {
        if (integer)
            return ValueRange{frame.nominalLo(), frame.nominalHi()};
        const auto extremes = finiteExtremes(frame, roi);
        if (!extremes || (extremes->lo >= 0 && extremes->hi < 1))
            return ValueRange{0.0, 1.0};
        return ValueRange{std::min(0.0, extremes->lo), extremes->hi >= 1 ? nextFloatUp(extremes->hi) : 1.0};
    };
    ValueRange range;
    switch (settings.rangeMode) {
    case RangeMode::DataType:
        range = typeRange();
        break;
    case RangeMode::DataMinMax:
        if (const auto extremes = finiteExtremes(frame, roi)) {
            // Half-open [lo, hi): hi just above the largest sample, so every finite sample counts.
            range = ValueRange{extremes->lo, integer ? extremes->hi + 1.0 : nextFloatUp(extremes->hi)};
        } else {
            range = typeRange();
            out.notices << QStringLiteral("The region holds no finite sample: counting over the type's range");
        }
        break;
    case RangeMode::BitDepth:
        if (integer) {
            range = ValueRange{0.0, std::ldexp(1.0, std::clamp(settings.bitDepth, 1, 31))};
        } else {
            range = typeRange();
            out.notices << QStringLiteral("A bit depth applies to integer data: counting floats over their type's range");
        }
        break;
    case RangeMode::Manual:
        if (const auto& manual = settings.manualRanges[std::size_t(rangeKindOf(frame.type()))]) {
            if (integer && !holdsAnInteger(manual->lo, manual->hi)) {
                range = typeRange();
                out.notices << QStringLiteral("The range [%1, %2) holds no integer: counting over the type's range")
                                   .arg(manual->lo).arg(manual->hi);
            } else {
                range = *manual;
            }
        } else {
            range = typeRange();
            out.notices << QStringLiteral("No manual range set for %1 data yet: counting over the type's range")
                               .arg(rangeKindName(rangeKindOf(frame.type())));
        }
        break;
    }

    hs::ChannelBinning b;
    b.lo = range.lo;
    b.hi = range.hi;
    if (settings.bins == 0 && integer) {
        const double values = std::ceil(b.hi) - std::ceil(b.lo);
        if (values > double(hs::kMaxBins))
            out.notices << QStringLiteral("One bin per value would need %1 bins: counting %2 bins").arg(values, 0, 'f', 0).arg(hs::kMaxBins);
        b.bins = std::uint32_t(std::clamp(values, 1.0, double(hs::kMaxBins)));
        b.identity = values <= double(hs::kMaxBins);
        if (!b.identity)
            b.bins = hs::kMaxBins;
    } else {
        b.bins = std::uint32_t(std::clamp(settings.bins == 0 ? 256 : settings.bins, 1, int(hs::kMaxBins)));
        // One integer per bin (256 bins of 8-bit data): say so, and statistics report values.
        b.identity = integer && std::ceil(b.hi) - std::ceil(b.lo) == double(b.bins);
    }
    hs::ImageView view = frame.view();
    view.roi = roi;
    out.request = hs::makeRequest(view, b, settings.strategy);
    bool any = false;
    for (int c = 0; c < frame.channels(); ++c) {
        // channelMask is in display order (R, G, B, A); a gray frame always counts channel 0.
        int display = c;
        for (int d = 0; d < frame.channels(); ++d)
            if (frame.storageIndexOfDisplayChannel(d) == c)
                display = d;
        const bool gray = frame.channelOrder() == ChannelOrder::Gray;
        out.request.binning[c].active = gray || ((settings.channelMask >> display) & 1u);
        any |= out.request.binning[c].active;
    }
    if (!any)
        out.error = Error::make(ErrorKind::InvalidInput, QString(), QStringLiteral("No channel selected: tick R, G, B or A to count"));
    return out;
}

hs::HistogramRequest frameRequest(const Frame& frame, const CountSettings& settings, std::optional<hs::Rect> roi)
{
    return resolveRequest(frame, settings, roi).request;
}

hs::HistogramRequest sameBinningRequest(const Frame& frame, const hs::HistogramRequest& first, std::optional<hs::Rect> roi)
{
    hs::HistogramRequest request = first;
    request.image = frame.view();
    request.image.roi = roi;
    return request;
}

QString outOfRangeWarning(const hs::HistogramResult& result, double share)
{
    std::uint64_t outside = 0, nonNan = 0;
    for (const hs::ChannelHistogram& h : result.channels) {
        outside += h.below + h.above;
        nonNan += h.total() - h.nan;
    }
    if (nonNan == 0 || double(outside) <= share * double(nonNan))
        return {};
    return QStringLiteral("%1 % of the samples fall outside the counted range")
        .arg(100.0 * double(outside) / double(nonNan), 0, 'g', 3);
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
