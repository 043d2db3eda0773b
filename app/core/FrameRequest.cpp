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
void scan(const Frame& frame, const hs::Rect& r, ToDouble toDouble, ChannelExtremes& out)
{
    const int channels = frame.channels();
    double lo[hs::kMaxChannels], hi[hs::kMaxChannels];
    std::fill(std::begin(lo), std::end(lo), std::numeric_limits<double>::infinity());
    std::fill(std::begin(hi), std::end(hi), -std::numeric_limits<double>::infinity());
    for (std::int64_t y = r.y; y < r.y + r.height; ++y) {
        const auto* row = reinterpret_cast<const T*>(frame.data() + std::size_t(y) * frame.strideBytes());
        for (std::int64_t x = r.x; x < r.x + r.width; ++x)
            for (int c = 0; c < channels; ++c) {
                const double v = toDouble(row[x * channels + c]);
                if (std::isfinite(v)) {
                    lo[c] = std::min(lo[c], v);
                    hi[c] = std::max(hi[c], v);
                }
            }
    }
    for (int c = 0; c < channels; ++c)
        if (lo[c] <= hi[c])
            out[std::size_t(c)] = ValueRange{lo[c], hi[c]};
}

std::optional<ValueRange> unite(std::optional<ValueRange> a, const std::optional<ValueRange>& b)
{
    if (!a || !b)
        return a ? a : b;
    return ValueRange{std::min(a->lo, b->lo), std::max(a->hi, b->hi)};
}

QString number(double v) { return QString::number(v, 'g', 7); }

}  // namespace

ChannelExtremes channelFiniteExtremes(const Frame& frame, std::optional<hs::Rect> roi)
{
    ChannelExtremes out;
    if (frame.isNull())
        return out;
    hs::Rect r = roi.value_or(hs::Rect{0, 0, frame.width(), frame.height()});
    r.x = std::clamp<std::int64_t>(r.x, 0, frame.width());
    r.y = std::clamp<std::int64_t>(r.y, 0, frame.height());
    r.width = std::clamp<std::int64_t>(r.width, 0, frame.width() - r.x);
    r.height = std::clamp<std::int64_t>(r.height, 0, frame.height() - r.y);
    auto same = [](auto v) { return double(v); };
    switch (frame.type()) {
    case hs::SampleType::U8: scan<std::uint8_t>(frame, r, same, out); break;
    case hs::SampleType::U16: scan<std::uint16_t>(frame, r, same, out); break;
    case hs::SampleType::I32: scan<std::int32_t>(frame, r, same, out); break;
    case hs::SampleType::U32: scan<std::uint32_t>(frame, r, same, out); break;
    case hs::SampleType::F32: scan<float>(frame, r, same, out); break;
    case hs::SampleType::F16: scan<cv::float16_t>(frame, r, [](cv::float16_t v) { return double(float(v)); }, out); break;
    }
    return out;
}

std::optional<ValueRange> finiteExtremes(const Frame& frame, std::optional<hs::Rect> roi)
{
    std::optional<ValueRange> all;
    for (const auto& channel : channelFiniteExtremes(frame, roi))
        all = unite(all, channel);
    return all;
}

ValueRange engineFloatRange(ValueRange r, bool* narrowed)
{
    // The engine bins floats as (v - float(lo)) * (bins / (float(hi) - float(lo))): both edges
    // and that width must be finite floats. Data spanning more than FLT_MAX (about ±1.7e38 on
    // both sides) cannot all be binned; the widest window that can is taken, and the samples
    // outside it are counted in below and above.
    constexpr float kMax = std::numeric_limits<float>::max();
    const ValueRange asked = r;
    r.lo = std::max(r.lo, -double(kMax));
    r.hi = std::min(r.hi, double(kMax));
    // Only a width that overflows is narrowed here; one too narrow for floats (a manual range
    // of 1e-9) stays as asked, for the engine to refuse by name.
    auto fits = [](float lo, float hi) { return std::isfinite(hi - lo); };
    if (!fits(float(r.lo), float(r.hi))) {
        const float half = kMax / 2;  // exact: FLT_MAX is even in its last place
        if (r.lo >= -double(half)) {
            float hi = float(r.lo + double(kMax));
            while (!fits(float(r.lo), hi))
                hi = std::nextafter(hi, -kMax);
            r.hi = hi;
        } else if (r.hi <= double(half)) {
            float lo = float(r.hi - double(kMax));
            while (!fits(lo, float(r.hi)))
                lo = std::nextafter(lo, kMax);
            r.lo = lo;
        } else {
            r = ValueRange{-double(half), double(half)};
        }
    }
    if (narrowed)
        *narrowed = !(r == asked);
    return r;
}

