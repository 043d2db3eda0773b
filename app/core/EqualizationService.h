// Histogram equalization off the GUI thread, on one engine that lives as long as the service
// (a QThread running an EqualizationWorker; the engine, with its CUDA stream and buffers, is
// created there once and re-created only when the GPU choice changes). Requests are one-shot
// jobs: queued invocations run in order, none replaced, and every request answers with an
// immutable Equalization carrying its id, pictures made off the GUI thread, and any Error.
#pragma once

#include "io/Error.h"
#include "io/Frame.h"

#include "histoscope/HistogramTypes.h"

#include <QObject>
#include <QThread>

#include <memory>
#include <vector>

enum class EqualizeMethod { Global, Clahe };

struct EqualizeRequest {
    Frame frame;                 // u8 or u16, 1 to 4 channels
    QString source;              // names the input in errors
    EqualizeMethod method = EqualizeMethod::Global;
    double clipLimit = 2.0;      // CLAHE only
    bool useGpu = true;
};

struct Equalization {
    quint64 id = 0;                       // what equalize() returned
    EqualizeMethod method = EqualizeMethod::Global;
    Frame input;
    Frame equalized;                      // same size, depth and channels as the input
    Frame inputPreview;                   // 8-bit RGB pictures, made on the service's thread
    Frame equalizedPreview;
    // Global only: per equalized channel (colour channels; alpha is left alone), in storage
    // order, 256 or 65536 entries: v -> round((cdf(v) - cdf_min) * (levels - 1) / (n - cdf_min)).
    std::vector<std::vector<std::uint32_t>> luts;
    hs::HistogramResult before;           // of the equalized channels, one bin per value
    hs::HistogramResult after;
    QString backend;
    double engineMs = 0;                  // global: histogram, CDF, LUT and apply
    quint64 engineSerial = 0;             // which engine ran it: 1 for the service's first
    Error error;
};
using EqualizationPtr = std::shared_ptr<const Equalization>;
Q_DECLARE_METATYPE(EqualizationPtr)

class EqualizationWorker;

class EqualizationService : public QObject {
    Q_OBJECT

public:
    explicit EqualizationService(QObject* parent = nullptr);
    ~EqualizationService() override;

    // Each returns the job's id; the answer (equalized or saved) carries it.
    quint64 equalize(const EqualizeRequest& request);
    quint64 save(const QString& path, const Frame& frame);   // native depth, through io/FrameWriter

signals:
    void equalized(EqualizationPtr result);
    void saved(quint64 id, const QString& path, const Error& error);

private:
    QThread m_thread;
    EqualizationWorker* m_worker = nullptr;   // lives on m_thread
    quint64 m_lastId = 0;
};
