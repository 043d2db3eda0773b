#include "app/cli/CliHistogramCommand.h"

#include "app/cli/CliOptions.h"
#include "app/cli/Console.h"
#include "app/cli/FirstFrameRequest.h"
#include "app/cli/Interrupts.h"
#include "app/cli/OutputSink.h"
#include "app/cli/StdinInput.h"
#include "app/core/RecordCodec.h"
#include "app/core/FrameRequest.h"
#include "app/core/StatisticsText.h"
#include "io/FrameSource.h"

#include "app/core/EngineHolder.h"

#include "histoscope/HistogramEngine.h"
#include "histoscope/HistogramStatistics.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

namespace {

// Each column shows the mean count of the bins it covers, so a flat histogram draws a flat line
// whether the bins are fewer than the columns (a bin spans several columns) or more (a column
// spans one or two bins); summing instead drew a comb.
QString sparkline(const hs::ChannelHistogram& h, int columns)
{
    static const QString levels = QStringLiteral(" ▁▂▃▄▅▆▇█");
    const std::size_t bins = h.counts.size();
    if (bins == 0)
        return QString(columns, QLatin1Char(' '));
    std::vector<double> means(columns, 0);
    for (int c = 0; c < columns; ++c) {
        const std::size_t first = std::size_t(c) * bins / std::size_t(columns);
        const std::size_t last = std::max(first + 1, std::size_t(c + 1) * bins / std::size_t(columns));
        double sum = 0;
        for (std::size_t b = first; b < last; ++b)
            sum += double(h.counts[b]);
        means[c] = sum / double(last - first);
    }
    const double peak = *std::max_element(means.begin(), means.end());
    QString line;
    for (double v : means)
        line += levels[peak > 0 ? int(std::round(v / peak * 8)) : 0];
    return line;
}

// Records to stdout through the checked sink: whole lines, every write checked.
Error writeRecords(const QList<HistogramRecord>& records, const RunSummary& summary, RecordFormat format)
{
    OutputSink sink;
    Error error;
    if (!sink.open(QString(), error))
        return error;
    const int bins = records.isEmpty() ? 0 : int(records.first().histogram.counts.size());
    bool ok = format != RecordFormat::Csv || sink.writeLine(RecordCodec::csvHeader(bins), error);
    for (const HistogramRecord& r : records) {
        if (!ok)
            break;
        if (format == RecordFormat::Csv && int(r.histogram.counts.size()) != bins) {
            return Error::make(ErrorKind::InvalidInput, r.file,
                               QStringLiteral("its channels have %1 and %2 bins, which one CSV layout cannot hold: use --format jsonl")
                                   .arg(bins).arg(r.histogram.counts.size()));
        }
        ok = sink.writeLine(format == RecordFormat::Csv ? RecordCodec::csvLine(r) : RecordCodec::jsonLine(r), error);
    }
    if (ok)
        ok = sink.writeLine(format == RecordFormat::Csv ? RecordCodec::summaryCsvLine(summary, bins) : RecordCodec::summaryJsonLine(summary),
                            error);
    if (ok)
        ok = sink.close(error);
    return ok ? Error() : error;
}

}  // namespace

