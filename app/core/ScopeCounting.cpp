#include "app/core/ScopeCounting.h"

#include "app/core/FrameRequest.h"

#include "histoscope/Histogram2D.h"

#include <QElapsedTimer>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

std::shared_ptr<ScopeSnapshot> countScopeJob(hs::Histogram2DEngine& engine, const ScopeJob& job)
{
    auto snapshot = std::make_shared<ScopeSnapshot>();
    snapshot->generation = job.generation;
    snapshot->frameIndex = job.frameIndex;
    snapshot->roi = job.roi;
    snapshot->settings = job.settings;
    QElapsedTimer timer;
    timer.start();
    try {
        countScopes(engine, job, *snapshot);
    } catch (const std::exception& e) {
        snapshot->error = Error::make(ErrorKind::Engine, {}, QString::fromUtf8(e.what()).trimmed());
    }
    snapshot->computeMs = double(timer.nsecsElapsed()) / 1e6;
    return snapshot;
}

namespace {

QString axisName(const hs::Axis2D& axis, const QStringList& channelNames)
{
    if (axis.quantity == hs::Quantity::Channel)
        return channelNames.value(axis.channel, QStringLiteral("c%1").arg(axis.channel));
    switch (axis.quantity) {
    case hs::Quantity::Luma: return QStringLiteral("luma");
    case hs::Quantity::Cb: return QStringLiteral("Cb");
    case hs::Quantity::Cr: return QStringLiteral("Cr");
    default: return QString::fromUtf8(hs::quantityName(axis.quantity).data(), qsizetype(hs::quantityName(axis.quantity).size()));
    }
}

// How an axis's counted units become the units it is shown in: pivot + (v - pivot) * scale.
// Float frames are counted in their own units (or 16-bit codes) over a range divided by the
// exposure, and shown multiplied by it, so an exposed value is never computed per pixel: the
// counts are exact counts of the samples, only the axis is relabelled.
struct AxisUnits {
    double scale = 1;
    double pivot = 0;
    double operator()(double v) const { return pivot + (v - pivot) * scale; }
};

// The in-range cells of `h` as a plane (x-major, margins dropped; per column, the pixels above
// and below the y axis kept for clipping marks).
ScopePlane toPlane(const hs::Histogram2D& h, const QString& name, ScopePlane::Tint tint, const QStringList& channelNames,
                   AxisUnits xUnits = {}, AxisUnits yUnits = {})
{
    ScopePlane plane;
    plane.name = name;
    plane.tint = tint;
    plane.xName = axisName(h.axes.x, channelNames);
    plane.yName = axisName(h.axes.y, channelNames);
    plane.xBins = int(h.axes.x.binning.bins);
    plane.yBins = int(h.axes.y.binning.bins);
    plane.xLo = xUnits(h.axes.x.binning.lo);
    plane.xHi = xUnits(hs::upperEdge(h.axes.x.binning));
    plane.yLo = yUnits(h.axes.y.binning.lo);
    plane.yHi = yUnits(hs::upperEdge(h.axes.y.binning));
    plane.counts.resize(qsizetype(plane.xBins) * plane.yBins);
    plane.aboveByX.resize(plane.xBins);
    plane.belowByX.resize(plane.xBins);
    double* out = plane.counts.data();
    const std::size_t ySlots = h.ySlots();
    for (int x = 0; x < plane.xBins; ++x) {
        const std::uint64_t* column = h.grid.data() + std::size_t(x) * ySlots;
        for (int y = 0; y < plane.yBins; ++y)
            *out++ = double(column[y]);
        plane.bottomBin += double(column[0]);
        plane.topBin += double(column[plane.yBins - 1]);
        plane.belowByX[x] = double(column[plane.yBins]);
        plane.aboveByX[x] = double(column[plane.yBins + 1]);
    }
    plane.total = h.total();
    plane.inRange = h.inRange();
    const hs::AxisOutside outside = h.outsideY();
    plane.aboveY = outside.above;
    plane.belowY = outside.below;
    plane.nanY = outside.nan;
    return plane;
}

// Where a counted pair goes.
struct Wanted {
    hs::AxisPair pair;
    std::function<void(const hs::Histogram2D&)> store;
    std::uint64_t cells() const { return std::uint64_t(pair.x.binning.bins) * pair.y.binning.bins; }
};

// The float just above x: the engine compares float samples with float(hi), so the largest
// sample needs an edge above it in float (FrameRequest's rule).
double nextFloatUp(double x) { return double(std::nextafter(float(x), std::numeric_limits<float>::infinity())); }

// The 16-bit code of a float sample, as docs/SCOPES.md quantizes it.
double floatCode(double v) { return std::floor(v * 65535.0 + 0.5); }

hs::ChannelBinning codeBinning(double lo, double hi)
{
    hs::ChannelBinning b;
    b.lo = lo;
    b.hi = hi;
    b.bins = std::uint32_t(std::clamp(hi - lo, 1.0, 256.0));
    return b;
}

// The value axes of a float frame, in counted units: [lo, hi) holds every finite sample of the
// region (Fit: at least 0..1 after exposure, the histogram panel's rule) or 0..1 after exposure
// (Unit); luma codes and chroma codes likewise.
struct FloatAxes {
    double k = 1;                    // 2^exposure
    double lo = 0, hi = 1;           // channel samples
    double lumaLo = 0, lumaHi = 65536;
    double chromaLo = 0, chromaHi = 65536;
};

FloatAxes floatAxes(const Frame& frame, const ScopeJob& job)
{
    FloatAxes a;
    a.k = std::exp2(std::clamp(job.settings.exposure, -ScopeOptions::kMaxExposure, ScopeOptions::kMaxExposure));
    a.lo = 0;
    a.hi = nextFloatUp(1.0 / a.k);
    if (job.settings.floatAxis == ScopeFloatAxis::Fit) {
        if (const auto extremes = finiteExtremes(frame, job.roi)) {
            a.lo = std::min(0.0, extremes->lo);
            a.hi = nextFloatUp(std::max(extremes->hi, 1.0 / a.k));
        }
    }
    // Luma lies between the smallest and the largest channel code; one code either way for the
    // rounding of the quantization.
    a.lumaLo = a.lo < 0 ? floatCode(a.lo) - 1 : 0;
    a.lumaHi = floatCode(a.hi) + 2;
    // Chroma: full scale about grey, divided by the exposure.
    const double half = std::ceil(32768.0 / a.k);
    a.chromaLo = 32768 - half;
    a.chromaHi = 32768 + half;
    return a;
}

}  // namespace

