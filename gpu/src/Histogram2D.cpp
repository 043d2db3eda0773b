#include "histoscope/Histogram2D.h"

#include "Histogram2DPlan.h"
#include "HostCopyThreads.h"
#include "RequestPlan.h"
#include "Try.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace hs {

namespace {

constexpr std::array<std::pair<Quantity, std::string_view>, 7> kQuantityNames{{
    {Quantity::Channel, "channel"},
    {Quantity::Column, "column"},
    {Quantity::Luma, "luma"},
    {Quantity::Cb, "cb"},
    {Quantity::Cr, "cr"},
    {Quantity::Hue, "hue"},
    {Quantity::Saturation, "saturation"},
}};

Status invalid(std::string message) { return Status::error(ErrorCode::InvalidArgument, std::move(message)); }

ChannelBinning binning(std::uint32_t bins, double lo, double hi)
{
    ChannelBinning b;
    b.bins = bins;
    b.lo = lo;
    b.hi = hi;
    return b;
}

}  // namespace

std::string_view quantityName(Quantity quantity)
{
    for (const auto& [q, name] : kQuantityNames)
        if (q == quantity)
            return name;
    return "?";
}

std::optional<Quantity> quantityFromName(std::string_view name)
{
    for (const auto& [q, n] : kQuantityNames)
        if (n == name)
            return q;
    return std::nullopt;
}

bool isColourQuantity(Quantity q)
{
    return q == Quantity::Luma || q == Quantity::Cb || q == Quantity::Cr || q == Quantity::Hue
        || q == Quantity::Saturation;
}

std::string_view standardName(YCbCrStandard standard) { return standard == YCbCrStandard::Bt601 ? "bt601" : "bt709"; }

std::optional<YCbCrStandard> standardFromName(std::string_view name)
{
    if (name == "bt601" || name == "601")
        return YCbCrStandard::Bt601;
    if (name == "bt709" || name == "709")
        return YCbCrStandard::Bt709;
    return std::nullopt;
}

int codeBits(SampleType type) { return type == SampleType::U8 ? 8 : 16; }

ChannelBinning scopeValueBinning(SampleType type, Quantity quantity)
{
    switch (quantity) {
    case Quantity::Hue: return binning(360, 0, 360);
    case Quantity::Saturation: return binning(256, 0, 1);
    case Quantity::Column: return binning(1, 0, 1);
    case Quantity::Channel:
        if (isFloatType(type))
            return binning(256, 0, 1);
        [[fallthrough]];
    case Quantity::Luma:
    case Quantity::Cb:
    case Quantity::Cr: break;
    }
    return binning(256, 0, type == SampleType::U8 ? 256 : 65536);
}

Axis2D columnAxis(std::int64_t width, std::uint32_t bins)
{
    Axis2D a;
    a.quantity = Quantity::Column;
    const std::int64_t w = std::max<std::int64_t>(1, width);
    a.binning = binning(bins ? bins : std::uint32_t(std::min<std::int64_t>(w, kMaxBins)), 0, double(w));
    return a;
}

Axis2D channelAxis(int channel, SampleType type)
{
    Axis2D a;
    a.quantity = Quantity::Channel;
    a.channel = channel;
    a.binning = scopeValueBinning(type, Quantity::Channel);
    return a;
}

Axis2D colourAxis(Quantity quantity, SampleType type)
{
    Axis2D a;
    a.quantity = quantity;
    a.binning = scopeValueBinning(type, quantity);
    return a;
}

std::int64_t regionWidth(const ImageView& image) { return image.roi ? image.roi->width : image.width; }

Histogram2DRequest paradeRequest(const ImageView& image, const std::vector<int>& channels, std::uint32_t columnBins)
{
    Histogram2DRequest r;
    r.image = image;
    for (int c : channels)
        r.pairs.push_back({columnAxis(regionWidth(image), columnBins), channelAxis(c, image.type)});
    return r;
}

