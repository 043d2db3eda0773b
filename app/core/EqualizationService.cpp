#include "app/core/EqualizationService.h"

#include "io/FrameWriter.h"
#include "app/core/HistogramCounting.h"
#include "app/core/LumaRecombination.h"
#include "app/core/PreviewFrame.h"

#include "histoscope/HistogramEngine.h"
#include "histoscope/HistogramMatching.h"

#include <opencv2/imgproc.hpp>

#include <QFileInfo>

#include <algorithm>
#include <array>

namespace {

using ChannelMask = std::array<bool, hs::kMaxChannels>;

// Colour channels are changed, alpha never.
ChannelMask colourChannels(const Frame& frame)
{
    return {true, frame.channels() >= 3, frame.channels() >= 3, false};
}

int cvDepth(hs::SampleType type) { return type == hs::SampleType::U8 ? CV_8U : CV_16U; }

cv::Mat matOf(const Frame& frame)
{
    return cv::Mat(int(frame.height()), int(frame.width()), CV_MAKETYPE(cvDepth(frame.type()), frame.channels()),
                   const_cast<unsigned char*>(frame.data()), frame.strideBytes());
}

// A frame that owns a matrix's pixels (the matrix is kept alive by the frame).
Frame frameOfMat(const cv::Mat& mat, hs::SampleType type, ChannelOrder order)
{
    auto owner = std::make_shared<cv::Mat>(mat);
    const unsigned char* data = owner->data;
    return Frame(std::shared_ptr<const void>(owner, data), data, type, owner->cols, owner->rows, owner->channels(),
                 owner->step[0], order);
}

// The pixels of `r` as a view of their own (no engine ROI: equalize and applyLuts take whole views).
hs::ImageView subView(const Frame& frame, const hs::Rect& r)
{
    hs::ImageView v = frame.view();
    const std::size_t pixelBytes = std::size_t(frame.channels()) * hs::sampleSize(frame.type());
    v.data = frame.data() + std::size_t(r.y) * frame.strideBytes() + std::size_t(r.x) * pixelBytes;
    v.width = r.width;
    v.height = r.height;
    return v;
}

// One bin per value of the masked channels of `view` (its roi included).
hs::HistogramRequest valueRequest(const hs::ImageView& view, const ChannelMask& mask)
{
    hs::HistogramRequest request = hs::makeRequest(view, hs::defaultBinning(view.type));
    for (int c = 0; c < hs::kMaxChannels; ++c)
        request.binning[c].active = mask[std::size_t(c)] && c < view.channels;
    return request;
}

struct PlaneResult {
    std::vector<std::vector<std::uint32_t>> luts;
    double engineMs = 0;
    Error error;
};

// Equalizes (or matches) the masked channels of `in` into `out` (same layout, `stride`), which
// already holds a copy of `in`. `region`: where the LUT comes from and where it goes, by mode.
PlaneResult equalizePlanes(hs::HistogramEngine& e, const EqualizeRequest& request, const Frame& in, const ChannelMask& mask,
                           const Frame& reference, const std::optional<hs::Rect>& region, unsigned char* out,
                           std::size_t stride)
{
    PlaneResult result;
    const QString& source = request.source;
    const hs::Rect whole{0, 0, in.width(), in.height()};
    const hs::Rect from = region.value_or(whole);                       // where the LUT is learnt
    const bool inside = region && request.region == EqualizeRegion::InsideRegion;
    const hs::Rect to = inside ? *region : whole;                       // where it is applied
    const std::size_t pixelBytes = std::size_t(in.channels()) * hs::sampleSize(in.type());
    unsigned char* outAt = out + std::size_t(to.y) * stride + std::size_t(to.x) * pixelBytes;
    switch (request.method) {
    case EqualizeMethod::Global: {
        hs::EqualizeResult equalized;
        if (from.x == to.x && from.y == to.y && from.width == to.width && from.height == to.height) {
            result.error = Error::fromStatus(e.equalize(subView(in, from), outAt, stride, equalized, mask), source);
        } else {
            // The LUT from the region, applied everywhere: the engine learns it on the region and
            // maps the whole image through it.
            std::vector<unsigned char> scratch(std::size_t(from.width) * std::size_t(from.height) * pixelBytes);
            result.error = Error::fromStatus(e.equalize(subView(in, from), scratch.data(), 0, equalized, mask), source);
            hs::PhaseTimings applied;
            if (!result.error.isError())
                result.error = Error::fromStatus(e.applyLuts(subView(in, to), equalized.luts, mask, outAt, stride, &applied), source);
            result.engineMs = applied.totalMs();
        }
        result.luts = std::move(equalized.luts);
        result.engineMs += equalized.timings.totalMs();
        return result;
    }
    case EqualizeMethod::Clahe: {
        if (region && request.region == EqualizeRegion::LutFromRegion) {
            result.error = Error::make(ErrorKind::InvalidInput, source,
                                       QStringLiteral("CLAHE adapts to each tile: it has no single LUT to take from a region"));
            return result;
        }
        try {
            const cv::Rect rect(int(to.x), int(to.y), int(to.width), int(to.height));
            cv::Mat src = matOf(in)(rect);
            cv::Mat dst = cv::Mat(int(in.height()), int(in.width()), matOf(in).type(), out, stride)(rect);
            auto clahe = cv::createCLAHE(request.clipLimit, cv::Size(request.tiles, request.tiles));
            std::vector<cv::Mat> planes;
            cv::split(src, planes);
            for (int c = 0; c < in.channels(); ++c)
                if (mask[std::size_t(c)])
                    clahe->apply(planes[std::size_t(c)], planes[std::size_t(c)]);
            cv::Mat merged;
            cv::merge(planes, merged);
            merged.copyTo(dst);
        } catch (const cv::Exception& ex) {
            result.error = Error::make(ErrorKind::Engine, source, QStringLiteral("CLAHE failed: ") + QString::fromStdString(ex.msg).trimmed());
        }
        return result;
    }
    case EqualizeMethod::Match: {
        // Both histograms counted by the engine, one bin per value; the LUT by exact integer
        // comparison of the two CDFs (hs::matchingLut); applied by the engine.
        hs::ImageView fromView = in.view();
        fromView.roi = from;
        hs::HistogramResult mine, theirs;
        result.error = Error::fromStatus(e.compute(valueRequest(fromView, mask), mine), source);
        if (!result.error.isError())
            result.error = Error::fromStatus(e.compute(valueRequest(reference.view(), mask), theirs), source);
        if (result.error.isError())
            return result;
        if (mine.channels.size() != theirs.channels.size()) {
            result.error = Error::make(ErrorKind::InvalidInput, source, QStringLiteral("the reference has other channels"));
            return result;
        }
        for (std::size_t i = 0; i < mine.channels.size(); ++i)
            result.luts.push_back(hs::matchingLut(mine.channels[i].counts, theirs.channels[i].counts));
        hs::PhaseTimings applied;
        result.error = Error::fromStatus(e.applyLuts(subView(in, to), result.luts, mask, outAt, stride, &applied), source);
        result.engineMs = mine.timings.totalMs() + theirs.timings.totalMs() + applied.totalMs();
        return result;
    }
    }
    return result;
}

bool isColour(const Frame& f) { return f.channels() >= 3; }

// Y of OpenCV's YCrCb (BT.601) and the three planes, for a colour frame of any order.
cv::Mat toYCrCb(const Frame& f)
{
    cv::Mat colour = matOf(f), ycc;
    const bool rgb = f.channelOrder() == ChannelOrder::Rgb || f.channelOrder() == ChannelOrder::Rgba;
    if (f.channels() == 4) {
        cv::Mat three;
        cv::cvtColor(colour, three, rgb ? cv::COLOR_RGBA2RGB : cv::COLOR_BGRA2BGR);
        colour = three;
    }
    cv::cvtColor(colour, ycc, rgb ? cv::COLOR_RGB2YCrCb : cv::COLOR_BGR2YCrCb);
    return ycc;
}

}  // namespace

