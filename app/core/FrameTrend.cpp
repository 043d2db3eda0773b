#include "app/core/FrameTrend.h"

#include "app/core/FrameRequest.h"
#include "app/core/HistogramCounting.h"
#include "io/FrameSource.h"

#include "histoscope/HistogramEngine.h"

#include <QElapsedTimer>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>
#include <limits>

namespace {

// The colour (or gray) channels' statistics: alpha says nothing about exposure.
QVector<int> exposureChannels(const HistogramSnapshot& s)
{
    QVector<int> out;
    for (int i = 0; i < int(s.result.channels.size()) && i < int(s.statistics.size()); ++i)
        if (resultChannelName(s.frame, s.result.channels[std::size_t(i)]) != QStringLiteral("A"))
            out.append(i);
    return out;
}

}  // namespace

QString frameTrendMeanName(const HistogramSnapshot& s)
{
    if (s.lumaStatistics)
        return QObject::tr("mean luma");
    const QVector<int> channels = exposureChannels(s);
    if (channels.size() == 1)
        return QObject::tr("mean %1").arg(resultChannelName(s.frame, s.result.channels[std::size_t(channels.first())]));
    QStringList names;
    for (const auto& [name, h] : displayOrderedChannels(s.frame, s.result))
        if (name != QStringLiteral("A"))
            names << name;
    return QObject::tr("mean of %1").arg(names.join(QStringLiteral(", ")));
}

std::optional<FrameTrend> frameTrendOf(const HistogramSnapshot& s)
{
    const QVector<int> channels = exposureChannels(s);
    if (s.error.isError() || channels.isEmpty())
        return std::nullopt;
    FrameTrend t;
    t.frame = s.frameIndex;
    double sum = 0, clipped = 0, n = 0;
    bool clippingKnown = true;
    for (int i : channels) {
        const hs::ChannelStatistics& st = s.statistics[std::size_t(i)];
        sum += st.mean * double(st.count);
        n += double(st.count);
        if (st.clippedLowShare && st.clippedHighShare)
            clipped += (*st.clippedLowShare + *st.clippedHighShare) * double(st.count);
        else
            clippingKnown = false;
    }
    t.mean = s.lumaStatistics ? s.lumaStatistics->mean : n > 0 ? sum / n : 0;
    t.clippedShare = !clippingKnown ? std::numeric_limits<double>::quiet_NaN() : n > 0 ? clipped / n : 0;
    return t;
}

TrendScanner::TrendScanner(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<FrameTrend>();
    qRegisterMetaType<QVector<FrameTrend>>();
    qRegisterMetaType<Error>();
}

TrendScanner::~TrendScanner()
{
    cancel();
    // Every pass ever started, not only the newest: an older one may still be winding down, and
    // it talks to this object until it ends.
    for (QFuture<Error>& pass : m_passes)
        pass.waitForFinished();
}

void TrendScanner::cancel()
{
    if (m_cancel)
        m_cancel->store(true);
}

bool TrendScanner::isRunning() const
{
    return std::any_of(m_passes.begin(), m_passes.end(), [](const QFuture<Error>& f) { return f.isRunning(); });
}

quint64 TrendScanner::start(const QString& path, const HistogramSettings& settings, std::optional<hs::Rect> roi)
{
    cancel();
    m_passes.erase(std::remove_if(m_passes.begin(), m_passes.end(), [](const QFuture<Error>& f) { return f.isFinished(); }),
                   m_passes.end());
    const quint64 scan = ++m_scan;
    auto cancelled = std::make_shared<std::atomic<bool>>(false);
    m_cancel = cancelled;
    // The pass owns its source and its engine holder (created, used and destroyed on its pool
    // thread); batches come back as queued invocations on this object (which waits for every
    // pass before it goes), and the end as a continuation on this object's thread.
    auto pass = QtConcurrent::run([this, scan, cancelled, path, settings, roi]() -> Error {
        auto answer = [this, scan](QVector<FrameTrend> batch, qint64 done, qint64 total) {
            QMetaObject::invokeMethod(this, [this, scan, batch, done, total] { emit progress(scan, batch, done, total); },
                                      Qt::QueuedConnection);
        };
        try {
            Error error;
            std::unique_ptr<FrameSource> source = openFrameSource(path, std::nullopt, error);
            if (!source)
                return error;
            EngineHolder<hs::HistogramEngine> holder;
            const qint64 total = source->frameCount();
            QVector<FrameTrend> batch;
            QElapsedTimer sinceSent;
            sinceSent.start();
            qint64 index = 0;
            Frame frame;
            while (!cancelled->load()) {
                Error readError;
                if (!source->next(frame, readError)) {
                    answer(batch, index, total);
                    return readError;
                }
                const HistogramJob job{frame, settings, roi, 0, index, 0};
                // After a GPU fault the holder counts the frame again on its rebuilt engine.
                const std::shared_ptr<HistogramSnapshot> snapshot = holder.run(
                    settings.counting.useGpu, [&](hs::HistogramEngine& engine) { return countJob(engine, job); },
                    [](const std::shared_ptr<HistogramSnapshot>& s) { return deviceFaultOf(s->error); });
                if (snapshot->error.isError()) {
                    answer(batch, index, total);
                    return snapshot->error;
                }
                if (const auto t = frameTrendOf(*snapshot))
                    batch.append(*t);
                ++index;
                if (sinceSent.elapsed() >= 100) {   // a batch ten times a second, not a signal per frame
                    answer(std::exchange(batch, {}), index, total);
                    sinceSent.restart();
                }
            }
            return Error::make(ErrorKind::InvalidInput, path, QStringLiteral("the pass was cancelled"));
        } catch (const std::exception& e) {
            return Error::make(ErrorKind::DecodeFailed, path, QString::fromUtf8(e.what()).trimmed());
        }
    });
    // Not kept: the destructor waits for the pass itself, never for this continuation (which needs
    // this thread); Qt cancels it if this object goes first. A pass may already have ended here,
    // and then the continuation runs at once, inside start(), before the caller has the pass's id:
    // the end is posted once more so that it is always told from the event loop.
    pass.then(this, [this, scan](const Error& error) {
        QMetaObject::invokeMethod(this, [this, scan, error] { emit finished(scan, error); }, Qt::QueuedConnection);
    });
    m_passes.append(pass);
    return scan;
}