int runHistogramCommand(const QStringList& arguments)
{
    Interrupts::install();  // a closed pipe is a checked write error (exit 3), as for every command
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Prints the histogram and statistics of one file (all frames summed).\n"
        "Exit code: 0 counted, 1 the file failed, 2 usage error, 3 the output could not be written."));
    addCommonOptions(parser);
    addHistogramOptions(parser);
    parser.addOption({"format", "text (the default: a summary and a sparkline per channel), jsonl or csv (the records "
                                "of `batch`, docs/SCHEMA.md, ending with their summary).", "FORMAT", "text"});
    parser.addPositionalArgument("file", "Image, video, .npy or raw file; - reads standard input.");
    if (!parser.parse(arguments)) {
        printError(QStringLiteral("histoscope-cli histogram: %1\n").arg(parser.errorText()));
        return 2;
    }
    CommonAction action = CommonAction::Run;
    if (Error common; !readCommonOptions(parser, action, common)) {
        printError(QStringLiteral("histoscope-cli histogram: %1\n").arg(common.message()));
        return 2;
    }
    if (action != CommonAction::Run)
        return printCommonAction(parser, QStringLiteral("histogram"), action);
    if (parser.positionalArguments().size() != 1) {
        printError(QStringLiteral("histoscope-cli histogram: give exactly one file\n"));
        return 2;
    }
    CliHistogramOptions options;
    Error problem;
    if (!readHistogramOptions(parser, options, problem)) {
        printError(QStringLiteral("histoscope-cli histogram: %1\n").arg(problem.message()));
        return 2;
    }
    const QString format = parser.value("format") == QLatin1String("json") ? QStringLiteral("jsonl") : parser.value("format");
    if (format != "text" && format != "jsonl" && format != "csv") {
        printError(QStringLiteral("histoscope-cli histogram: --format takes text, jsonl or csv, not '%1'\n").arg(format));
        return 2;
    }
    EngineHolder<hs::HistogramEngine> holder;
    const hs::HistogramEngine& engine = holder.engine(options.counting.useGpu);
    if (!checkStrategyAvailable(options.counting, engine.hasGpu(), problem)) {
        printError(QStringLiteral("histoscope-cli histogram: %1\n").arg(problem.message()));
        return 2;
    }
    if (!engine.notice().empty())
        printNotice(QStringLiteral("note: %1\n").arg(QString::fromStdString(engine.notice())));
    const QString path = parser.positionalArguments().first();
    StdinInput stdinInput;
    if (StdinInput::names(path) && !stdinInput.copy(path, problem)) {
        printError(problem.kind == ErrorKind::Usage ? QStringLiteral("histoscope-cli histogram: %1\n").arg(problem.message())
                                                    : QStringLiteral("error: %1\n").arg(problem.message()));
        return problem.kind == ErrorKind::Usage ? 2 : 1;
    }
    const QString openPath = stdinInput.path().isEmpty() ? path : stdinInput.path();
    SourceOptions sourceOptions;
    sourceOptions.raw = options.raw;
    sourceOptions.memoryBudget = options.memoryBudget;
    sourceOptions.streamChunks = true;
    // One pass over the file; after a GPU fault the holder runs it again, from the start, on the
    // rebuilt engine.
    struct Pass {
        std::unique_ptr<FrameSource> source;
        Error error;
        hs::Status status;
        hs::HistogramResult result;
        Frame first;
        qint64 frames = 0;
        QStringList notices;
    };
    Pass pass = holder.run(
        options.counting.useGpu,
        [&](hs::HistogramEngine& counting) {
            Pass p;
            p.source = openFrameSource(openPath, sourceOptions, p.error);
            if (!p.source)
                return p;
            Frame frame;
            FileBinning binning(*p.source, options.counting);
            binning.setBincountKeys(!options.binsGiven && !options.rangeGiven);
            while (p.source->next(frame, p.error)) {
                Error unfit = p.frames == 0 ? missingChannel(frame, options.channels, path) : binning.mismatch(frame, p.frames, path);
                if (unfit.isError()) {
                    p.error = unfit;
                    p.frames = 0;  // nothing of the file is printed: its frames do not add up
                    return p;
                }
                const hs::HistogramRequest request = binning.requestFor(frame);
                p.notices = binning.notices();
                p.status = p.frames == 0 ? counting.compute(request, p.result) : counting.accumulate(request, p.result);
                if (!p.status)
                    return p;
                if (p.frames++ == 0)
                    p.first = frame;
            }
            return p;
        },
        [](const Pass& p) { return p.status.code == hs::ErrorCode::DeviceLost ? QString::fromStdString(p.status.message) : QString(); });
    if (const QString notice = holder.takeNotice(); !notice.isEmpty())
        printError(QStringLiteral("warning: %1: %2\n").arg(path, notice));
    pass.error = stdinInput.shown(pass.error);  // stdin's copy is named as the user named it
    if (pass.source)
        for (QString& w : pass.source->warnings)
            w = stdinInput.shown(w);
    if (!pass.source) {
        printError(QStringLiteral("error: %1\n").arg(pass.error.message()));
        return 1;
    }
    if (!pass.status) {
        printError(QStringLiteral("error: %1\n").arg(Error::fromStatus(pass.status, path).message()));
        return 1;
    }
    auto& source = pass.source;
    const hs::HistogramResult& result = pass.result;
    const Frame& first = pass.first;
    const qint64 frames = pass.frames;
    const QStringList& notices = pass.notices;
    const Error& error = pass.error;
    // Once each, naming the file: the source's warnings, the settings that could not apply, and
    // samples outside the range.
    QStringList warnings = source->warnings;
    for (const QString& n : notices)
        warnings << path + QStringLiteral(": ") + n;
    if (frames > 0)
        if (const QString outside = outOfRangeWarning(result); !outside.isEmpty())
            warnings << path + QStringLiteral(": ") + outside;
    for (const QString& w : warnings)
        printError(QStringLiteral("warning: %1\n").arg(w));
    if (error.isError()) {
        // A decoder error part-way: what was counted before it is printed, and the exit code is 1.
        printError(frames ? QStringLiteral("error: %1 (the histogram below holds the %2 frame(s) decoded before it)\n").arg(error.message()).arg(frames)
                          : QStringLiteral("error: %1\n").arg(error.message()));
        if (frames == 0)
            return 1;
    }
    if (frames == 0) {
        printError(QStringLiteral("error: %1: no frames\n").arg(path));
        return 1;
    }
    if (options.strict && !warnings.isEmpty()) {
        printError(QStringLiteral("error: %1: failed under --strict: %2 warning(s)\n").arg(path).arg(warnings.size()));
        return 1;
    }
    if (format != "text") {
        // The records batch would write for this file, and the summary that ends them.
        QStringList recordWarnings = warnings;
        if (error.isError())
            recordWarnings << error.message() + QStringLiteral("; the record holds the %1 frame(s) decoded before it").arg(frames);
        QList<HistogramRecord> records;
        for (const NamedChannel& channel : displayOrderedChannels(first, result))
            records << HistogramRecord{path, -1, channel.name, *channel.histogram, first.type(), std::nullopt, recordWarnings};
        const RunSummary summary{qint64(records.size()), error.isError() ? 0 : 1, error.isError() ? 1 : 0,
                                 source->kind() == FrameSource::MediaKind::Array ? 1 : frames};
        const Error written = writeRecords(records, summary, format == "csv" ? RecordFormat::Csv : RecordFormat::JsonLines);
        if (written.isError()) {
            printError(QStringLiteral("error: %1\n").arg(written.message()));
            return 3;
        }
        return error.isError() ? 1 : 0;
    }
    const bool chunked = source->kind() == FrameSource::MediaKind::Array && frames > 1;
    const QString type = QString::fromStdString(std::string(hs::sampleTypeName(first.type())));
    QString text = chunked ? QStringLiteral("%1: %2 channel(s), %3, converted and counted in %4 chunks\n")
                                 .arg(path).arg(first.channels()).arg(type).arg(frames)
                           : QStringLiteral("%1: %2x%3, %4 channel(s), %5, %6 frame(s)\n")
                                 .arg(path).arg(first.width()).arg(first.height()).arg(first.channels()).arg(type).arg(frames);
    text += QStringLiteral("engine: %1, strategy %2, %3 ms\n")
                .arg(holder.engine(options.counting.useGpu).hasGpu() ? QString::fromStdString(holder.engine(options.counting.useGpu).deviceInfo()->name) : QStringLiteral("CPU"),
                     QString::fromStdString(std::string(hs::strategyName(result.strategyRan))))
                .arg(result.timings.totalMs(), 0, 'f', 3);
    for (const NamedChannel& channel : displayOrderedChannels(first, result)) {
        const hs::ChannelHistogram& h = *channel.histogram;
        const hs::ChannelStatistics st = hs::computeStatistics(h, statisticsContext(first, h));
        // Estimates read "≈" with the digits their bins give, as in the app's Statistics panel.
        const bool counted = st.count > 0;
        auto value = [&](double v) { return counted ? statisticText(v, st) : QStringLiteral("-"); };
        text += QStringLiteral("%1  %2 bins [%3, %4)  count %5  mean %6  sd %7  median %8  min %9  max %10")
                    .arg(channel.name, -4)
                    .arg(h.counts.size())
                    .arg(h.binning.lo)
                    .arg(hs::upperEdge(h.binning))
                    .arg(st.count)
                    .arg(value(st.mean), value(st.stdDevPopulation), value(st.median),
                         st.min ? QString::number(*st.min, 'g', 6) : QStringLiteral("?"),
                         st.max ? QString::number(*st.max, 'g', 6) : QStringLiteral("?"));
        // 8- and 16-bit data always fit one bin per value: say how to get exact statistics.
        const bool exactAvailable = !st.exact && (first.type() == hs::SampleType::U8 || first.type() == hs::SampleType::U16);
        text += QStringLiteral("  entropy %1 bits  below %2  above %3  NaN %4  (%5)\n")
                    .arg(st.entropyBits, 0, 'f', 3).arg(h.below).arg(h.above).arg(h.nan)
                    .arg(precisionText(st) + (exactAvailable ? QStringLiteral("; --bins 0 gives exact statistics") : QString()));
        text += QStringLiteral("      |%1|\n").arg(sparkline(h, 64));
    }
    if (!printOutput(text)) {
        printError(QStringLiteral("error: <stdout>: write failed (%1)\n").arg(QString::fromLocal8Bit(std::strerror(errno))));
        return 3;
    }
    return error.isError() ? 1 : 0;
}
