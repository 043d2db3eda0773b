#include "app/cli/BatchCommand.h"

#include "app/cli/BatchOptions.h"
#include "app/cli/Console.h"
#include "app/cli/FileCounter.h"
#include "app/cli/Interrupts.h"
#include "app/cli/OutputSink.h"
#include "app/cli/StdinInput.h"
#include "io/AtomicFile.h"
#include "io/DecoderLog.h"
#include "io/MemoryBudget.h"

#include "histoscope/HistogramEngine.h"

#include <QDir>
#include <QElapsedTimer>
#include <QHash>
#include <QThreadPool>

#include <cstdio>
#include <deque>
#include <memory>
#include <unistd.h>

namespace {

class Progress {
public:
    explicit Progress(qint64 total) : m_total(total), m_enabled(isatty(STDERR_FILENO)) { m_timer.start(); }
    void update(qint64 done, bool force = false)
    {
        if (!m_enabled || (!force && m_last.isValid() && m_last.elapsed() < 100))
            return;
        m_last.start();
        const double seconds = std::max(1e-3, m_timer.elapsed() / 1000.0);
        const double rate = double(done) / seconds;
        const qint64 eta = rate > 0 ? qint64(double(m_total - done) / rate) : 0;
        const int width = 30, filled = m_total ? int(width * done / m_total) : width;
        printErrorText(QStringLiteral("\r[%1%2] %3/%4 files  %5 files/s  ETA %6:%7 ")
                       .arg(QString(filled, '='), QString(width - filled, ' '))
                       .arg(done).arg(m_total).arg(rate, 0, 'f', 1)
                       .arg(eta / 60, 2, 10, QChar('0')).arg(eta % 60, 2, 10, QChar('0')));
    }
    void finish()
    {
        if (m_enabled)
            printErrorText(QStringLiteral("\n"));
    }
    double seconds() const { return m_timer.elapsed() / 1000.0; }

private:
    qint64 m_total;
    bool m_enabled;
    QElapsedTimer m_timer;
    QElapsedTimer m_last;
};

// Plots and equalized images mirror the input tree under their folder, so a/b_c.png and
// a_b/c.png stay apart; two inputs that would still share a name are a usage error.
QString mirrored(const QString& dir, const InputFile& input, const QString& suffix)
{
    return dir.isEmpty() ? QString() : QDir(dir).filePath(input.relative + suffix);
}

QString findCollision(const QList<InputFile>& files, const QString& dir, const QString& suffix)
{
    if (dir.isEmpty())
        return {};
    QHash<QString, InputFile> owners;
    for (const InputFile& f : files) {
        const QString name = mirrored(dir, f, suffix);
        const auto it = owners.constFind(name);
        if (it != owners.cend())
            return QStringLiteral("%1 and %2 would both write %3; %4")
                .arg(it->path, f.path, name,
                     it->named && f.named ? QStringLiteral("give the folders that hold them instead of the files, so the outputs mirror "
                                                           "the folders, or run them separately")
                                          : QStringLiteral("give one folder above both, so the outputs mirror the folders under it, "
                                                           "or run them separately"));
        owners.insert(name, f);
    }
    return {};
}

class BatchRun {
public:
    BatchRun(const BatchOptions& options, const ExpandedInputs& inputs, OutputSink& sink)
        : m_options(options), m_inputs(inputs), m_sink(sink), m_progress(inputs.files.size())
    {
        m_pool.setMaxThreadCount(options.jobs);
    }
    int run();

private:
    void fail(const QString& path, const Error& error);
    bool write(const HistogramRecord& record, FileJob& job);
    bool drain(FileJob& job);
    void finishFile(FileJob& job);
    bool writeLine(const QByteArray& line);