namespace {

// The whole equalization of one request on `e`; pictures made here, off the GUI thread.
Equalization runOn(hs::HistogramEngine& e, const EqualizeRequest& request)
{
    Equalization out;
    out.method = request.method;
    out.input = request.frame;
    const Frame& frame = request.frame;
    if (frame.isNull()) {
        out.error = Error::make(ErrorKind::InvalidInput, request.source, QStringLiteral("nothing to equalize"));
        return out;
    }
    out.inputPreview = previewFrame(frame);
    if (frame.type() != hs::SampleType::U8 && frame.type() != hs::SampleType::U16) {
        out.error = Error::make(ErrorKind::UnsupportedType, request.source,
                                QStringLiteral("equalization needs an 8- or 16-bit image; this one has %1 samples")
                                    .arg(QString::fromStdString(std::string(hs::sampleTypeName(frame.type())))));
        return out;
    }
    const Frame& reference = request.reference;
    if (request.method == EqualizeMethod::Match) {
        if (reference.isNull() || reference.type() != frame.type()) {
            out.error = Error::make(ErrorKind::InvalidInput, request.source,
                                    reference.isNull() ? QStringLiteral("no reference to match")
                                                       : QStringLiteral("the reference has another sample type (%1, not %2)")
                                                             .arg(QString::fromStdString(std::string(hs::sampleTypeName(reference.type()))),
                                                                  QString::fromStdString(std::string(hs::sampleTypeName(frame.type())))));
            return out;
        }
    }
    // The region, clipped to the frame; none when it is ignored or empty.
    std::optional<hs::Rect> region;
    if (request.roi && request.region != EqualizeRegion::WholeImage) {
        const qint64 x0 = std::clamp<qint64>(request.roi->x, 0, frame.width());
        const qint64 y0 = std::clamp<qint64>(request.roi->y, 0, frame.height());
        const qint64 x1 = std::clamp<qint64>(request.roi->x + request.roi->width, 0, frame.width());
        const qint64 y1 = std::clamp<qint64>(request.roi->y + request.roi->height, 0, frame.height());
        if (x1 > x0 && y1 > y0)
            region = hs::Rect{x0, y0, x1 - x0, y1 - y0};
    }
    out.region = region ? request.region : EqualizeRegion::WholeImage;
    const bool luminance = request.channels == EqualizeChannels::Luminance && isColour(frame);
    out.channels = luminance ? EqualizeChannels::Luminance : EqualizeChannels::PerChannel;

    out.backend = e.hasGpu() ? QStringLiteral("GPU (%1)").arg(QString::fromStdString(e.deviceInfo()->name)) : QStringLiteral("CPU");
    const std::size_t stride = std::size_t(frame.width()) * std::size_t(frame.channels()) * hs::sampleSize(frame.type());
    auto pixels = std::make_shared<std::vector<unsigned char>>(stride * std::size_t(frame.height()));
    // Start from the input: what is not changed (alpha, outside the region) stays as it was.
    matOf(frame).copyTo(cv::Mat(int(frame.height()), int(frame.width()), matOf(frame).type(), pixels->data(), stride));
    PlaneResult planes;
    std::optional<LumaRecombination> recombined;   // luminance modes
    if (luminance) {
        // Y alone (OpenCV's YCrCb, BT.601): counted and mapped exactly by the same code as a gray
        // image, then put back with the colour (below).
        cv::Mat yPlane;
        cv::extractChannel(toYCrCb(frame), yPlane, 0);
        const Frame y = frameOfMat(yPlane, frame.type(), ChannelOrder::Gray);
        Frame yReference;
        if (request.method == EqualizeMethod::Match) {
            cv::Mat referenceY;
            if (isColour(reference))
                cv::extractChannel(toYCrCb(reference), referenceY, 0);
            else
                cv::extractChannel(matOf(reference), referenceY, 0);
            yReference = frameOfMat(referenceY, reference.type(), ChannelOrder::Gray);
        }
        cv::Mat yOut = yPlane.clone();
        planes = equalizePlanes(e, request, y, {true, false, false, false}, yReference, region, yOut.data, yOut.step[0]);
        if (planes.error.isError()) {
            out.error = planes.error;
            return out;
        }
        // The new Y put back with the colour, mixed with black or white so the hue is kept and
        // nothing clipped (LumaRecombination.h); alpha stays as copied.
        recombined = recombineLuma(frame, y, frameOfMat(yOut, frame.type(), ChannelOrder::Gray), pixels->data(), stride);
        out.wouldClip = recombined->wouldClip;
        out.lutNames = {QStringLiteral("Y")};
    } else {
        if (request.method == EqualizeMethod::Match && reference.channels() != frame.channels()) {
            out.error = Error::make(ErrorKind::InvalidInput, request.source,
                                    QStringLiteral("matching each channel needs a reference with the same channels (%1, not %2); "
                                                   "match the luminance instead")
                                        .arg(frame.channels())
                                        .arg(reference.channels()));
            return out;
        }
        const ChannelMask mask = colourChannels(frame);
        planes = equalizePlanes(e, request, frame, mask, reference, region, pixels->data(), stride);
        if (planes.error.isError()) {
            out.error = planes.error;
            return out;
        }
        for (int c = 0; c < frame.channels(); ++c)
            if (mask[std::size_t(c)])
                out.lutNames << channelName(frame.channelOrder(), c);
    }
    out.luts = std::move(planes.luts);
    out.engineMs = planes.engineMs;
    if (request.method == EqualizeMethod::Clahe)
        out.backend = QStringLiteral("OpenCV on the CPU; histograms on %1").arg(out.backend);
    Frame equalized(std::shared_ptr<const void>(pixels, pixels->data()), pixels->data(), frame.type(), frame.width(),
                    frame.height(), frame.channels(), stride, frame.channelOrder());
    equalized.setNominalRange(frame.nominalLo(), frame.nominalHi());
    const ChannelMask shown = colourChannels(frame);
    out.error = Error::fromStatus(e.compute(valueRequest(frame.view(), shown), out.before), request.source);
    if (!out.error.isError())
        out.error = Error::fromStatus(e.compute(valueRequest(equalized.view(), shown), out.after), request.source);
    out.equalized = equalized;
    out.equalizedPreview = previewFrame(equalized);
    // Where the result meets the ends of the range, from its one-bin-per-value histograms.
    out.pixels = quint64(frame.width()) * quint64(frame.height());
    const int colourCount = isColour(frame) ? 3 : 1;
    for (int display = 0; display < colourCount; ++display) {
        const int storage = frame.storageIndexOfDisplayChannel(display);
        ChannelRangeCounts c;
        c.channel = channelName(frame.channelOrder(), storage);
        if (recombined && storage < 3) {
            c.below = recombined->below[std::size_t(storage)];
            c.above = recombined->above[std::size_t(storage)];
        }
        for (const hs::ChannelHistogram& h : out.after.channels)
            if (h.channel == storage && !h.counts.empty()) {
                c.atLowest = h.counts.front();
                c.atHighest = h.counts.back();
            }
        out.range.append(c);
    }
    return out;
}

// Formats OpenCV writes with 16 bits per sample; the others keep 8.
bool keepsSixteenBits(const QString& suffix)
{
    static const QStringList wide{"png", "tif", "tiff", "pgm", "ppm", "pnm"};
    return wide.contains(suffix.toLower());
}

// Why `frame` cannot be written to `path` in the format its extension names (none: it can).
Error formatProblem(const QString& path, const Frame& frame)
{
    const QString suffix = QFileInfo(path).suffix();
    if (suffix.isEmpty())
        return Error::make(ErrorKind::WriteFailed, path, QStringLiteral("the name has no extension to choose a format by (add .png or .tif)"));
    Error unavailable;
    const bool writable = canSaveFormat(path, suffix, unavailable);
    if (unavailable.isError())
        return unavailable;
    if (!writable)
        return Error::make(ErrorKind::WriteFailed, path,
                           QStringLiteral("no image format is known by the extension .%1 (use .png or .tif)").arg(suffix));
    if (frame.type() == hs::SampleType::U16 && !keepsSixteenBits(suffix))
        return Error::make(ErrorKind::WriteFailed, path,
                           QStringLiteral(".%1 keeps 8 bits per sample and this image has 16 (use .png or .tif)").arg(suffix));
    return {};
}

Equalization equalizeOnce(hs::HistogramEngine& engine, const EqualizeRequest& request)
{
    try {
        return runOn(engine, request);
    } catch (const std::exception& e) {   // OpenCV or allocation: answered, never thrown through Qt
        Equalization failed;
        failed.input = request.frame;
        failed.method = request.method;
        failed.channels = request.channels;
        failed.error = Error::make(ErrorKind::Engine, request.source, QString::fromUtf8(e.what()).trimmed());
        return failed;
    }
}

}  // namespace