void countScopes(hs::Histogram2DEngine& engine, const ScopeJob& job, ScopeSnapshot& snapshot)
{
    const Frame& frame = job.frame;
    const ScopeSettings& settings = job.settings;
    hs::ImageView image = frame.view();
    image.roi = job.roi;
    snapshot.width = job.roi ? job.roi->width : frame.width();
    snapshot.height = job.roi ? job.roi->height : frame.height();
    const bool colour = frame.channels() >= 3;
    const bool isFloat = frame.type() == hs::SampleType::F16 || frame.type() == hs::SampleType::F32;
    const hs::YCbCrStandard standard = settings.bt709 ? hs::YCbCrStandard::Bt709 : hs::YCbCrStandard::Bt601;
    const std::array<int, 3> rgb = colour
        ? std::array<int, 3>{frame.storageIndexOfDisplayChannel(0), frame.storageIndexOfDisplayChannel(1),
                             frame.storageIndexOfDisplayChannel(2)}
        : std::array<int, 3>{0, 0, 0};
    QStringList names;   // by storage index
    for (int c = 0; c < frame.channels(); ++c)
        names << QString();
    if (colour) {
        names[rgb[0]] = QStringLiteral("R");
        names[rgb[1]] = QStringLiteral("G");
        names[rgb[2]] = QStringLiteral("B");
        if (frame.channels() > 3)
            names[frame.storageIndexOfDisplayChannel(3)] = QStringLiteral("A");
    } else {
        names[0] = QStringLiteral("Y");
    }
    snapshot.lumaCodeMax = double((std::uint64_t(1) << hs::codeBits(frame.type())) - 1);
    snapshot.codeMax = frame.type() == hs::SampleType::U8 ? 255.0 : isFloat ? 1.0 : 65535.0;
    snapshot.floatValues = isFloat;
    const FloatAxes fa = isFloat ? floatAxes(frame, job) : FloatAxes{};
    // Float frames are shown in exposed float units (luma too: code / 65535), chroma in exposed
    // codes about grey; integer frames in their codes.
    const AxisUnits channelUnits{fa.k, 0};
    const AxisUnits lumaUnits = isFloat ? AxisUnits{fa.k / 65535.0, 0} : AxisUnits{};
    const AxisUnits chromaUnits = isFloat ? AxisUnits{fa.k, 32768} : AxisUnits{};

    std::vector<Wanted> wanted;
    auto channelValueAxis = [&](int storage) {
        hs::Axis2D axis = hs::channelAxis(storage, frame.type());
        if (isFloat) {
            axis.binning.lo = fa.lo;
            axis.binning.hi = fa.hi;
        }
        return axis;
    };
    const hs::Axis2D column = hs::columnAxis(hs::regionWidth(image));
    const ScopePlane::Tint tints[3] = {ScopePlane::Tint::Red, ScopePlane::Tint::Green, ScopePlane::Tint::Blue};
    const bool needParade = (settings.kinds & scopeBit(ScopeKind::Parade)) || (!colour && (settings.kinds & scopeBit(ScopeKind::Waveform)));
    if (needParade) {
        const int n = colour ? 3 : 1;
        snapshot.parade.resize(n);
        for (int i = 0; i < n; ++i) {
            const int storage = colour ? rgb[std::size_t(i)] : 0;
            wanted.push_back({{column, channelValueAxis(storage)},
                              [&snapshot, &names, i, storage, colour, tints, channelUnits, isFloat](const hs::Histogram2D& h) {
                                  ScopePlane& p = snapshot.parade[i];
                                  p = toPlane(h, names[storage], colour ? tints[i] : ScopePlane::Tint::Luma, names, {},
                                              isFloat ? channelUnits : AxisUnits{});
                                  p.clipAtEnds = !isFloat;
                              }});
        }
    }
    if (settings.kinds & scopeBit(ScopeKind::Waveform)) {
        if (colour) {
            hs::AxisPair pair = hs::lumaWaveformRequest(image, standard, rgb).pairs.front();
            if (isFloat)
                pair.y.binning = codeBinning(fa.lumaLo, fa.lumaHi);
            wanted.push_back({pair, [&snapshot, &names, lumaUnits, isFloat](const hs::Histogram2D& h) {
                                  ScopePlane p = toPlane(h, QStringLiteral("luma"), ScopePlane::Tint::Luma, names, {}, lumaUnits);
                                  p.clipAtEnds = !isFloat;
                                  snapshot.waveform = {p};
                              }});
        }
    }
    if (settings.kinds & scopeBit(ScopeKind::Vectorscope)) {
        if (colour) {
            hs::AxisPair pair = hs::vectorscopeRequest(image, standard, rgb).pairs.front();
            if (isFloat)
                pair.x.binning = pair.y.binning = codeBinning(fa.chromaLo, fa.chromaHi);
            wanted.push_back({pair, [&snapshot, &names, chromaUnits](const hs::Histogram2D& h) {
                                  snapshot.vectorscope = toPlane(h, QStringLiteral("CbCr"), ScopePlane::Tint::None, names,
                                                                 chromaUnits, chromaUnits);
                              }});
        } else {
            snapshot.notices << QStringLiteral("A single-channel frame has no chroma: no vectorscope.");
        }
    }
    if (settings.kinds & scopeBit(ScopeKind::Histogram2D)) {
        if (colour) {
            hs::AxisPair pair;
            QString name;
            AxisUnits units = isFloat ? channelUnits : AxisUnits{};
            switch (settings.pair) {
            case ScopePair::HueSaturation:
                pair = hs::hueSaturationRequest(image, rgb).pairs.front();
                // Saturation 0 and 1, and the simple fractions between (1/2, 1/4, 3/4), at the
                // centres of rows 1/256 apart: 0 and 1 are whole rows, not edges, and 8-bit data,
                // whose saturations d / max cluster on both sides of such a fraction, fill the
                // row around it evenly instead of piling onto the row that starts there (a
                // false line at 0.5 with rows [k/256, (k+1)/256)).
                pair.y.binning.bins = 257;
                pair.y.binning.lo = -1.0 / 512;
                pair.y.binning.hi = 1.0 + 1.0 / 512;
                units = {};
                name = QStringLiteral("H,S");
                break;
            case ScopePair::RedGreen: pair = {channelValueAxis(rgb[0]), channelValueAxis(rgb[1])}; name = QStringLiteral("R,G"); break;
            case ScopePair::RedBlue: pair = {channelValueAxis(rgb[0]), channelValueAxis(rgb[2])}; name = QStringLiteral("R,B"); break;
            case ScopePair::GreenBlue: pair = {channelValueAxis(rgb[1]), channelValueAxis(rgb[2])}; name = QStringLiteral("G,B"); break;
            }
            wanted.push_back({pair, [&snapshot, &names, name, units](const hs::Histogram2D& h) {
                                  snapshot.histogram2d = toPlane(h, name, ScopePlane::Tint::None, names, units, units);
                              }});
        } else {
            snapshot.notices << QStringLiteral("A single-channel frame has no second channel: no 2-D histogram.");
        }
    }

    // Pack the pairs into as few passes as the engine allows (4 pairs, 2^24 cells each pass).
    std::size_t next = 0;
    while (next < wanted.size()) {
        hs::Histogram2DRequest request;
        request.image = image;
        request.standard = standard;
        request.rgb = rgb;
        std::uint64_t cells = 0;
        const std::size_t first = next;
        while (next < wanted.size() && request.pairs.size() < std::size_t(hs::kMaxPairs)
               && (request.pairs.empty() || cells + wanted[next].cells() <= hs::kMaxCells)) {
            cells += wanted[next].cells();
            request.pairs.push_back(wanted[next++].pair);
        }
        hs::Histogram2DResult result;
        const hs::Status status = engine.compute(request, result);
        if (!status) {
            snapshot.error = Error::fromStatus(status, {});
            return;
        }
        for (std::size_t i = 0; i < result.histograms.size(); ++i)
            wanted[first + i].store(result.histograms[i]);
    }
    if (!colour && (settings.kinds & scopeBit(ScopeKind::Waveform)) && !snapshot.parade.isEmpty()) {
        ScopePlane luma = snapshot.parade.front();
        luma.name = QStringLiteral("luma");
        snapshot.waveform = {luma};
    }
    if (!(settings.kinds & scopeBit(ScopeKind::Parade)))
        snapshot.parade.clear();
}