Histogram2DRequest lumaWaveformRequest(const ImageView& image, YCbCrStandard standard, std::array<int, 3> rgb,
                                       std::uint32_t columnBins)
{
    Histogram2DRequest r;
    r.image = image;
    r.standard = standard;
    r.rgb = rgb;
    r.pairs.push_back({columnAxis(regionWidth(image), columnBins), colourAxis(Quantity::Luma, image.type)});
    return r;
}

Histogram2DRequest vectorscopeRequest(const ImageView& image, YCbCrStandard standard, std::array<int, 3> rgb,
                                      std::uint32_t bins)
{
    Histogram2DRequest r;
    r.image = image;
    r.standard = standard;
    r.rgb = rgb;
    AxisPair p{colourAxis(Quantity::Cb, image.type), colourAxis(Quantity::Cr, image.type)};
    if (bins) {
        p.x.binning.bins = bins;
        p.y.binning.bins = bins;
    }
    r.pairs.push_back(p);
    return r;
}

Histogram2DRequest jointRequest(const ImageView& image, int a, int b)
{
    Histogram2DRequest r;
    r.image = image;
    r.pairs.push_back({channelAxis(a, image.type), channelAxis(b, image.type)});
    return r;
}

Histogram2DRequest hueSaturationRequest(const ImageView& image, std::array<int, 3> rgb)
{
    Histogram2DRequest r;
    r.image = image;
    r.rgb = rgb;
    r.pairs.push_back({colourAxis(Quantity::Hue, image.type), colourAxis(Quantity::Saturation, image.type)});
    return r;
}

// ---- Histogram2D ------------------------------------------------------------------------------

namespace {

// The three margin slots of one axis (bins, bins + 1, bins + 2: below, above, NaN), summed over
// every slot of the other axis; `at(margin, other)` reads the grid in that axis' orientation.
template <typename At>
AxisOutside sumMargins(std::uint32_t bins, std::uint32_t otherSlots, At at)
{
    AxisOutside o;
    for (std::uint32_t k = 0; k < otherSlots; ++k) {
        o.below += at(bins, k);
        o.above += at(bins + 1, k);
        o.nan += at(bins + 2, k);
    }
    return o;
}

}  // namespace

AxisOutside Histogram2D::outsideX() const
{
    return sumMargins(axes.x.binning.bins, ySlots(), [this](std::uint32_t sx, std::uint32_t sy) { return slot(sx, sy); });
}

AxisOutside Histogram2D::outsideY() const
{
    return sumMargins(axes.y.binning.bins, xSlots(), [this](std::uint32_t sy, std::uint32_t sx) { return slot(sx, sy); });
}

std::uint64_t Histogram2D::inRange() const
{
    std::uint64_t sum = 0;
    for (std::uint32_t ix = 0; ix < axes.x.binning.bins; ++ix)
        for (std::uint32_t iy = 0; iy < axes.y.binning.bins; ++iy)
            sum += count(ix, iy);
    return sum;
}

std::uint64_t Histogram2D::total() const
{
    std::uint64_t sum = 0;
    for (std::uint64_t v : grid)
        sum += v;
    return sum;
}

bool Histogram2D::operator==(const Histogram2D& other) const
{
    return axes.x.quantity == other.axes.x.quantity && axes.y.quantity == other.axes.y.quantity
        && axes.x.binning.bins == other.axes.x.binning.bins && axes.y.binning.bins == other.axes.y.binning.bins
        && grid == other.grid;
}

// ---- Validation and the plan ------------------------------------------------------------------