    const BatchOptions& m_options;
    const ExpandedInputs& m_inputs;
    OutputSink& m_sink;
    Progress m_progress;
    QThreadPool m_pool;
    QStringList m_failed;
    Error m_outputError;
    int m_csvBins = -1;
    int m_abandoned = 0;
    qint64 m_counted = 0, m_done = 0, m_frames = 0, m_records = 0;
};

bool BatchRun::writeLine(const QByteArray& line)
{
    if (m_outputError.isError())
        return false;
    return m_sink.writeLine(line, m_outputError);
}

void BatchRun::fail(const QString& path, const Error& error)
{
    m_failed << path;
    printError(QStringLiteral("error: %1\n").arg(error.message()));
}

bool BatchRun::write(const HistogramRecord& record, FileJob& job)
{
    if (m_options.longLayout) {
        const bool csv = m_options.format == RecordFormat::Csv;
        if (csv && m_csvBins < 0) {
            m_csvBins = 0;  // one header for every bin count
            if (!writeLine(RecordCodec::longCsvHeader()))
                return false;
        }
        if (!writeLine(csv ? RecordCodec::longCsvLines(record) : RecordCodec::longJsonLines(record)))
            return false;
        ++m_records;
        return true;
    }
    if (m_options.format == RecordFormat::JsonLines) {
        if (!writeLine(RecordCodec::jsonLine(record)))
            return false;
        ++m_records;
        return true;
    }
    const int bins = int(record.histogram.counts.size());
    if (m_csvBins < 0) {
        m_csvBins = bins;
        if (!writeLine(RecordCodec::csvHeader(bins)))
            return false;
    }
    if (bins != m_csvBins) {
        // One CSV file has one column layout; this file's records do not fit it.
        job.cancel();
        return false;
    }
    if (!writeLine(RecordCodec::csvLine(record)))
        return false;
    ++m_records;
    return true;
}

// Writes the job's records as they come; false when the file was given up on.
bool BatchRun::drain(FileJob& job)
{
    const auto slice = std::chrono::milliseconds(100);
    job.setFront();
    HistogramRecord record;
    for (;;) {
        switch (job.wait(record, slice)) {
        case FileJob::Event::Record:
            if (!write(record, job)) {
                job.cancel();
                if (!m_outputError.isError())
                    fail(job.input().path, Error::make(ErrorKind::InvalidInput, job.input().path,
                                                       QStringLiteral("%1 bins do not fit this CSV output's %2 count columns (one "
                                                                      "column layout per CSV file: give --bins N, or use --format jsonl)")
                                                           .arg(record.histogram.counts.size()).arg(m_csvBins)));
                return false;
            }
            continue;
        case FileJob::Event::Done:
            return true;
        case FileJob::Event::Idle:
            if (Interrupts::requested()) {
                job.cancel();
                return false;
            }
            if (m_options.fileTimeout > 0 && job.idleMilliseconds() > qint64(m_options.fileTimeout * 1000)) {
                job.cancel();
                // The worker is stuck inside a decoder and cannot be stopped: leave it, and
                // give the pool a thread in its place.
                ++m_abandoned;
                m_pool.setMaxThreadCount(m_options.jobs + m_abandoned);
                if (!Interrupts::requested())
                    fail(job.input().path, Error::make(ErrorKind::TimedOut, job.input().path,
                                                       QStringLiteral("no progress for %1 s (the decoder hangs); given up (--file-timeout)")
                                                           .arg(m_options.fileTimeout)));
                return false;
            }
            continue;
        }
    }
}

void BatchRun::finishFile(FileJob& job)
{
    for (const QString& w : job.warnings())
        printError(QStringLiteral("warning: %1\n").arg(w));
    if (job.error().isError()) {
        fail(job.input().path, job.error());
        return;
    }
    ++m_counted;
    m_frames += job.frames();
}

int BatchRun::run()
{
    for (const Error& problem : m_inputs.failed)
        fail(problem.source, problem);
    for (const QString& note : m_inputs.notes)
        printNotice(QStringLiteral("note: %1\n").arg(note));
    // Every entry found is accounted for: what was not taken is counted (-v names each).
    for (const QString& line : skippedSummary(m_inputs, verbosity() == Verbosity::Verbose))
        printNotice(QStringLiteral("note: %1\n").arg(line));
    const QList<InputFile>& files = m_inputs.files;
    std::deque<std::shared_ptr<FileJob>> inFlight;
    qsizetype next = 0;
    const int window = 2 * m_options.jobs;  // decoded frames of at most this many files in memory
    while ((next < files.size() || !inFlight.empty()) && !Interrupts::requested() && !m_outputError.isError()) {
        while (next < files.size() && int(inFlight.size()) < window) {
            auto job = std::make_shared<FileJob>(files[next++]);
            const FileOutputs outputs{mirrored(m_options.plotDir, job->input(), QStringLiteral(".svg")),
                                      mirrored(m_options.equalizeDir, job->input(), QStringLiteral(".png"))};
            const BatchOptions* options = &m_options;
            // The job is shared: a worker given up on still holds it when it returns.
            m_pool.start([job, options, outputs] { countFile(*job, *options, outputs); });
            inFlight.push_back(job);
        }
        std::shared_ptr<FileJob> job = inFlight.front();
        inFlight.pop_front();
        const bool finished = drain(*job);
        if (Interrupts::requested() || m_outputError.isError())
            break;  // a file cut short by the interrupt is neither finished nor called failed
        ++m_done;
        if (finished)
            finishFile(*job);
        m_progress.update(m_done);
    }
    for (auto& job : inFlight)
        job->cancel();
    const bool interrupted = Interrupts::requested();
    const qint64 failedCount = m_failed.size();
    if (!interrupted && !m_outputError.isError()) {
        const bool csv = m_options.format == RecordFormat::Csv;
        if (csv && m_csvBins < 0 && writeLine(m_options.longLayout ? RecordCodec::longCsvHeader() : RecordCodec::csvHeader(0)))
            m_csvBins = 0;
        const RunSummary summary{m_records, m_counted, failedCount, m_frames};
        writeLine(!csv ? RecordCodec::summaryJsonLine(summary)
                       : m_options.longLayout ? RecordCodec::longSummaryCsvLine(summary) : RecordCodec::summaryCsvLine(summary, m_csvBins));
    }
    if (!m_outputError.isError())
        m_sink.close(m_outputError);
    m_progress.update(m_done, true);
    m_progress.finish();
    for (const QString& m : decoderlog::takeUnattributed())
        printError(QStringLiteral("warning: the decoder (FFmpeg) reports, while several videos were decoded at once: %1\n").arg(m));
    printError(QStringLiteral("%1 %2 of %3 input(s), %4 frame(s), %5 record(s), %6 failed, %7 s (%8 files/s)\n")
                   .arg(interrupted ? "interrupted after" : "counted")
                   .arg(m_counted)
                   .arg(m_inputs.found())
                   .arg(m_frames)
                   .arg(m_records)
                   .arg(failedCount)
                   .arg(m_progress.seconds(), 0, 'f', 2)
                   .arg(double(m_done) / std::max(1e-3, m_progress.seconds()), 0, 'f', 1));
    if (!m_failed.isEmpty()) {
        printError(QStringLiteral("failed:\n"));
        for (const QString& f : m_failed)
            printError(QStringLiteral("  %1\n").arg(f));
    }
    int code = failedCount ? 1 : 0;
    if (interrupted) {
        printError(QStringLiteral("interrupted: %1 holds %2 whole line(s) and no summary record\n").arg(m_sink.name()).arg(m_sink.lines()));
        code = 130;
    }
    if (m_outputError.isError()) {
        printError(QStringLiteral("error: %1\n").arg(m_outputError.message()));
        code = 3;
    }
    // Cancelled workers stop at their next frame; one stuck in a decoder never returns and
    // cannot be joined. Everything is written by now, so the process may end without it.
    const int grace = interrupted ? 3000 : m_options.fileTimeout > 0 ? int(m_options.fileTimeout * 1000) : -1;
    if (m_abandoned || !m_pool.waitForDone(grace)) {
        std::fflush(nullptr);
        _exit(code);
    }
    return code;
}

}  // namespace

