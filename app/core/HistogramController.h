// Owns the engine on a worker thread. The GUI submits frames; results come back as immutable
// snapshots tagged with a generation number, and only the newest request is ever computed:
// a request that arrives while another waits replaces it.
#pragma once

#include "io/Frame.h"
#include "app/core/HistogramSettings.h"

#include "histoscope/HistogramStatistics.h"
#include "histoscope/HistogramTypes.h"

#include <QObject>
#include <QThread>

#include <memory>
#include <mutex>
#include <optional>

struct HistogramSnapshot {
    quint64 generation = 0;
    Frame frame;                          // the frame counted (names its channels)
    HistogramSettings settings;
    std::optional<hs::Rect> roi;
    hs::HistogramResult result;
    std::optional<hs::ChannelHistogram> luma;
    // Computed on the worker, so the GUI thread only lays them out: parallel to result.channels.
    std::vector<hs::ChannelStatistics> statistics;
    std::optional<hs::ChannelStatistics> lumaStatistics;
    QString error;
    double wallMs = 0;
};

struct StrategyTiming {
    hs::Strategy strategy = hs::Strategy::Auto;
    hs::Strategy ran = hs::Strategy::Auto;
    double milliseconds = 0;       // engine phase total (events on the GPU, wall time on the CPU)
    bool exact = false;
    QString error;
};

struct StrategyComparison {
    quint64 generation = 0;
    std::vector<StrategyTiming> timings;
    QString backend;
};

using SnapshotPtr = std::shared_ptr<const HistogramSnapshot>;
using ComparisonPtr = std::shared_ptr<const StrategyComparison>;
Q_DECLARE_METATYPE(SnapshotPtr)
Q_DECLARE_METATYPE(ComparisonPtr)

class HistogramWorker;

class HistogramController : public QObject {
    Q_OBJECT

public:
    explicit HistogramController(QObject* parent = nullptr);
    ~HistogramController() override;

    // Returns the request's generation; results of older generations are dropped.
    quint64 submit(const Frame& frame, const HistogramSettings& settings, std::optional<hs::Rect> roi);
    void compareStrategies(const Frame& frame, const HistogramSettings& settings, std::optional<hs::Rect> roi);
    QString backendDescription() const;

signals:
    void resultReady(SnapshotPtr snapshot);
    void comparisonReady(ComparisonPtr comparison);
    void backendChanged(const QString& description);

private:
    friend class HistogramWorker;
    struct Job {
        Frame frame;
        HistogramSettings settings;
        std::optional<hs::Rect> roi;
        quint64 generation = 0;
        bool compare = false;
    };
    std::optional<Job> takeJob();
    quint64 enqueue(Job job);

    QThread m_thread;
    HistogramWorker* m_worker = nullptr;
    mutable std::mutex m_mutex;
    std::optional<Job> m_pending;
    bool m_scheduled = false;
    quint64 m_generation = 0;
    QString m_backend;
};