namespace detail {

namespace {

Status buildAxis(const Axis2D& axis, SampleType imageType, int channels, const std::string& which, AxisMap2D& out)
{
    out.quantity = static_cast<Q2>(int(axis.quantity));
    out.channel = 0;
    if (int(axis.quantity) < 0 || int(axis.quantity) > int(Quantity::Saturation))
        return invalid(which + ": unknown quantity");
    if (axis.quantity == Quantity::Channel) {
        if (axis.channel < 0 || axis.channel >= channels)
            return invalid(which + ": channel " + std::to_string(axis.channel) + " is outside the pixel's "
                           + std::to_string(channels) + " channel(s)");
        out.channel = axis.channel;
    }
    if (isColourQuantity(axis.quantity) && channels < 3)
        return invalid(which + ": " + std::string(quantityName(axis.quantity)) + " needs R, G and B (3 or 4 channels), the image has "
                       + std::to_string(channels));
    // The quantity's own value type decides integer or float binning.
    SampleType mapType = SampleType::I32;
    if (axis.quantity == Quantity::Channel)
        mapType = imageType;
    else if (axis.quantity == Quantity::Hue || axis.quantity == Quantity::Saturation)
        mapType = SampleType::F32;
    static const std::uint32_t dummy = 0;
    HistogramRequest one;
    one.image = keysView(&dummy, 1, mapType);
    one.binning[0] = axis.binning;
    one.binning[0].active = true;
    RequestPlan plan;
    if (Status s = buildPlan(one, plan); !s) {
        std::string message = s.message;
        const std::string prefix = "channel 0: ";
        if (message.rfind(prefix, 0) == 0)
            message = message.substr(prefix.size());
        return invalid(which + " (" + std::string(quantityName(axis.quantity)) + "): " + message);
    }
    out.map = plan.map.ch[0];
    out.map.base = 0;
    if (axis.quantity == Quantity::Saturation)
        out.map.fhi = std::nextafter(out.map.fhi, INFINITY);  // saturation's upper edge is inclusive
    return Status::success();
}

bool sameBinning(const ChannelBinning& a, const ChannelBinning& b)
{
    return a.bins == b.bins && a.lo == b.lo && upperEdge(a) == upperEdge(b);
}

}  // namespace

std::uint64_t Plan2D::inRangeCells() const
{
    std::uint64_t cells = 0;
    for (const AxisPair& p : pairs)
        cells += std::uint64_t(p.x.binning.bins) * p.y.binning.bins;
    return cells;
}

Status buildPlan2D(const Histogram2DRequest& request, Plan2D& plan)
{
    plan = Plan2D{};
    const ImageView& image = request.image;
    if (request.pairs.empty() || request.pairs.size() > std::size_t(kMaxPairs))
        return invalid("a 2-D request needs 1 to " + std::to_string(kMaxPairs) + " pairs of axes, not "
                       + std::to_string(request.pairs.size()));
    // Geometry: the 1-D plan's checks (channels, stride, ROI, alignment, null data).
    HistogramRequest geometry = makeRequest(image, defaultBinning(image.type));
    for (int c = 1; c < kMaxChannels; ++c)
        geometry.binning[c].active = false;
    RequestPlan p1;
    if (Status s = buildPlan(geometry, p1); !s)
        return s;
    plan.type = image.type;
    plan.space = image.space;
    plan.channels = image.channels;
    plan.pixelBytes = p1.pixelBytes;
    const std::size_t rowBytes = std::size_t(image.width) * plan.pixelBytes;
    plan.pitch = image.strideBytes ? image.strideBytes : rowBytes;
    const Rect roi = image.roi.value_or(Rect{0, 0, image.width, image.height});
    plan.width = roi.width;
    plan.rows = roi.height;
    plan.origin = static_cast<const unsigned char*>(image.data);
    if (plan.origin)
        plan.origin += std::size_t(roi.y) * plan.pitch + std::size_t(roi.x) * plan.pixelBytes;
    if (plan.width == 0 || plan.rows == 0)
        plan.width = plan.rows = 0;

    for (int k = 0; k < 3; ++k)
        plan.map.rgb[k] = request.rgb[k];
    plan.map.bt709 = request.standard == YCbCrStandard::Bt709 ? 1 : 0;
    plan.map.codeBits = codeBits(image.type);
    plan.pairs = request.pairs;
    plan.map.numPairs = int(request.pairs.size());
    std::uint64_t slots = 0;
    std::uint64_t cells = 0;
    bool colour = false;
    for (std::size_t i = 0; i < request.pairs.size(); ++i) {
        const AxisPair& pair = request.pairs[i];
        PairMap2D& m = plan.map.pair[i];
        const std::string which = "pair " + std::to_string(i) + " ";
        HS_TRY(buildAxis(pair.x, image.type, image.channels, which + "x", m.x));
        HS_TRY(buildAxis(pair.y, image.type, image.channels, which + "y", m.y));
        for (Quantity q : {pair.x.quantity, pair.y.quantity}) {
            colour = colour || isColourQuantity(q);
            plan.map.needCodes = plan.map.needCodes || q == Quantity::Luma || q == Quantity::Cb || q == Quantity::Cr;
            plan.map.needHsv = plan.map.needHsv || q == Quantity::Hue || q == Quantity::Saturation;
        }
        m.ySlots = pair.y.binning.bins + 3;
        m.base = std::uint32_t(slots);
        slots += std::uint64_t(pair.x.binning.bins + 3) * m.ySlots;
        cells += std::uint64_t(pair.x.binning.bins) * pair.y.binning.bins;
    }
    if (cells > kMaxCells)
        return invalid("the 2-D histograms hold " + std::to_string(cells) + " cells, more than 2^24 = "
                       + std::to_string(kMaxCells));
    if (colour) {
        for (int k = 0; k < 3; ++k)
            if (request.rgb[k] < 0 || request.rgb[k] >= image.channels)
                return invalid("the R, G, B channel indices must lie in 0.." + std::to_string(image.channels - 1));
    }
    plan.map.numSlots = std::uint32_t(slots);
    plan.columnStrips = true;
    for (const AxisPair& pair : request.pairs)
        plan.columnStrips = plan.columnStrips && pair.x.quantity == Quantity::Column
            && sameBinning(pair.x.binning, request.pairs[0].x.binning);
    return Status::success();
}

namespace {

// Below this many counters one thread is quicker than waking the team.
constexpr std::size_t kParallelCounters = std::size_t(1) << 18;

}  // namespace

void zeroCounts(std::uint64_t* slots, std::size_t n)
{
#pragma omp parallel for schedule(static) num_threads(hostCopyThreads()) if (n >= kParallelCounters)
    for (std::int64_t k = 0; k < std::int64_t(n); ++k)
        slots[k] = 0;
}

namespace {

// As buildPlan2D numbers the slots: x bins + 3 by y bins + 3.
std::size_t gridSize(const Plan2D& plan, int i)
{
    return std::size_t(plan.pairs[std::size_t(i)].x.binning.bins + 3) * plan.map.pair[i].ySlots;
}

template <typename Count>
void deliver(const Plan2D& plan, const Count* counts, const GridTargets& targets, bool add)
{
    for (int i = 0; i < plan.map.numPairs; ++i) {
        const Count* s = counts + plan.map.pair[i].base;
        std::uint64_t* grid = targets.grid[i];
        const std::int64_t n = std::int64_t(gridSize(plan, i));
        if (add) {
#pragma omp parallel for schedule(static) num_threads(hostCopyThreads()) if (std::size_t(n) >= kParallelCounters)
            for (std::int64_t k = 0; k < n; ++k)
                grid[k] += s[k];
        } else {
#pragma omp parallel for schedule(static) num_threads(hostCopyThreads()) if (std::size_t(n) >= kParallelCounters)
            for (std::int64_t k = 0; k < n; ++k)
                grid[k] = s[k];
        }
    }
}

}  // namespace

void shapeGrids(const Plan2D& plan, Histogram2DResult& result)
{
    bool reuse = result.histograms.size() == std::size_t(plan.map.numPairs);
    for (int i = 0; reuse && i < plan.map.numPairs; ++i) {
        Histogram2D& h = result.histograms[i];
        h.axes = plan.pairs[i];
        reuse = h.grid.size() == std::size_t(h.xSlots()) * h.ySlots();
    }
    if (reuse)
        return;
    result.histograms.clear();
    for (int i = 0; i < plan.map.numPairs; ++i) {
        Histogram2D h;
        h.axes = plan.pairs[i];
        h.grid.resize(std::size_t(h.xSlots()) * h.ySlots());
        result.histograms.push_back(std::move(h));
    }
}

GridTargets targetsIn(Histogram2DResult& result)
{
    GridTargets t;
    for (std::size_t i = 0; i < result.histograms.size() && i < 4; ++i)
        t.grid[i] = result.histograms[i].grid.data();
    return t;
}

GridTargets targetsIn(const Plan2D& plan, std::uint64_t* slots)
{
    GridTargets t;
    for (int i = 0; i < plan.map.numPairs; ++i)
        t.grid[i] = slots + plan.map.pair[i].base;
    return t;
}

void deliverCounts(const Plan2D& plan, const std::uint32_t* counts, const GridTargets& targets, bool add)
{
    deliver(plan, counts, targets, add);
}

void deliverCounts(const Plan2D& plan, const std::uint64_t* counts, const GridTargets& targets, bool add)
{
    deliver(plan, counts, targets, add);
}

void clearTargets(const Plan2D& plan, const GridTargets& targets)
{
    for (int i = 0; i < plan.map.numPairs; ++i)
        zeroCounts(targets.grid[i], gridSize(plan, i));
}

void unpackGrid2D(const Plan2D& plan, const std::uint64_t* slots, Histogram2DResult& result, bool accumulate)
{
    if (!accumulate)
        shapeGrids(plan, result);
    deliver(plan, slots, targetsIn(result), accumulate);
    result.pixels = accumulate ? result.pixels + plan.pixels() : plan.pixels();
}

std::int64_t firstColumnOfBin(const ChannelMap& m, std::uint64_t bin, std::int64_t width)
{
    // bin(c) = floor((c - lo) * bins / range) >= bin  <=>  c - lo >= ceil(bin * range / bins)
    const unsigned __int128 num = (unsigned __int128)bin * m.irange;
    const std::uint64_t offset = std::uint64_t((num + m.num_bins - 1) / m.num_bins);
    const std::int64_t c = m.ilo + std::int64_t(offset);
    return std::clamp<std::int64_t>(c, 0, width);
}

}  // namespace detail