int runBatchCommand(const QStringList& arguments)
{
    // First, before any thread exists, so that every thread inherits the blocked signals.
    Interrupts::install();
    QCommandLineParser parser;
    BatchOptions options;
    Error problem;
    auto usage = [](const QString& text) {
        printError(QStringLiteral("histoscope-cli batch: %1\n").arg(text));
        return 2;
    };
    if (!parseBatchOptions(arguments, parser, options, problem))
        return usage(problem.message());
    if (options.action != CommonAction::Run)
        return printCommonAction(parser, QStringLiteral("batch"), options.action);
    {
        hs::HistogramEngine probe(hs::EngineOptions{options.histogram.counting.useGpu});
        if (!checkStrategyAvailable(options.histogram.counting, probe.hasGpu(), problem))
            return usage(problem.message());
        if (!probe.notice().empty())
            printNotice(QStringLiteral("note: %1\n").arg(QString::fromStdString(probe.notice())));
    }
    if (!options.jobsNote.isEmpty())
        printNotice(QStringLiteral("note: %1\n").arg(options.jobsNote));

    // Standard input, named once ("-"), is read from a copy.
    StdinInput stdinInput;
    for (const QString& named : parser.positionalArguments()) {
        if (!StdinInput::names(named))
            continue;
        if (!options.inputs.stdinName.isEmpty())
            return usage(QStringLiteral("standard input (%1) can be read once").arg(named));
        if (!stdinInput.copy(named, problem))
            return problem.kind == ErrorKind::Usage ? usage(problem.message()) : (printError(QStringLiteral("error: %1\n").arg(problem.message())), 1);
        options.inputs.stdinName = named;
        options.inputs.stdinCopy = stdinInput.path();
    }
    const ExpandedInputs inputs = expandInputs(parser.positionalArguments(), options.inputs);
    const QStringList named = parser.positionalArguments();
    if (!options.output.isEmpty()) {
        const Error conflict = outputConflict(options.output, false, inputs, named, options.inputs.recursive);
        if (conflict.isError())
            return usage(conflict.message());
    }
    for (const QString& dir : {options.equalizeDir, options.plotDir}) {
        if (dir.isEmpty())
            continue;
        const Error conflict = outputConflict(dir, true, inputs, named, options.inputs.recursive);
        if (conflict.isError())
            return usage(conflict.message());
    }
    for (const auto& [dir, suffix] : {std::pair{options.plotDir, QStringLiteral(".svg")}, std::pair{options.equalizeDir, QStringLiteral(".png")}}) {
        const QString collision = findCollision(inputs.files, dir, suffix);
        if (!collision.isEmpty())
            return usage(collision);
        if (!dir.isEmpty()) {
            const Error made = makeFolders(dir);
            if (made.isError())
                return usage(made.message());
        }
    }

    Interrupts::setExitNote(QStringLiteral("the output has no summary record, so merge treats it as unfinished"));
    OutputSink sink;
    Error error;
    if (!sink.open(options.output, error)) {
        printError(QStringLiteral("histoscope-cli batch: %1\n").arg(error.message()));
        return error.kind == ErrorKind::Locked ? 2 : 3;  // another run holds it: a usage error
    }
    BatchRun run(options, inputs, sink);
    return run.run();
}
