#include "app/cli/FileCounter.h"

#include "app/cli/HistogramPlotSvg.h"
#include "app/cli/FirstFrameRequest.h"
#include "app/cli/Interrupts.h"
#include "app/core/EngineHolder.h"
#include "app/core/FrameRequest.h"
#include "io/AtomicFile.h"
#include "io/FrameSource.h"
#include "io/FrameWriter.h"

#include "histoscope/HistogramEngine.h"

#include <QFileInfo>

#include <thread>

namespace {

// One engine per worker thread: engines on a GPU each have their own stream, so the threads'
// uploads and counts overlap each other's decoding. The holder rebuilds it after a GPU fault.
EngineHolder<hs::HistogramEngine>& threadEngine(const BatchOptions& options)
{
    thread_local std::unique_ptr<EngineHolder<hs::HistogramEngine>> holder;
    if (!holder) {
        static std::atomic<int> next{0};
        const int devices = std::max(1, hs::HistogramEngine::cudaDeviceCount());
        hs::EngineOptions e;
        e.device = options.allDevices ? next++ % devices : 0;
        e.cpuThreads = 1;  // the batch is already parallel over files
        holder = std::make_unique<EngineHolder<hs::HistogramEngine>>(e);
    }
    return *holder;
}

// What one pass over a file ends with. `fault`: the cause when the device was lost part-way,
// so the file is counted again on the rebuilt engine.
struct Outcome {
    Error error;
    QStringList warnings;
    qint64 frames = 0;
    QString fault;
};

// Fault injection for tst_cli_hostile: a decoder that never returns, which no real file makes
// reliably. HISTOSCOPE_TEST_STALL_ON=TEXT[@N] hangs the worker of a file whose path contains
// TEXT, after N frames (default 0), as a stuck OpenCV call would. Set only by the tests.
void stallIfAsked(const QString& path, qint64 frames)
{
    static const QStringList parts = qEnvironmentVariable("HISTOSCOPE_TEST_STALL_ON").split('@');
    if (parts.first().isEmpty() || !path.contains(parts.first()) || frames != parts.value(1).toLongLong())
        return;
    for (;;)
        std::this_thread::sleep_for(std::chrono::hours(1));
}

// An input read from elsewhere (stdin's copy) is named as the user named it.
QString shownAsGiven(const InputFile& input, QString text)
{
    return input.openPath.isEmpty() ? text : text.replace(input.openPath, input.path);
}

QStringList shownAsGiven(const InputFile& input, QStringList texts)
{
    for (QString& t : texts)
        t = shownAsGiven(input, t);
    return texts;
}

Error shownAsGiven(const InputFile& input, Error error)
{
    error.source = shownAsGiven(input, error.source);
    error.cause = shownAsGiven(input, error.cause);
    return error;
}

bool pushRecords(FileJob& job, const Frame& frame, const hs::HistogramResult& result, qint64 frameIndex,
                 const QStringList& warnings)
{
    for (const auto& [name, h] : displayOrderedChannels(frame, result))
        if (!job.push({job.input().path, frameIndex, name, *h, frame.type(), std::nullopt, shownAsGiven(job.input(), warnings)}))
            return false;
    return true;
}

// `outcome`: what became of the file's records, said after the cause.
Error strictFailure(const QString& path, const QStringList& warnings, const QString& outcome)
{
    return Error::make(ErrorKind::InvalidInput, path,
                       QStringLiteral("failed under --strict: %1 warning(s), the first: %2")
                               .arg(QString::number(warnings.size()), warnings.first()) + outcome);
}

Error withOutcome(Error error, const QString& outcome)
{
    error.cause += outcome;
    return error;
}

QString equalize(hs::HistogramEngine& engine, const Frame& first, const QString& path, const QString& target)
{
    if (first.type() != hs::SampleType::U8 && first.type() != hs::SampleType::U16)
        return path + QStringLiteral(": not equalized (only 8- and 16-bit images are)");
    const std::size_t stride = std::size_t(first.width()) * first.channels() * hs::sampleSize(first.type());
    auto pixels = std::make_shared<std::vector<unsigned char>>(stride * std::size_t(first.height()));
    hs::EqualizeResult eq;
    const hs::Status s = engine.equalize(first.view(), pixels->data(), stride, eq, {true, first.channels() != 2, true, false});
    if (!s)
        return path + QStringLiteral(": not equalized (%1)").arg(QString::fromStdString(s.message));
    const Frame out(std::shared_ptr<const void>(pixels, pixels->data()), pixels->data(), first.type(), first.width(),
                    first.height(), first.channels(), stride, first.channelOrder());
    Error error = makeFolders(QFileInfo(target).path());
    if (!error.isError())
        error = saveFrame(target, out);
    return error.isError() ? error.message() : QString();
}

// One pass over the file on `engine`. With --per-frame, records of the first `pushedFrames`
// frames were written by a pass that faulted: this pass counts them again but does not write
// them twice. `notice`: a fault survived before this pass, carried by its records.
Outcome countOnce(FileJob& job, const BatchOptions& options, const FileOutputs& outputs, hs::HistogramEngine& engine,
                  const QString& notice, qint64& pushedFrames)
{
    const QString& path = job.input().path;
    QStringList warnings;
    qint64 frames = 0;
    auto finish = [&](const Error& error) { return Outcome{error, warnings, frames, {}}; };
    // The watchdog's time starts when a worker takes the file, not when it was queued: a file
    // queued behind a stuck one would otherwise be given up before its first beat (the first
    // open also loads a codec module, which takes a moment).
    job.beat();
    stallIfAsked(path, 0);
    SourceOptions sourceOptions;
    sourceOptions.raw = options.histogram.raw;
    sourceOptions.memoryBudget = options.fileBudget;
    sourceOptions.streamChunks = true;
    // A file that needs more than the others leave waits for them, beating its watchdog.
    sourceOptions.pool = options.memory.get();
    sourceOptions.keepWaiting = [&job] {
        job.beat();
        return !job.cancelled() && !Interrupts::requested();
    };
    // The file whose records the main thread waits for may take memory beyond the budget when
    // the files holding it make no progress (their records wait behind this one's).
    sourceOptions.mayExceed = [&job] { return job.isFront(); };
    Error error;
    auto source = openFrameSource(job.input().source(), sourceOptions, error);
    job.beat();
    if (!source)
        return finish(job.cancelled() || Interrupts::requested() ? Error() : error);
    // --per-frame: a video's frames, and a multi-page image's pages, each a record.
    const bool perFrame = options.perFrame
                       && (source->kind() == FrameSource::MediaKind::Video
                           || (source->kind() == FrameSource::MediaKind::Image && source->frameCount() > 1));
    const bool strict = options.histogram.strict;
    hs::HistogramResult total;
    Frame frame, first;
    FileBinning binning(*source, options.histogram.counting, perFrame);
    binning.setBincountKeys(!options.histogram.binsGiven && !options.histogram.rangeGiven);
    QStringList notices;  // settings that could not apply, named by the file
    qint64 delivered = 0, outOfRangeFrames = 0;
    QString firstOutOfRange;
    // The warnings a record of this file carries: the source's (each names the file), the
    // notices, and the share of samples outside the range when it is more than 0.1 %.
    QStringList sourceWarnings;  // kept once the source is closed
    auto recordWarnings = [&](const QString& outOfRange) {
        QStringList w = (source ? source->warnings : sourceWarnings) + notices;
        if (!notice.isEmpty())
            w << path + QStringLiteral(": ") + notice;
        if (!outOfRange.isEmpty())
            w << path + QStringLiteral(": ") + outOfRange;
        return w;
    };
    while (!job.cancelled() && !Interrupts::requested() && source->next(frame, error)) {
        job.beat();
        if (delivered > 0)
            stallIfAsked(path, delivered);
        if (delivered == 0)
            if (const Error missing = missingChannel(frame, options.histogram.channels, path); missing.isError())
                return finish(missing);
        if (const Error differs = binning.mismatch(frame, delivered, path); differs.isError())
            return finish(differs);
        const hs::HistogramRequest request = binning.requestFor(frame);
        if (delivered == 0)
            for (const QString& n : binning.notices())
                notices << path + QStringLiteral(": ") + n;
        hs::HistogramResult result;
        const bool accumulate = !perFrame && delivered > 0;
        const hs::Status status = accumulate ? engine.accumulate(request, total) : engine.compute(request, perFrame ? result : total);
        if (status.code == hs::ErrorCode::DeviceLost)
            return Outcome{{}, {}, 0, QString::fromStdString(status.message)};
        if (!status)
            return finish(Error::fromStatus(status, path));
        if (perFrame) {
            const QString outOfRange = outOfRangeWarning(result);
            if (!outOfRange.isEmpty() && outOfRangeFrames++ == 0)
                firstOutOfRange = QStringLiteral("frame %1: %2").arg(delivered).arg(outOfRange);
            const QStringList w = recordWarnings(outOfRange);
            if (strict && !w.isEmpty()) {
                warnings = source->warnings + notices;
                if (!outOfRange.isEmpty())
                    warnings << QStringLiteral("%1: %2").arg(path, firstOutOfRange);
                return finish(strictFailure(path, w, delivered ? QStringLiteral(" (the first %1 frame(s) are in the output)").arg(delivered)
                                                               : QString()));
            }
            if (delivered >= pushedFrames) {
                if (!pushRecords(job, frame, result, delivered, w))
                    return finish({});
                pushedFrames = delivered + 1;
            }
        }
        if (delivered++ == 0)
            first = frame;
    }
    // Closed before the records are handed over: its decoded pages go back to the shared memory
    // budget now, so a file waiting for room never waits on one whose records wait to be written.
    const FrameSource::MediaKind kind = source->kind();
    sourceWarnings = source->warnings;
    source.reset();
    // Said once per file on stderr: --per-frame records carry each frame's share outside the range.
    const QString outOfRange = perFrame ? QString() : outOfRangeWarning(total);
    warnings = recordWarnings(outOfRange);
    if (outOfRangeFrames)
        warnings << QStringLiteral("%1: %2 of %3 frame(s) have more than 0.1 % of their samples outside the counted range (%4)")
                        .arg(path).arg(outOfRangeFrames).arg(delivered).arg(firstOutOfRange);
    frames = kind == FrameSource::MediaKind::Array ? std::min<qint64>(delivered, 1) : delivered;
    if (job.cancelled() || Interrupts::requested())
        return finish({});
    if (error.isError() && (perFrame || delivered == 0 || strict))
        return finish(perFrame && delivered ? withOutcome(error, QStringLiteral(" (the first %1 frame(s) are in the output)").arg(delivered))
                                            : error);
    if (error.isError()) {
        // A decoder error part-way: the frames before it are counted and written, marked, and
        // the file is still listed as failed.
        const QString kept = QStringLiteral("the record holds the %1 frame(s) decoded before it").arg(delivered);
        if (!pushRecords(job, first, total, -1, recordWarnings(outOfRange) << error.message() + QStringLiteral("; ") + kept))
            return finish({});
        return finish(withOutcome(error, QStringLiteral(" (%1)").arg(kept)));
    }
    if (delivered == 0)
        return finish(Error::make(ErrorKind::Empty, path, QStringLiteral("no frames")));
    if (strict && !warnings.isEmpty())
        return finish(strictFailure(path, warnings, perFrame ? QStringLiteral(" (the %1 frame(s) are in the output)").arg(delivered)
                                                             : QStringLiteral("; no record written")));
    if (!perFrame && !pushRecords(job, first, total, -1, warnings))
        return finish({});
    if (!outputs.plot.isEmpty() && !perFrame) {
        Error saved = makeFolders(QFileInfo(outputs.plot).path());
        if (!saved.isError())
            saved = writeFileAtomically(outputs.plot, histogramSvg(path, displayOrderedChannels(first, total)).toUtf8());
        if (saved.isError())
            warnings << saved.message();
    }
    if (!outputs.equalized.isEmpty() && kind != FrameSource::MediaKind::Video) {
        const QString problem = kind == FrameSource::MediaKind::Array && delivered > 1
                                  ? path + QStringLiteral(": not equalized (converted arrays are counted in chunks, never whole)")
                                  : equalize(engine, first, path, outputs.equalized);
        if (!problem.isEmpty())
            warnings << problem;
    }
    return finish({});
}

}  // namespace

void countFile(FileJob& job, const BatchOptions& options, const FileOutputs& outputs)
{
    EngineHolder<hs::HistogramEngine>& holder = threadEngine(options);
    qint64 pushedFrames = 0;
    const Outcome outcome = holder.run(
        options.histogram.counting.useGpu,
        [&](hs::HistogramEngine& engine) { return countOnce(job, options, outputs, engine, holder.notice(), pushedFrames); },
        [](const Outcome& o) { return o.fault; });
    if (!outcome.fault.isEmpty())   // the CPU engine cannot fault; kept for a device that can
        return job.finish(Error::make(ErrorKind::DeviceLost, job.input().path, QStringLiteral("the GPU faulted (%1)").arg(outcome.fault)),
                          outcome.warnings, 0);
    holder.takeNotice();   // carried by the file's warnings (and records) already
    job.finish(shownAsGiven(job.input(), outcome.error), shownAsGiven(job.input(), outcome.warnings), outcome.frames);
}
