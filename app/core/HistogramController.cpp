#include "app/core/HistogramController.h"

#include "app/core/HistogramWorker.h"

HistogramController::HistogramController(QObject* parent)
    : QObject(parent), m_frames(std::make_shared<LatestSlot<HistogramJob>>([](const HistogramJob& a, const HistogramJob& b) {
          return a.frameSerial != 0 && a.frameSerial == b.frameSerial;
      }))
{
    qRegisterMetaType<SnapshotPtr>();
    qRegisterMetaType<ComparisonPtr>();
    m_worker = new HistogramWorker(m_frames);
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    // Queued: the worker emits on its thread, these run on the controller's.
    connect(m_worker, &HistogramWorker::counted, this, &HistogramController::onCounted);
    connect(m_worker, &HistogramWorker::compared, this, &HistogramController::comparisonReady);
    connect(m_worker, &HistogramWorker::backendChanged, this, [this](const QString& description) {
        m_backend = description;
        emit backendChanged(description);
    });
    m_thread.setObjectName(QStringLiteral("histogram engine"));
    m_thread.start();
}

HistogramController::~HistogramController()
{
    m_frames->reset();
    m_thread.quit();   // queued jobs not yet started are discarded
    m_thread.wait();
}

quint64 HistogramController::submit(const Frame& frame, const HistogramSettings& settings, std::optional<hs::Rect> roi,
                                    qint64 frameIndex, quint64 frameSerial)
{
    const quint64 generation = ++m_generation;
    if (m_frames->put(HistogramJob{frame, settings, roi, generation, frameIndex, frameSerial}))
        QMetaObject::invokeMethod(m_worker, &HistogramWorker::countLatest, Qt::QueuedConnection);
    return generation;
}

quint64 HistogramController::compareStrategies(const Frame& frame, const HistogramSettings& settings,
                                               std::optional<hs::Rect> roi)
{
    const quint64 generation = ++m_generation;
    QMetaObject::invokeMethod(
        m_worker, [worker = m_worker, job = HistogramJob{frame, settings, roi, generation, -1, 0}] { worker->compare(job); },
        Qt::QueuedConnection);
    return generation;
}

void HistogramController::invalidate()
{
    m_floor = m_generation + 1;
    m_frames->reset();
}

void HistogramController::onCounted(SnapshotPtr snapshot)
{
    if (snapshot->generation <= m_delivered || snapshot->generation < m_floor) {
        ++m_stale;
        return;
    }
    m_delivered = snapshot->generation;
    emit resultReady(std::move(snapshot));
}
