#include "app/core/EqualizationService.h"

#include "io/FrameWriter.h"
#include "app/core/PreviewFrame.h"

#include "histoscope/HistogramEngine.h"

#include <opencv2/imgproc.hpp>

#include <array>

// The service's side on its own thread: owns the one engine.
class EqualizationWorker : public QObject {
    Q_OBJECT

public:
    void equalize(quint64 id, const EqualizeRequest& request);
    void save(quint64 id, const QString& path, const Frame& frame);

signals:
    void equalized(EqualizationPtr result);
    void saved(quint64 id, const QString& path, const Error& error);

private:
    hs::HistogramEngine& engine(bool useGpu);
    Equalization run(const EqualizeRequest& request);

    std::unique_ptr<hs::HistogramEngine> m_engine;
    bool m_engineUsesGpu = false;
    quint64 m_engineSerial = 0;
};

namespace {

// Colour channels are equalized each on its own; alpha is left alone.
std::array<bool, hs::kMaxChannels> equalizedChannels(const Frame& frame)
{
    return {true, frame.channels() != 2, true, false};
}

// Contrast-limited adaptive equalization through OpenCV on the CPU, each colour channel on its
// own (alpha untouched).
Error claheInto(const Frame& frame, const QString& source, unsigned char* out, std::size_t stride, double clipLimit)
{
    const int depth = frame.type() == hs::SampleType::U8 ? CV_8U : CV_16U;
    const cv::Mat in(int(frame.height()), int(frame.width()), CV_MAKETYPE(depth, frame.channels()),
                     const_cast<unsigned char*>(frame.data()), frame.strideBytes());
    cv::Mat result(in.rows, in.cols, in.type(), out, stride);
    try {
        auto clahe = cv::createCLAHE(clipLimit, cv::Size(8, 8));
        std::vector<cv::Mat> planes;
        cv::split(in, planes);
        const int colour = frame.channels() == 2 ? 1 : std::min(frame.channels(), 3);
        for (int c = 0; c < colour; ++c)
            clahe->apply(planes[std::size_t(c)], planes[std::size_t(c)]);
        cv::merge(planes, result);
    } catch (const cv::Exception& e) {
        return Error::make(ErrorKind::Engine, source, QStringLiteral("CLAHE failed: ") + QString::fromStdString(e.msg).trimmed());
    }
    return {};
}

// One bin per value of the equalized channels.
hs::HistogramRequest valueRequest(const Frame& frame)
{
    hs::HistogramRequest request = hs::makeRequest(frame.view(), hs::defaultBinning(frame.type()));
    const auto channels = equalizedChannels(frame);
    for (int c = 0; c < hs::kMaxChannels; ++c)
        request.binning[c].active = channels[std::size_t(c)];
    return request;
}

}  // namespace

hs::HistogramEngine& EqualizationWorker::engine(bool useGpu)
{
    if (!m_engine || m_engineUsesGpu != useGpu) {
        m_engine = std::make_unique<hs::HistogramEngine>(hs::EngineOptions{useGpu});
        m_engineUsesGpu = useGpu;
        ++m_engineSerial;
    }
    return *m_engine;
}

Equalization EqualizationWorker::run(const EqualizeRequest& request)
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
    hs::HistogramEngine& e = engine(request.useGpu);
    out.engineSerial = m_engineSerial;
    out.backend = e.hasGpu() ? QString::fromStdString(e.deviceInfo()->name) : QStringLiteral("CPU");
    const std::size_t stride = std::size_t(frame.width()) * std::size_t(frame.channels()) * hs::sampleSize(frame.type());
    auto pixels = std::make_shared<std::vector<unsigned char>>(stride * std::size_t(frame.height()));
    if (request.method == EqualizeMethod::Clahe) {
        out.error = claheInto(frame, request.source, pixels->data(), stride, request.clipLimit);
        if (out.error.isError())
            return out;
        out.error = Error::fromStatus(e.compute(valueRequest(frame), out.before), request.source);
        if (out.error.isError())
            return out;
        out.backend += QStringLiteral(" (CLAHE by OpenCV on the CPU)");
    } else {
        hs::EqualizeResult result;
        out.error = Error::fromStatus(e.equalize(frame.view(), pixels->data(), stride, result, equalizedChannels(frame)),
                                      request.source);
        if (out.error.isError())
            return out;
        out.luts = std::move(result.luts);
        out.before = std::move(result.histogram);
        out.engineMs = result.timings.totalMs();
    }
    Frame equalized(std::shared_ptr<const void>(pixels, pixels->data()), pixels->data(), frame.type(), frame.width(),
                    frame.height(), frame.channels(), stride, frame.channelOrder());
    equalized.setNominalRange(frame.nominalLo(), frame.nominalHi());
    out.error = Error::fromStatus(e.compute(valueRequest(equalized), out.after), request.source);
    out.equalized = equalized;
    out.equalizedPreview = previewFrame(equalized);
    return out;
}

void EqualizationWorker::equalize(quint64 id, const EqualizeRequest& request)
{
    std::shared_ptr<Equalization> result;
    try {
        result = std::make_shared<Equalization>(run(request));
    } catch (const std::exception& e) {   // OpenCV or allocation: answered, never thrown through Qt
        result = std::make_shared<Equalization>();
        result->input = request.frame;
        result->method = request.method;
        result->error = Error::make(ErrorKind::Engine, request.source, QString::fromUtf8(e.what()).trimmed());
    }
    result->id = id;
    emit equalized(result);
}

void EqualizationWorker::save(quint64 id, const QString& path, const Frame& frame)
{
    Error error;
    try {
        error = frame.isNull() ? Error::make(ErrorKind::InvalidInput, path, QStringLiteral("nothing to save"))
                               : saveFrame(path, frame);
    } catch (const std::exception& e) {
        error = Error::make(ErrorKind::WriteFailed, path, QString::fromUtf8(e.what()).trimmed());
    }
    emit saved(id, path, error);
}

EqualizationService::EqualizationService(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<EqualizationPtr>();
    qRegisterMetaType<Error>();
    m_worker = new EqualizationWorker;
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    connect(m_worker, &EqualizationWorker::equalized, this, &EqualizationService::equalized);
    connect(m_worker, &EqualizationWorker::saved, this, &EqualizationService::saved);
    m_thread.setObjectName(QStringLiteral("equalization"));
    m_thread.start();
}

EqualizationService::~EqualizationService()
{
    m_thread.quit();
    m_thread.wait();
}

quint64 EqualizationService::equalize(const EqualizeRequest& request)
{
    const quint64 id = ++m_lastId;
    QMetaObject::invokeMethod(m_worker, [worker = m_worker, id, request] { worker->equalize(id, request); },
                              Qt::QueuedConnection);
    return id;
}

quint64 EqualizationService::save(const QString& path, const Frame& frame)
{
    const quint64 id = ++m_lastId;
    QMetaObject::invokeMethod(m_worker, [worker = m_worker, id, path, frame] { worker->save(id, path, frame); },
                              Qt::QueuedConnection);
    return id;
}

#include "EqualizationService.moc"
