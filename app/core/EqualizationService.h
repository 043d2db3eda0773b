// Histogram equalization off the GUI thread, on the app's one EngineWorker: one engine that
// lives as long as the service (made on the worker's thread once, re-made when the GPU choice
// changes or after a GPU fault, by the device-lost policy). Requests are one-shot jobs: run in
// order, none replaced, and every request answers with an immutable Equalization carrying its
// id, pictures made off the GUI thread, and any Error.
#pragma once

#include "common/Error.h"
#include "io/Frame.h"
#include "app/core/EngineWorker.h"

#include "histoscope/HistogramTypes.h"

#include <QObject>
#include <QThread>

#include <QStringList>
#include <QVector>

#include <memory>
#include <optional>
#include <vector>

enum class EqualizeMethod {
    Global,   // exact: LUT v -> round((cdf(v) - cdf_min) (L - 1) / (n - cdf_min)), on the engine (GPU when present)
    Clahe,    // contrast-limited adaptive, by OpenCV on the CPU
    Match,    // exact CDF matching to a reference image through a LUT (below), applied on the engine
};

// Which samples a colour image's equalization changes. Gray images have one channel either way.
enum class EqualizeChannels {
    Luminance,    // Y of OpenCV's YCrCb (BT.601) only; each pixel reaches its new Y mixed with black or
                  // white, so colours keep their hue and nothing is clipped (LumaRecombination.h)
    PerChannel,   // R, G and B each on its own (alpha is never changed)
};

// How a region of interest is respected (none given: the whole image).
enum class EqualizeRegion {
    WholeImage,      // the region is ignored
    InsideRegion,    // the LUT (or CLAHE) from the region, applied inside it; outside unchanged
    LutFromRegion,   // the LUT from the region, applied to the whole image (not for CLAHE)
};

struct EqualizeRequest {
    Frame frame;                 // u8 or u16, 1 to 4 channels
    QString source;              // names the input in errors
    EqualizeMethod method = EqualizeMethod::Global;
    EqualizeChannels channels = EqualizeChannels::Luminance;   // the default for colour images
    double clipLimit = 2.0;      // CLAHE only
    int tiles = 8;               // CLAHE only: the image is cut into tiles x tiles
    std::optional<hs::Rect> roi;
    EqualizeRegion region = EqualizeRegion::WholeImage;
    // Match only: the image whose distribution is matched (the same sample type; for per-channel
    // matching the same colour channels). Its whole area is the target.
    Frame reference;
    bool useGpu = true;
};

// How one colour channel of a result meets the ends of its sample range. True counts, over the
// whole image.
struct ChannelRangeCounts {
    QString channel;          // "R", "G", "B" or "gray"
    // Luminance modes only: pixels that the new luminance, with Cr and Cb kept, would have pushed
    // below 0 / above the top of this channel, and so clipped; mixing with black or white kept
    // them in (LumaRecombination.h). 0 for each channel on its own: a LUT maps inside the range.
    quint64 below = 0;
    quint64 above = 0;
    quint64 atLowest = 0;     // samples of the result at 0
    quint64 atHighest = 0;    // at the top of the type (255, 65535)
};

struct Equalization {
    quint64 id = 0;                       // what equalize() returned
    EqualizeMethod method = EqualizeMethod::Global;
    EqualizeChannels channels = EqualizeChannels::PerChannel;   // what was done (gray: PerChannel)
    EqualizeRegion region = EqualizeRegion::WholeImage;         // what was done (no region: WholeImage)
    Frame input;
    Frame equalized;                      // same size, depth and channels as the input
    Frame inputPreview;                   // 8-bit RGB pictures, made on the service's thread
    Frame equalizedPreview;
    // Global and Match: one LUT per changed channel (colour channels in storage order, or Y
    // alone in luminance mode), 256 or 65536 entries, named by lutNames ("R", "Y"...).
    // Global: v -> round((cdf(v) - cdf_min) * (levels - 1) / (n - cdf_min)).
    // Match:  v -> the smallest u with cdf_ref(u) / n_ref >= cdf(v) / n (integer arithmetic;
    //         hs::matchingLut in histoscope/HistogramMatching.h).
    // Both are applied by the engine (HistogramEngine::applyLuts or equalize): on the GPU when
    // there is one.
    std::vector<std::vector<std::uint32_t>> luts;
    QStringList lutNames;
    hs::HistogramResult before;           // of the equalized channels, one bin per value
    hs::HistogramResult after;
    QString backend;                      // where the engine ran: "GPU (device name)" or "CPU"
    double engineMs = 0;                  // global and match: histograms, LUT and apply
    quint64 engineSerial = 0;             // which engine ran it: 1 for the service's first
    QString deviceNotice;                 // a GPU fault survived while it ran (empty: none)
    QVector<ChannelRangeCounts> range;    // colour channels in display order (alpha left out)
    quint64 pixels = 0;                   // of the image: what range's counts are shares of
    quint64 wouldClip = 0;                // luminance modes: pixels that keeping Cr and Cb would have clipped
    Error error;
};
using EqualizationPtr = std::shared_ptr<const Equalization>;

Q_DECLARE_METATYPE(EqualizationPtr)

// The file Save Result writes: `path` as given when it has an extension; otherwise with
// `chosenSuffix` added (the save dialog's filter: "png", "tif"), or, without one, the source's own
// format when it keeps `type` whole (a 16-bit result is not put in an 8-bit format), else "png".
QString equalizedSavePath(const QString& path, const QString& chosenSuffix, const QString& source, hs::SampleType type);

class EqualizationService : public QObject {
    Q_OBJECT

public:
    explicit EqualizationService(QObject* parent = nullptr);
    ~EqualizationService() override;

    // Each returns the job's id; the answer (equalized or saved) carries it.
    quint64 equalize(const EqualizeRequest& request);
    // Native depth, through io/FrameWriter. A path without an extension, with one no image format
    // has, or with a format that would not keep the frame's depth is refused with an Error that
    // names the file and says why (see equalizedSavePath for adding the extension).
    quint64 save(const QString& path, const Frame& frame);

signals:
    void equalized(EqualizationPtr result);
    void saved(quint64 id, const QString& path, const Error& error);
    void deviceNotice(const QString& message);

private:
    struct NoLiveJobs {   // every job of the service is a one-shot
        quint64 generation = 0;
    };
    quint64 m_lastId = 0;
    EngineWorker<hs::HistogramEngine, NoLiveJobs, Equalization> m_worker;   // last: stopped first
};
