#include "app/cli/BatchCommand.h"

#include "app/cli/BatchInputs.h"
#include "app/cli/CliOptions.h"
#include "app/core/FrameRequest.h"
#include "io/FrameSource.h"
#include "io/FrameWriter.h"
#include "app/core/HistogramExport.h"
#include "app/cli/HistogramPlotSvg.h"

#include "histoscope/HistogramEngine.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QFuture>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QTextStream>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <deque>
#include <mutex>
#include <unistd.h>

namespace {

std::atomic<bool> g_interrupted{false};
void onInterrupt(int) { g_interrupted = true; }

enum class Format { Csv, JsonLines };

struct BatchOptions {
    CliHistogramOptions histogram;
    BatchInputOptions inputs;
    Format format = Format::JsonLines;
    bool perFrame = false;
    QString equalizeDir;
    QString plotDir;
    bool allDevices = false;
};

struct FileOutcome {
    QString path;
    QStringList lines;
    QStringList warnings;
    QString error;
    qint64 frames = 0;
};

// One engine per worker thread: engines on a GPU each have their own stream, so the threads'
// uploads and counts overlap each other's decoding.
hs::HistogramEngine& threadEngine(const BatchOptions& options)
{
    thread_local std::unique_ptr<hs::HistogramEngine> engine;
    if (!engine) {
        static std::atomic<int> next{0};
        const int devices = std::max(1, hs::HistogramEngine::cudaDeviceCount());
        hs::EngineOptions e;
        e.useGpu = options.histogram.counting.useGpu;
        e.device = options.allDevices ? next++ % devices : 0;
        e.cpuThreads = 1;  // the batch is already parallel over files
        engine = std::make_unique<hs::HistogramEngine>(e);
    }
    return *engine;
}

void appendRecords(FileOutcome& outcome, const BatchOptions& options, const Frame& frame,
                   const hs::HistogramResult& result, qint64 frameIndex)
{
    for (const auto& [name, h] : displayOrderedChannels(frame, result)) {
        const ChannelRecord record{outcome.path, frameIndex, name, h, statisticsContext(frame, *h)};
        outcome.lines << (options.format == Format::Csv
                              ? csvLine(record)
                              : QString::fromUtf8(QJsonDocument(recordJson(record)).toJson(QJsonDocument::Compact)));
    }
}

QString outputName(const QString& dir, const QString& path, const QString& suffix)
{
    // Folder-qualified so that a/x.png and b/x.png do not collide.
    QString base = QFileInfo(path).filePath();
    base.replace(QRegularExpression(QStringLiteral("[/\\\\:]+")), QStringLiteral("_"));
    base.remove(QRegularExpression(QStringLiteral("^[._]+")));
    return QDir(dir).filePath(base + suffix);
}

FileOutcome processFile(const QString& path, const BatchOptions& options)
{
    FileOutcome outcome;
    outcome.path = path;
    Error error;
    auto source = openFrameSource(path, options.histogram.raw, error);
    if (!source) {
        outcome.error = error.message();
        return outcome;
    }
    outcome.warnings = source->warnings;
    hs::HistogramEngine& engine = threadEngine(options);
    const bool perFrame = options.perFrame && source->kind() == FrameSource::MediaKind::Video;
    hs::HistogramResult total;
    Frame frame, first;
    while (!g_interrupted && source->next(frame, error)) {
        const hs::HistogramRequest request = frameRequest(frame, options.histogram.counting);
        hs::HistogramResult result;
        const bool accumulate = !perFrame && outcome.frames > 0;
        const hs::Status status = accumulate ? engine.accumulate(request, total) : engine.compute(request, perFrame ? result : total);
        if (!status) {
            outcome.error = path + QStringLiteral(": ") + QString::fromStdString(status.message);
            return outcome;
        }
        if (perFrame)
            appendRecords(outcome, options, frame, result, outcome.frames);
        if (outcome.frames++ == 0)
            first = frame;
    }
    if (error.isError()) {
        outcome.error = error.message();
        outcome.lines.clear();  // a file that fails part-way is reported, not half-counted
        return outcome;
    }
    if (outcome.frames == 0) {
        outcome.error = path + QStringLiteral(": no frames");
        return outcome;
    }
    if (!perFrame)
        appendRecords(outcome, options, first, total, -1);
    if (!options.plotDir.isEmpty() && !perFrame) {
        QFile svg(outputName(options.plotDir, path, QStringLiteral(".svg")));
        if (svg.open(QIODevice::WriteOnly))
            svg.write(histogramSvg(path, displayOrderedChannels(first, total)).toUtf8());
        else
            outcome.warnings << svg.fileName() + QStringLiteral(": ") + svg.errorString();
    }
    if (!options.equalizeDir.isEmpty() && source->kind() != FrameSource::MediaKind::Video) {
        if (first.type() == hs::SampleType::U8 || first.type() == hs::SampleType::U16) {
            const std::size_t stride = std::size_t(first.width()) * first.channels() * hs::sampleSize(first.type());
            auto pixels = std::make_shared<std::vector<unsigned char>>(stride * std::size_t(first.height()));
            hs::EqualizeResult eq;
            const hs::Status s = engine.equalize(first.view(), pixels->data(), stride, eq,
                                                 {true, first.channels() != 2, true, false});
            const Frame out(std::shared_ptr<const void>(pixels, pixels->data()), pixels->data(), first.type(), first.width(),
                            first.height(), first.channels(), stride, first.channelOrder());
            const Error saved = s ? saveFrame(outputName(options.equalizeDir, path, QStringLiteral(".png")), out)
                                      : Error::make(ErrorKind::UnsupportedType, path, QString::fromStdString(s.message));
            if (saved.isError())
                outcome.warnings << saved.message();
        } else {
            outcome.warnings << path + QStringLiteral(": not equalized (only 8- and 16-bit images are)");
        }
    }
    return outcome;
}

class Progress {
public:
    explicit Progress(qint64 total) : m_total(total), m_enabled(isatty(fileno(stderr))) { m_timer.start(); }
    void update(qint64 done, bool force = false)
    {
        if (!m_enabled || (!force && m_last.isValid() && m_last.elapsed() < 100))
            return;
        m_last.start();
        const double seconds = std::max(1e-3, m_timer.elapsed() / 1000.0);
        const double rate = double(done) / seconds;
        const qint64 eta = rate > 0 ? qint64(double(m_total - done) / rate) : 0;
        const int width = 30, filled = m_total ? int(width * done / m_total) : width;
        std::fprintf(stderr, "\r[%s%s] %lld/%lld files  %.1f files/s  ETA %02lld:%02lld ",
                     QByteArray(filled, '=').constData(), QByteArray(width - filled, ' ').constData(), (long long)done,
                     (long long)m_total, rate, (long long)(eta / 60), (long long)(eta % 60));
        std::fflush(stderr);
    }
    void finish()
    {
        if (m_enabled)
            std::fprintf(stderr, "\n");
    }
    double seconds() const { return m_timer.elapsed() / 1000.0; }

private:
    qint64 m_total;
    bool m_enabled;
    QElapsedTimer m_timer;
    QElapsedTimer m_last;
};

bool parseBatchOptions(const QStringList& arguments, QCommandLineParser& parser, BatchOptions& options, QString& error)
{
    parser.setApplicationDescription(QStringLiteral(
        "Histograms of files and folders as CSV or JSON Lines (schema histoscope.histogram/1, see docs/SCHEMA.md).\n"
        "Exit code: 0 all inputs counted, 1 some inputs failed (listed on stderr), 2 usage error."));
    parser.addHelpOption();
    addHistogramOptions(parser);
    parser.addOptions({
        {{"r", "recursive"}, "Descend into sub-folders."},
        {"include", "Only files whose name matches GLOB (repeatable).", "GLOB"},
        {"exclude", "Skip files whose name matches GLOB (repeatable).", "GLOB"},
        {"per-frame", "One record per video frame instead of the sum over frames."},
        {"format", "csv or jsonl.", "FORMAT", "jsonl"},
        {{"o", "output"}, "Write records to FILE instead of stdout.", "FILE"},
        {"equalize-dir", "Also write equalized images (8/16-bit) into DIR.", "DIR"},
        {"plot-dir", "Also write an SVG plot per file into DIR.", "DIR"},
        {{"j", "jobs"}, "Files decoded and counted at once (default: one per core).", "N"},
        {"devices", "Spread the work over every GPU of the host."},
        {"shard", "Process only share I of N of the sorted inputs (0-based), e.g. 3/8.", "I/N"},
    });
    parser.addPositionalArgument("paths", "Files and folders.", "PATH...");
    if (!parser.parse(arguments)) {
        error = parser.errorText();
        return false;
    }
    if (parser.isSet("help"))
        return true;
    if (!readHistogramOptions(parser, options.histogram, error))
        return false;
    options.inputs.recursive = parser.isSet("recursive");
    options.inputs.include = parser.values("include");
    options.inputs.exclude = parser.values("exclude");
    options.inputs.acceptAnyFile = options.histogram.raw.has_value();
    options.perFrame = parser.isSet("per-frame");
    const QString format = parser.value("format");
    if (format != "csv" && format != "jsonl") {
        error = QStringLiteral("--format takes csv or jsonl");
        return false;
    }
    options.format = format == "csv" ? Format::Csv : Format::JsonLines;
    options.equalizeDir = parser.value("equalize-dir");
    options.plotDir = parser.value("plot-dir");
    options.allDevices = parser.isSet("devices");
    if (parser.isSet("shard")) {
        const QStringList parts = parser.value("shard").split('/');
        bool okI = false, okN = false;
        if (parts.size() == 2) {
            options.inputs.shardIndex = parts[0].toInt(&okI);
            options.inputs.shardCount = parts[1].toInt(&okN);
        }
        if (!okI || !okN || options.inputs.shardCount < 1 || options.inputs.shardIndex < 0
            || options.inputs.shardIndex >= options.inputs.shardCount) {
            error = QStringLiteral("--shard takes I/N with 0 <= I < N, e.g. 0/4");
            return false;
        }
    }
    if (parser.positionalArguments().isEmpty()) {
        error = QStringLiteral("give at least one file or folder");
        return false;
    }
    return true;
}

}  // namespace