EqualizationService::EqualizationService(QObject* parent)
    : QObject(parent), m_worker(this, QStringLiteral("equalization"), {})
{
    qRegisterMetaType<EqualizationPtr>();
    qRegisterMetaType<Error>();
}

EqualizationService::~EqualizationService() = default;

quint64 EqualizationService::equalize(const EqualizeRequest& request)
{
    const quint64 id = ++m_lastId;
    m_worker.post(
        [id, request](EngineHolder<hs::HistogramEngine>& holder) {
            auto result = std::make_shared<Equalization>(holder.run(
                request.useGpu, [&](hs::HistogramEngine& engine) { return equalizeOnce(engine, request); },
                [](const Equalization& e) { return deviceFaultOf(e.error); }));
            result->id = id;
            result->engineSerial = holder.serial();
            result->deviceNotice = holder.takeNotice();
            return EqualizationPtr(result);
        },
        [this](EqualizationPtr result) {
            if (!result->deviceNotice.isEmpty())
                emit deviceNotice(result->deviceNotice);
            emit equalized(std::move(result));
        });
    return id;
}

quint64 EqualizationService::save(const QString& path, const Frame& frame)
{
    const quint64 id = ++m_lastId;
    m_worker.post(
        [path, frame](EngineHolder<hs::HistogramEngine>&) {
            Error error;
            try {
                error = frame.isNull() ? Error::make(ErrorKind::InvalidInput, path, QStringLiteral("nothing to save"))
                                       : formatProblem(path, frame);
                if (!error.isError())
                    error = saveFrame(path, frame);
            } catch (const std::exception& e) {
                error = Error::make(ErrorKind::WriteFailed, path, QString::fromUtf8(e.what()).trimmed());
            }
            return error;
        },
        [this, id, path](const Error& error) { emit saved(id, path, error); });
    return id;
}

QString equalizedSavePath(const QString& path, const QString& chosenSuffix, const QString& source, hs::SampleType type)
{
    if (path.isEmpty() || !QFileInfo(path).suffix().isEmpty())
        return path;
    QString suffix = chosenSuffix;
    if (suffix.isEmpty()) {
        const QString own = QFileInfo(source).suffix().toLower();
        Error unused;  // without the image module the save says why, with the name chosen here
        const bool writable = !own.isEmpty() && canSaveFormat(path, own, unused);
        suffix = writable && (type != hs::SampleType::U16 || keepsSixteenBits(own)) ? own : QStringLiteral("png");
    }
    return path + '.' + suffix;
}