ResolvedRequest resolveRequest(const Frame& frame, const CountSettings& settings, std::optional<hs::Rect> roi,
                               const RangeOptions& options)
{
    ResolvedRequest out;
    const bool integer = !hs::isFloatType(frame.type());
    hs::ImageView view = frame.view();
    view.roi = roi;
    out.request = hs::makeRequest(view, hs::ChannelBinning{}, settings.strategy);
    bool active[hs::kMaxChannels] = {};
    bool any = false;
    for (int c = 0; c < frame.channels(); ++c) {
        // channelMask is in display order (R, G, B, A); a gray frame always counts channel 0.
        int display = c;
        for (int d = 0; d < frame.channels(); ++d)
            if (frame.storageIndexOfDisplayChannel(d) == c)
                display = d;
        const bool gray = frame.channelOrder() == ChannelOrder::Gray;
        active[c] = gray || ((settings.channelMask >> display) & 1u);
        any |= active[c];
    }
    if (!any)
        out.error = Error::make(ErrorKind::InvalidInput, QString(), QStringLiteral("No channel selected: tick R, G, B or A to count"));

    // The data each channel's range holds, scanned only when a range is taken from the data.
    std::optional<ChannelExtremes> scanned = options.extremes;
    auto dataOf = [&](int channel) -> std::optional<ValueRange> {
        if (!scanned)
            scanned = channelFiniteExtremes(frame, roi);
        if (options.scope == RangeScope::PerChannel)
            return (*scanned)[std::size_t(channel)];
        std::optional<ValueRange> all = options.alsoHold;
        for (int c = 0; c < frame.channels(); ++c)
            if (active[c] || !any)
                all = unite(all, (*scanned)[std::size_t(c)]);
        return all;
    };
    const bool perChannel = options.scope == RangeScope::PerChannel && frame.channels() > 1;
    QStringList notices;
    for (int c = 0; c < frame.channels(); ++c) {
        // Named when the channels' ranges are their own and can differ.
        const QString who = perChannel ? channelName(frame.channelOrder(), c) + QStringLiteral(": ") : QString();
        hs::ChannelBinning& b = out.request.binning[std::size_t(c)];
        b.active = active[c];
        if (!b.active && any)
            continue;   // not counted: its range is never used, and says nothing
        // The type's range. Floats have none, so one rule serves every source (EXR, .npy, raw):
        // [0, 1) unless the data leave it, then widened to hold every finite sample.
        auto typeRange = [&]() -> ValueRange {
            if (integer)
                return ValueRange{frame.nominalLo(), frame.nominalHi()};
            const auto extremes = dataOf(c);
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
            if (const auto extremes = dataOf(c)) {
                // Half-open [lo, hi): hi just above the largest sample, so every finite sample counts.
                range = ValueRange{extremes->lo, integer ? extremes->hi + 1.0 : nextFloatUp(extremes->hi)};
            } else {
                range = typeRange();
                notices << who + QStringLiteral("The region holds no finite sample: counting over the type's range");
            }
            break;
        case RangeMode::BitDepth:
            if (integer) {
                range = ValueRange{0.0, std::ldexp(1.0, std::clamp(settings.bitDepth, 1, 31))};
            } else {
                range = typeRange();
                notices << QStringLiteral("A bit depth applies to integer data: counting floats over their type's range");
            }
            break;
        case RangeMode::Manual:
            if (const auto& manual = settings.manualRanges[std::size_t(rangeKindOf(frame.type()))]) {
                if (integer && !holdsAnInteger(manual->lo, manual->hi)) {
                    range = typeRange();
                    notices << QStringLiteral("The range [%1, %2) holds no integer: counting over the type's range")
                                   .arg(manual->lo).arg(manual->hi);
                } else if (integer && (manual->lo != std::ceil(manual->lo) || manual->hi != std::ceil(manual->hi))) {
                    // Integer samples are binned from the first integer at or above lo to the
                    // last one below hi: that is the range recorded, so the edges rebuilt from
                    // lo, hi and the bins are the edges counted.
                    range = ValueRange{std::ceil(manual->lo), std::ceil(manual->hi)};
                    notices << QStringLiteral("The range [%1, %2) on integer data holds the integers %3 to %4: counting and "
                                              "recording [%3, %5)")
                                   .arg(number(manual->lo), number(manual->hi), number(range.lo), number(range.hi - 1),
                                        number(range.hi));
                } else {
                    range = *manual;
                }
            } else {
                range = typeRange();
                notices << QStringLiteral("No manual range set for %1 data yet: counting over the type's range")
                               .arg(rangeKindName(rangeKindOf(frame.type())));
            }
            break;
        }
        if (!integer) {
            bool narrowed = false;
            const ValueRange accepted = engineFloatRange(range, &narrowed);
            if (narrowed)
                notices << who + QStringLiteral("[%1, %2) is wider than 32-bit floats can bin: counting [%3, %4), the samples outside it "
                                                "in below and above")
                                     .arg(number(range.lo), number(range.hi), number(accepted.lo), number(accepted.hi));
            range = accepted;
        }

        b.lo = range.lo;
        b.hi = range.hi;
        if (settings.bins == 0 && integer) {
            const double values = std::ceil(b.hi) - std::ceil(b.lo);
            if (values > double(hs::kMaxBins))
                notices << QStringLiteral("One bin per value would need %1 bins: counting %2 bins").arg(values, 0, 'f', 0).arg(hs::kMaxBins);
            b.bins = std::uint32_t(std::clamp(values, 1.0, double(hs::kMaxBins)));
            b.identity = values <= double(hs::kMaxBins);
            if (!b.identity)
                b.bins = hs::kMaxBins;
        } else {
            b.bins = std::uint32_t(std::clamp(settings.bins == 0 ? 256 : settings.bins, 1, int(hs::kMaxBins)));
            // One integer per bin (256 bins of 8-bit data): say so, and statistics report values.
            b.identity = integer && std::ceil(b.hi) - std::ceil(b.lo) == double(b.bins);
        }
    }
    notices.removeDuplicates();
    out.notices = notices;
    return out;
}

hs::HistogramRequest frameRequest(const Frame& frame, const CountSettings& settings, std::optional<hs::Rect> roi,
                                  const RangeOptions& options)
{
    return resolveRequest(frame, settings, roi, options).request;
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