Status validateHistogram2D(const Histogram2DRequest& request)
{
    detail::Plan2D plan;
    return detail::buildPlan2D(request, plan);
}

// ---- The reference ----------------------------------------------------------------------------

namespace {

template <typename T, int C>
void referenceCount(const detail::Plan2D& plan, std::uint64_t* slots)
{
    for (std::int64_t r = 0; r < plan.rows; ++r) {
        const unsigned char* row = plan.row(r);
        for (std::int64_t x = 0; x < plan.width; ++x) {
            T px[C];
            detail::loadPixelHost<T, C>(row + std::size_t(x) * plan.pixelBytes, px);
            const detail::PixelQuantities q = detail::pixelQuantities(plan.map, px);
            for (int i = 0; i < plan.map.numPairs; ++i)
                ++slots[detail::pairSlot(plan.map.pair[i], px, x, q)];
        }
    }
}

}  // namespace

Status referenceHistogram2D(const Histogram2DRequest& request, Histogram2DResult& result)
{
    if (request.image.space != MemorySpace::Host)
        return invalid("the reference reads host memory only");
    detail::Plan2D plan;
    HS_TRY(detail::buildPlan2D(request, plan));
    std::vector<std::uint64_t> slots(plan.map.numSlots, 0);
    detail::visitSampleType2D(plan.type, [&](auto tag) {
        using T = decltype(tag);
        switch (plan.channels) {
        case 1: referenceCount<T, 1>(plan, slots.data()); break;
        case 2: referenceCount<T, 2>(plan, slots.data()); break;
        case 3: referenceCount<T, 3>(plan, slots.data()); break;
        default: referenceCount<T, 4>(plan, slots.data()); break;
        }
    });
    detail::unpackGrid2D(plan, slots.data(), result, false);
    result.strategyRan = Strategy::Cpu;
    result.strategyReason = "reference";
    result.timings = {};
    return Status::success();
}

}  // namespace hs
