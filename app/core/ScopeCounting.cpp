#include "app/core/ScopeCounting.h"

#include "histoscope/Histogram2D.h"

#include <QElapsedTimer>

#include <algorithm>
#include <functional>

QString scopePairName(ScopePair pair)
{
    switch (pair) {
    case ScopePair::HueSaturation: return QStringLiteral("H–S");
    case ScopePair::RedGreen: return QStringLiteral("R–G");
    case ScopePair::RedBlue: return QStringLiteral("R–B");
    case ScopePair::GreenBlue: return QStringLiteral("G–B");
    }
    return {};
}

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

// The in-range cells of `h` as a plane (x-major, margins dropped).
ScopePlane toPlane(const hs::Histogram2D& h, const QString& name, ScopePlane::Tint tint, const QStringList& channelNames)
{
    ScopePlane plane;
    plane.name = name;
    plane.tint = tint;
    plane.xName = axisName(h.axes.x, channelNames);
    plane.yName = axisName(h.axes.y, channelNames);
    plane.xBins = int(h.axes.x.binning.bins);
    plane.yBins = int(h.axes.y.binning.bins);
    plane.xLo = h.axes.x.binning.lo;
    plane.xHi = h.axes.x.binning.hi;
    plane.yLo = h.axes.y.binning.lo;
    plane.yHi = h.axes.y.binning.hi;
    plane.counts.resize(qsizetype(plane.xBins) * plane.yBins);
    double* out = plane.counts.data();
    const std::size_t ySlots = h.ySlots();
    for (int x = 0; x < plane.xBins; ++x) {
        const std::uint64_t* column = h.grid.data() + std::size_t(x) * ySlots;
        for (int y = 0; y < plane.yBins; ++y)
            *out++ = double(column[y]);
    }
    plane.total = h.total();
    plane.inRange = h.inRange();
    return plane;
}

// Where a counted pair goes.
struct Wanted {
    hs::AxisPair pair;
    std::function<void(const hs::Histogram2D&)> store;
    std::uint64_t cells() const { return std::uint64_t(pair.x.binning.bins) * pair.y.binning.bins; }
};

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
    snapshot.codeMax = frame.type() == hs::SampleType::U8 ? 255.0 : isFloat ? frame.nominalHi() : 65535.0;

    std::vector<Wanted> wanted;
    auto channelValueAxis = [&](int storage) {
        hs::Axis2D axis = hs::channelAxis(storage, frame.type());
        if (isFloat) {   // a float parade covers the frame's nominal range
            axis.binning.lo = frame.nominalLo();
            axis.binning.hi = frame.nominalHi();
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
            wanted.push_back({{column, channelValueAxis(storage)}, [&snapshot, &names, i, storage, colour, tints](const hs::Histogram2D& h) {
                                  snapshot.parade[i] = toPlane(h, names[storage], colour ? tints[i] : ScopePlane::Tint::Luma, names);
                              }});
        }
    }
    if (settings.kinds & scopeBit(ScopeKind::Waveform)) {
        if (colour) {
            const hs::Histogram2DRequest r = hs::lumaWaveformRequest(image, standard, rgb);
            wanted.push_back({r.pairs.front(), [&snapshot, &names](const hs::Histogram2D& h) {
                                  snapshot.waveform = {toPlane(h, QStringLiteral("luma"), ScopePlane::Tint::Luma, names)};
                              }});
        }
    }
    if (settings.kinds & scopeBit(ScopeKind::Vectorscope)) {
        if (colour) {
            const hs::Histogram2DRequest r = hs::vectorscopeRequest(image, standard, rgb);
            wanted.push_back({r.pairs.front(), [&snapshot, &names](const hs::Histogram2D& h) {
                                  snapshot.vectorscope = toPlane(h, QStringLiteral("CbCr"), ScopePlane::Tint::None, names);
                              }});
        } else {
            snapshot.notices << QStringLiteral("A single-channel frame has no chroma: no vectorscope.");
        }
    }
    if (settings.kinds & scopeBit(ScopeKind::Histogram2D)) {
        if (colour) {
            hs::AxisPair pair;
            QString name;
            switch (settings.pair) {
            case ScopePair::HueSaturation:
                pair = hs::hueSaturationRequest(image, rgb).pairs.front();
                name = QStringLiteral("H,S");
                break;
            case ScopePair::RedGreen: pair = {channelValueAxis(rgb[0]), channelValueAxis(rgb[1])}; name = QStringLiteral("R,G"); break;
            case ScopePair::RedBlue: pair = {channelValueAxis(rgb[0]), channelValueAxis(rgb[2])}; name = QStringLiteral("R,B"); break;
            case ScopePair::GreenBlue: pair = {channelValueAxis(rgb[1]), channelValueAxis(rgb[2])}; name = QStringLiteral("G,B"); break;
            }
            wanted.push_back({pair, [&snapshot, &names, name](const hs::Histogram2D& h) {
                                  snapshot.histogram2d = toPlane(h, name, ScopePlane::Tint::None, names);
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