int runBatchCommand(const QStringList& arguments)
{
    QTextStream err(stderr);
    QCommandLineParser parser;
    BatchOptions options;
    QString problem;
    if (!parseBatchOptions(arguments, parser, options, problem)) {
        err << "histoscope-cli batch: " << problem << "\n";
        return 2;
    }
    if (parser.isSet("help")) {
        QTextStream(stdout) << parser.helpText();
        return 0;
    }
    for (const QString& dir : {options.equalizeDir, options.plotDir})
        if (!dir.isEmpty() && !QDir().mkpath(dir)) {
            err << "histoscope-cli batch: cannot create " << dir << "\n";
            return 2;
        }
    QStringList missing;
    const QStringList files = expandInputs(parser.positionalArguments(), options.inputs, missing);

    QFile outFile;
    if (parser.isSet("output")) {
        outFile.setFileName(parser.value("output"));
        if (!outFile.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Text)) {
            err << "histoscope-cli batch: " << outFile.fileName() << ": " << outFile.errorString() << "\n";
            return 2;
        }
    } else {
        outFile.open(stdout, QIODevice::WriteOnly | QIODevice::Text);
    }
    auto writeLine = [&](const QString& line) {
        // Whole lines, flushed: an interrupted run leaves a file whose every line is complete.
        outFile.write((line + '\n').toUtf8());
        outFile.flush();
    };

    {
        hs::HistogramEngine probe(hs::EngineOptions{options.histogram.counting.useGpu});
        if (!probe.notice().empty())
            err << "note: " << QString::fromStdString(probe.notice()) << "\n";
    }
    std::signal(SIGINT, onInterrupt);
    std::signal(SIGTERM, onInterrupt);
    QThreadPool pool;
    const int jobs = parser.isSet("jobs") ? std::max(1, parser.value("jobs").toInt()) : QThread::idealThreadCount();
    pool.setMaxThreadCount(jobs);

    QStringList failed = missing;
    for (const QString& m : missing)
        err << "error: " << m << ": no such file or folder\n";
    int csvBins = -1;
    qint64 frames = 0, done = 0, records = 0;
    Progress progress(files.size());
    std::deque<QFuture<FileOutcome>> inFlight;
    int next = 0;
    const int window = 2 * jobs;  // bounded: decoded frames of at most this many files in memory
    while ((next < files.size() || !inFlight.empty()) && !g_interrupted) {
        while (next < files.size() && int(inFlight.size()) < window)
            inFlight.push_back(QtConcurrent::run(&pool, processFile, files[next++], options));
        FileOutcome outcome = inFlight.front().result();
        inFlight.pop_front();
        if (g_interrupted)
            break;  // a file cut short by the interrupt is neither written nor called failed
        ++done;
        for (const QString& w : outcome.warnings)
            err << "warning: " << w << "\n";
        if (!outcome.error.isEmpty()) {
            failed << outcome.path;
            err << "error: " << outcome.error << "\n";
        } else {
            frames += outcome.frames;
            for (const QString& line : outcome.lines) {
                if (options.format == Format::Csv && csvBins < 0) {
                    csvBins = line.section(',', 4, 4).toInt();
                    writeLine(csvHeader(csvBins));
                }
                writeLine(line);
                ++records;
            }
        }
        err.flush();
        progress.update(done);
    }
    for (auto& f : inFlight)
        f.waitForFinished();
    progress.update(done, true);
    progress.finish();
    err << QStringLiteral("%1 %2 of %3 file(s), %4 frame(s), %5 record(s), %6 failed, %7 s (%8 files/s)\n")
               .arg(g_interrupted ? "interrupted after" : "counted")
               .arg(done - (failed.size() - missing.size()))
               .arg(files.size())
               .arg(frames)
               .arg(records)
               .arg(failed.size())
               .arg(progress.seconds(), 0, 'f', 2)
               .arg(double(done) / std::max(1e-3, progress.seconds()), 0, 'f', 1);
    if (!failed.isEmpty()) {
        err << "failed:\n";
        for (const QString& f : failed)
            err << "  " << f << "\n";
    }
    if (g_interrupted)
        return 130;
    return failed.isEmpty() ? 0 : 1;
}

