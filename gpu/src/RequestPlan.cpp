#include "RequestPlan.h"

#include "HostCopyThreads.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

namespace hs::detail {

namespace {

constexpr double kIntegerRangeLimit = 17179869184.0;  // 2^34 keeps (v - lo) * bins inside 64 bits

Status invalid(std::string message)
{
    return Status::error(ErrorCode::InvalidArgument, std::move(message));
}

bool isPowerOfTwo(std::uint64_t v) { return v && !(v & (v - 1)); }

Status buildChannelMap(SampleType type, int channel, const ChannelBinning& b, std::uint32_t base,
                       ChannelMap& m)
{
    const std::string which = "channel " + std::to_string(channel) + ": ";
    if (b.bins < 1 || b.bins > kMaxBins)
        return invalid(which + "bin count " + std::to_string(b.bins) + " is outside 1.."
                       + std::to_string(kMaxBins));
    m.active = true;
    m.num_bins = b.bins;
    m.base = base;
    if (isFloatType(type)) {
        if (b.identity)
            return invalid(which + "identity binning needs integer samples");
        if (!std::isfinite(b.lo) || !std::isfinite(b.hi) || !(b.lo < b.hi))
            return invalid(which + "range [" + std::to_string(b.lo) + ", " + std::to_string(b.hi)
                           + ") is empty or not finite");
        m.mode = MapMode::Float;
        m.flo = float(b.lo);
        m.fhi = float(b.hi);
        const float width = m.fhi - m.flo;
        if (!(width > 0.f) || !std::isfinite(width))
            return invalid(which + "range is too narrow or too wide for 32-bit floats");
        m.fscale = float(b.bins) / width;
        // A width of a few denormals makes the scale infinite, and (x - lo) * scale NaN at lo.
        if (!std::isfinite(m.fscale))
            return invalid(which + "range is too narrow for " + std::to_string(b.bins) + " bins of 32-bit floats");
        return Status::success();
    }
    if (!std::isfinite(b.lo) || std::fabs(b.lo) > kIntegerRangeLimit)
        return invalid(which + "range start is not a finite value within +-2^34");
    const double lo = std::ceil(b.lo);
    const double hi = std::ceil(upperEdge(b));  // identity: ceil(lo) + bins, as bins is whole
    if (!std::isfinite(hi) || std::fabs(hi) > kIntegerRangeLimit)
        return invalid(which + "range end is not a finite value within +-2^34");
    if (!(lo < hi))
        return invalid(which + "range [" + std::to_string(b.lo) + ", " + std::to_string(b.hi)
                       + ") holds no integer");
    m.ilo = std::int64_t(lo);
    m.irange = std::uint64_t(std::int64_t(hi) - m.ilo);
    if (m.irange == b.bins) {
        m.mode = MapMode::Identity;
    } else if (m.irange % b.bins == 0 && isPowerOfTwo(m.irange / b.bins)) {
        m.mode = MapMode::Shift;
        std::uint64_t ratio = m.irange / b.bins;
        while (ratio > 1) {
            ratio >>= 1;
            ++m.shift;
        }
    } else if (m.irange % b.bins == 0 && m.irange <= std::numeric_limits<std::uint32_t>::max()) {
        m.mode = MapMode::Divide;
        m.div = std::uint32_t(m.irange / b.bins);
    } else {
        m.mode = MapMode::General;
    }
    return Status::success();
}

}  // namespace

std::uint64_t RequestPlan::activeChannels() const
{
    std::uint64_t n = 0;
    for (int c = 0; c < channels; ++c)
        n += map.ch[c].active ? 1 : 0;
    return n;
}

Status buildPlan(const HistogramRequest& request, RequestPlan& plan)
{
    const ImageView& image = request.image;
    plan = RequestPlan{};
    if (image.channels < 1 || image.channels > kMaxChannels)
        return invalid("channel count " + std::to_string(image.channels) + " is outside 1..4");
    if (image.width < 0 || image.height < 0)
        return invalid("image dimensions " + std::to_string(image.width) + "x"
                       + std::to_string(image.height) + " are negative");
    plan.type = image.type;
    plan.space = image.space;
    plan.stream = request.stream;
    plan.deviceCounts = request.deviceCounts;
    plan.deviceCountsChannels = request.deviceCountsChannels;
    plan.deviceCountsAtFinish = request.deviceCountsAtFinish;
    if (request.deviceCounts && request.deviceCountsAtFinish)
        return invalid("the device counts are named both now (deviceCounts) and at finish (deviceCountsAtFinish)");
    if (request.deviceCounts && reinterpret_cast<std::uintptr_t>(request.deviceCounts) % sizeof(std::uint64_t) != 0)
        return invalid("the device counts are not aligned to 8 bytes");
    plan.channels = image.channels;
    plan.pixelBytes = sampleSize(image.type) * std::size_t(image.channels);

    const std::size_t maxBytes = std::numeric_limits<std::size_t>::max();
    if (image.width > 0 && std::uint64_t(image.width) > maxBytes / plan.pixelBytes)
        return invalid("image width " + std::to_string(image.width) + " overflows a row size");
    const std::size_t rowBytes = std::size_t(image.width) * plan.pixelBytes;
    const std::size_t stride = image.strideBytes ? image.strideBytes : rowBytes;
    if (stride < rowBytes)
        return invalid("row stride of " + std::to_string(stride) + " bytes is shorter than a row of "
                       + std::to_string(rowBytes) + " bytes");
    if (stride % sampleSize(image.type) != 0)
        return invalid("row stride of " + std::to_string(stride)
                       + " bytes is not a multiple of the sample size");
    if (image.height > 0 && stride > 0 && std::uint64_t(image.height) > maxBytes / stride)
        return invalid("image height " + std::to_string(image.height) + " overflows the buffer size");

    Rect roi = image.roi.value_or(Rect{0, 0, image.width, image.height});
    if (roi.x < 0 || roi.y < 0 || roi.width < 0 || roi.height < 0 || roi.x > image.width
        || roi.y > image.height || roi.width > image.width - roi.x
        || roi.height > image.height - roi.y)
        return invalid("region of interest (" + std::to_string(roi.x) + ", " + std::to_string(roi.y)
                       + ") " + std::to_string(roi.width) + "x" + std::to_string(roi.height)
                       + " lies outside the " + std::to_string(image.width) + "x"
                       + std::to_string(image.height) + " image");
    if (roi.width > 0 && roi.height > 0 && image.data == nullptr)
        return invalid("image data is null");
    if (image.data && reinterpret_cast<std::uintptr_t>(image.data) % sampleSize(image.type) != 0)
        return invalid("image data is not aligned to its " + std::to_string(sampleSize(image.type))
                       + "-byte samples");

    std::uint32_t base = 0;
    for (int c = 0; c < image.channels; ++c) {
        plan.binning[c] = request.binning[c];
        if (!request.binning[c].active)
            continue;
        Status s = buildChannelMap(image.type, c, request.binning[c], base, plan.map.ch[c]);
        if (!s)
            return s;
        base += request.binning[c].bins + kExtraSlots;
    }
    if (base == 0)
        return invalid("no channel is active");
    plan.map.num_channels = image.channels;
    plan.map.num_slots = base;

    plan.origin = static_cast<const unsigned char*>(image.data);
    if (plan.origin)
        plan.origin += std::size_t(roi.y) * stride + std::size_t(roi.x) * plan.pixelBytes;
    plan.pitch = stride;
    plan.width = roi.width;
    plan.rows = roi.height;
    if (plan.rows > 1 && roi.width == image.width && stride == rowBytes) {
        plan.width = roi.width * roi.height;  // whole rows back to back: one long row
        plan.rows = 1;
    }
    if (plan.width == 0 || plan.rows == 0)
        plan.width = plan.rows = 0;
    return Status::success();
}

bool extremaFromCounts(SampleType type, const SlotMap& map)
{
    if (type != SampleType::U8 && type != SampleType::U16)
        return false;
    const std::int64_t values = std::int64_t(1) << (8 * sampleSize(type));
    for (int c = 0; c < map.num_channels; ++c) {
        const ChannelMap& m = map.ch[c];
        if (m.active && (m.mode != MapMode::Identity || m.ilo > 0 || m.ilo + std::int64_t(m.num_bins) < values))
            return false;
    }
    return true;
}

namespace {

double valueOfKey(SampleType type, std::uint32_t key)
{
    switch (type) {
    case SampleType::U8:
    case SampleType::U16:
    case SampleType::U32: return double(key);
    case SampleType::I32: return double(std::int32_t(key ^ 0x80000000u));
    case SampleType::F16:
    case SampleType::F32: break;
    }
    const std::uint32_t bits = (key & 0x80000000u) ? (key ^ 0x80000000u) : ~key;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return double(f) + 0.0;  // + 0.0 turns -0 into +0
}

struct Extremes {
    bool seen = false;
    double lo = 0;
    double hi = 0;
};

// The extremes of a one-value-per-bin channel with nothing below or above: its first and last
// non-empty bins [first, last), whatever the counting path tracked (`cub` tracks only when needed).
Extremes binExtremes(const ChannelMap& m, std::uint32_t first, std::uint32_t last)
{
    if (first >= last)
        return {};
    return {true, double(m.ilo + std::int64_t(first)), double(m.ilo + std::int64_t(last) - 1)};
}

Extremes trackedExtremes(const RequestPlan& plan, const unsigned long long* words, int channel)
{
    Extremes e;
    const unsigned long long minWord = words[2 * channel], maxWord = words[2 * channel + 1];
    if (minWord & kExtremaSeen)
        e = {true, valueOfKey(plan.type, ~std::uint32_t(minWord)), valueOfKey(plan.type, std::uint32_t(maxWord))};
    return e;
}

Extremes channelExtremes(const RequestPlan& plan, const ChannelMap& m, const std::uint64_t* counts,
                         const unsigned long long* words, int channel)
{
    if (m.mode == MapMode::Identity && counts[m.num_bins] == 0 && counts[m.num_bins + 1] == 0) {
        std::uint32_t first = 0, last = m.num_bins;
        while (first < m.num_bins && counts[first] == 0)
            ++first;
        while (last > first && counts[last - 1] == 0)
            --last;
        return binExtremes(m, first, last);
    }
    return trackedExtremes(plan, words, channel);
}

}  // namespace

namespace {

// Many bins are a memory copy of megabytes: done by several cores, it stays near the download. On the
// H200's host one core copied 1M counts (8 MB) in 0.60 ms and 128,000 in 0.06 ms, where the bus
// brought them in about 0.17 ms: from 2^16 bins (512 KiB) on, the copy is worth waking the threads.
void copyCounts(const std::uint64_t* from, std::uint32_t bins, std::vector<std::uint64_t>& to)
{
    constexpr std::int64_t kChunk = std::int64_t(1) << 15;
    to.resize(bins);
    if (bins < 2 * kChunk) {
        std::copy(from, from + bins, to.begin());
        return;
    }
    std::uint64_t* out = to.data();
    const std::int64_t chunks = (std::int64_t(bins) + kChunk - 1) / kChunk;
    const int threads = hostCopyThreads(chunks);
#pragma omp parallel for schedule(static) num_threads(threads)
    for (std::int64_t k = 0; k < chunks; ++k) {
        const std::int64_t begin = k * kChunk, end = std::min<std::int64_t>(bins, begin + kChunk);
        std::copy(from + begin, from + end, out + begin);
    }
}

}  // namespace

namespace {

// A replaced channel's identity, margins and extremes, whether its counts came to the host or not.
void setChannel(ChannelHistogram& h, const RequestPlan& plan, int c, std::uint64_t below, std::uint64_t above,
                std::uint64_t nan, const Extremes& e)
{
    h.channel = c;
    h.binning = plan.binning[c];
    h.below = below;
    h.above = above;
    h.nan = nan;
    h.hasValues = e.seen;
    h.minValue = e.seen ? e.lo : 0;
    h.maxValue = e.seen ? e.hi : 0;
}

}  // namespace

void unpackSlots(const RequestPlan& plan, const std::uint64_t* slots, const unsigned long long* extrema,
                 HistogramResult& result, bool accumulate)
{
    // Replacing a result reuses its vectors: a steady stream of frames allocates nothing here.
    if (!accumulate)
        result.channels.resize(std::size_t(plan.activeChannels()));
    std::size_t index = 0;
    for (int c = 0; c < plan.channels; ++c) {
        const ChannelMap& m = plan.map.ch[c];
        if (!m.active)
            continue;
        ChannelHistogram& h = result.channels[index++];
        const std::uint64_t* s = slots + m.base;
        const Extremes e = channelExtremes(plan, m, s, extrema, c);
        if (!accumulate) {
            copyCounts(s, m.num_bins, h.counts);
            setChannel(h, plan, c, s[m.num_bins], s[m.num_bins + 1], s[m.num_bins + 2], e);
            continue;
        }
        for (std::uint32_t b = 0; b < m.num_bins; ++b)
            h.counts[b] += s[b];
        h.below += s[m.num_bins];
        h.above += s[m.num_bins + 1];
        h.nan += s[m.num_bins + 2];
        if (e.seen) {
            h.minValue = h.hasValues ? std::min(h.minValue, e.lo) : e.lo;
            h.maxValue = h.hasValues ? std::max(h.maxValue, e.hi) : e.hi;
            h.hasValues = true;
        }
    }
    result.samples = accumulate ? result.samples + plan.samples() : plan.samples();
    result.countsOnDevice = false;
}

void unpackMargins(const RequestPlan& plan, const unsigned long long* extrema, const unsigned long long* tail,
                   HistogramResult& result)
{
    result.channels.resize(std::size_t(plan.activeChannels()));
    std::size_t index = 0;
    for (int c = 0; c < plan.channels; ++c) {
        const ChannelMap& m = plan.map.ch[c];
        if (!m.active)
            continue;
        ChannelHistogram& h = result.channels[index++];
        const unsigned long long* t = tail + std::size_t(c) * kTailWordsPerChannel;
        const bool fromBins = m.mode == MapMode::Identity && t[TailBelow] == 0 && t[TailAbove] == 0;
        const Extremes e = fromBins ? binExtremes(m, t[TailLastKey] ? std::uint32_t(m.num_bins - t[TailFirstKey]) : 0u,
                                                  std::uint32_t(t[TailLastKey]))
                                    : trackedExtremes(plan, extrema, c);
        h.counts.clear();
        setChannel(h, plan, c, t[TailBelow], t[TailAbove], t[TailNan], e);
    }
    result.samples = plan.samples();
    result.countsOnDevice = true;
}

}  // namespace hs::detail