namespace {

struct MergedChannel {
    QString channel;
    qint64 bins = 0;
    double lo = 0;
    double hi = 0;
    std::vector<std::uint64_t> counts;
    std::uint64_t below = 0, above = 0, nan = 0;
    int files = 0;
};

}  // namespace

int runMergeCommand(const QStringList& arguments)
{
    QTextStream err(stderr);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Adds the histograms of batch outputs (for example one per shard) into one record per channel, exactly."));
    parser.addHelpOption();
    parser.addOptions({{"format", "Output: csv or jsonl.", "FORMAT", "jsonl"}, {{"o", "output"}, "Output file.", "FILE"}});
    parser.addPositionalArgument("files", "Batch outputs (.jsonl or .csv).", "FILE...");
    if (!parser.parse(arguments) || parser.positionalArguments().isEmpty()) {
        err << "histoscope-cli merge: " << (parser.errorText().isEmpty() ? QStringLiteral("give batch outputs to merge") : parser.errorText()) << "\n";
        return 2;
    }
    if (parser.isSet("help")) {
        QTextStream(stdout) << parser.helpText();
        return 0;
    }
    QMap<QString, MergedChannel> merged;  // key: channel|bins|lo|hi
    QStringList order;
    int failures = 0;
    for (const QString& path : parser.positionalArguments()) {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly | QIODevice::Text)) {
            err << "error: " << path << ": " << file.errorString() << "\n";
            ++failures;
            continue;
        }
        int lineNumber = 0;
        while (!file.atEnd()) {
            const QByteArray line = file.readLine().trimmed();
            ++lineNumber;
            if (line.isEmpty() || line.startsWith("schema,"))
                continue;
            MergedChannel record;
            QString source;
            bool ok = true;
            if (line.startsWith('{')) {
                const QJsonObject o = QJsonDocument::fromJson(line).object();
                ok = o["schema"].toString() == QLatin1String(kRecordSchema);
                record.channel = o["channel"].toString();
                record.bins = o["bins"].toInteger();
                record.lo = o["lo"].toDouble();
                record.hi = o["hi"].toDouble();
                for (const QJsonValue v : o["counts"].toArray())
                    record.counts.push_back(std::uint64_t(v.toInteger()));
                const QJsonObject s = o["statistics"].toObject();
                record.below = std::uint64_t(s["below"].toInteger());
                record.above = std::uint64_t(s["above"].toInteger());
                record.nan = std::uint64_t(s["nan"].toInteger());
            } else {
                // CSV: the file name may be quoted; the numeric columns follow it.
                QStringList fields;
                QString current;
                bool quoted = false;
                for (int i = 0; i < line.size(); ++i) {
                    const char ch = line[i];
                    if (quoted && ch == '"' && i + 1 < line.size() && line[i + 1] == '"') { current += '"'; ++i; }
                    else if (ch == '"') quoted = !quoted;
                    else if (ch == ',' && !quoted) { fields << current; current.clear(); }
                    else current += QChar(ch);
                }
                fields << current;
                ok = fields.size() >= 16 && fields[0] == QLatin1String(kRecordSchema);
                if (ok) {
                    record.channel = fields[3];
                    record.bins = fields[4].toLongLong();
                    record.lo = fields[5].toDouble();
                    record.hi = fields[6].toDouble();
                    record.below = fields[13].toULongLong();
                    record.above = fields[14].toULongLong();
                    record.nan = fields[15].toULongLong();
                    for (int i = 16; i < fields.size(); ++i)
                        record.counts.push_back(fields[i].toULongLong());
                }
            }
            if (!ok || record.counts.size() != std::size_t(record.bins)) {
                err << "error: " << path << ":" << lineNumber << ": not a " << kRecordSchema << " record\n";
                ++failures;
                continue;
            }
            const QString key = QStringLiteral("%1|%2|%3|%4").arg(record.channel).arg(record.bins).arg(record.lo, 0, 'g', 17).arg(record.hi, 0, 'g', 17);
            auto it = merged.find(key);
            if (it == merged.end()) {
                record.files = 1;
                merged.insert(key, record);
                order << key;
            } else {
                for (std::size_t b = 0; b < record.counts.size(); ++b)
                    it->counts[b] += record.counts[b];
                it->below += record.below;
                it->above += record.above;
                it->nan += record.nan;
                ++it->files;
            }
        }
    }
    QFile out;
    if (parser.isSet("output")) {
        out.setFileName(parser.value("output"));
        if (!out.open(QIODevice::WriteOnly | QIODevice::Text)) {
            err << "histoscope-cli merge: " << out.fileName() << ": " << out.errorString() << "\n";
            return 2;
        }
    } else {
        out.open(stdout, QIODevice::WriteOnly | QIODevice::Text);
    }
    // A canonical order, whatever order the inputs came in: gray, R, G, B, A, luma, then bins.
    static const QStringList rank{"gray", "R", "G", "B", "A", "luma"};
    std::stable_sort(order.begin(), order.end(), [&](const QString& a, const QString& b) {
        const MergedChannel &x = merged[a], &y = merged[b];
        const int rx = rank.indexOf(x.channel), ry = rank.indexOf(y.channel);
        if (rx != ry)
            return rx < ry;
        return x.bins != y.bins ? x.bins < y.bins : (x.lo != y.lo ? x.lo < y.lo : x.hi < y.hi);
    });
    const bool csv = parser.value("format") == "csv";
    bool header = false;
    for (const QString& key : order) {
        const MergedChannel& m = merged[key];
        hs::ChannelHistogram h;
        h.binning.bins = std::uint32_t(m.bins);
        h.binning.lo = m.lo;
        h.binning.hi = m.hi;
        h.counts = m.counts;
        h.below = m.below;
        h.above = m.above;
        h.nan = m.nan;
        const ChannelRecord record{QStringLiteral("merged:%1").arg(m.files), -1, m.channel, &h, {}};
        if (csv && !header) {
            out.write((csvHeader(int(m.bins)) + '\n').toUtf8());
            header = true;
        }
        out.write(((csv ? csvLine(record) : QString::fromUtf8(QJsonDocument(recordJson(record)).toJson(QJsonDocument::Compact))) + '\n').toUtf8());
    }
    return failures ? 1 : 0;
}
