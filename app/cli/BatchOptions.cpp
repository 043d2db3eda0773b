#include "app/cli/BatchOptions.h"

#include "io/MemoryBudget.h"

#include <QThread>

#include <cmath>

bool parseBatchOptions(const QStringList& arguments, QCommandLineParser& parser, BatchOptions& options, Error& error)
{
    const int cores = std::max(1, QThread::idealThreadCount());
    parser.setApplicationDescription(QStringLiteral(
        "Histograms of files and folders as CSV or JSON Lines (schema histoscope.histogram/3, see docs/SCHEMA.md).\n"
        "Exit code: 0 all inputs counted, 1 some inputs failed (listed on stderr), 2 usage error, "
        "3 the output could not be written, 130 interrupted (143 on SIGTERM)."));
    addCommonOptions(parser);
    addHistogramOptions(parser);
    parser.addOptions({
        {{"r", "recursive"}, "Descend into sub-folders."},
        {"follow-links", "Follow symbolic links that lead out of the folders given (by default they are listed as failed)."},
        {"include", "Only files whose name matches GLOB (repeatable).", "GLOB"},
        {"exclude", "Skip files whose name matches GLOB (repeatable).", "GLOB"},
        {"per-frame", "One record per video frame instead of the sum over frames."},
        {"format", "csv or jsonl.", "FORMAT", "jsonl"},
        {"layout", "wide (one record per channel, its counts in one row: what merge reads) or long (one row per file, "
                   "frame, channel and bin, with bin_lo, bin_hi and count: for data frames).", "LAYOUT", "wide"},
        {{"o", "output"}, "Write records to FILE instead of stdout; the file is locked for the run.", "FILE"},
        {"equalize-dir", "Also write equalized images (8/16-bit) into DIR, mirroring the input folders.", "DIR"},
        {"plot-dir", "Also write an SVG plot per file into DIR, mirroring the input folders.", "DIR"},
        {{"j", "jobs"}, QStringLiteral("Files decoded and counted at once (default: one per core; at most %1 per core).").arg(kJobsPerCore), "N"},
        {"devices", "Spread the work over every GPU of the host."},
        {"shard", "Process only share I of N of the sorted inputs (0-based), e.g. 3/8.", "I/N"},
        {"file-timeout", "Give up on a file whose decoder makes no progress for this long (default 120; 0: never).", "SECONDS"},
    });
    parser.addPositionalArgument("paths", "Files and folders.", "PATH...");
    if (!parser.parse(arguments)) {
        error = usageError(parser.errorText());
        return false;
    }
    if (!readCommonOptions(parser, options.action, error))
        return false;
    if (options.action != CommonAction::Run)
        return true;
    if (!readHistogramOptions(parser, options.histogram, error))
        return false;
    options.inputs.recursive = parser.isSet("recursive");
    options.inputs.followLinks = parser.isSet("follow-links");
    options.inputs.include = parser.values("include");
    options.inputs.exclude = parser.values("exclude");
    for (const auto& [globs, option] : {std::pair{options.inputs.include, QStringLiteral("--include")},
                                        std::pair{options.inputs.exclude, QStringLiteral("--exclude")}}) {
        error = checkGlobs(globs, option);
        if (error.isError())
            return false;
    }
    options.inputs.acceptAnyFile = options.histogram.raw.has_value();
    options.perFrame = parser.isSet("per-frame");
    const QString format = parser.value("format");
    if (format != "csv" && format != "jsonl") {
        error = usageError(QStringLiteral("--format takes csv or jsonl, not '%1'").arg(format));
        return false;
    }
    options.format = format == "csv" ? RecordFormat::Csv : RecordFormat::JsonLines;
    const QString layout = parser.value("layout");
    if (layout != "wide" && layout != "long") {
        error = usageError(QStringLiteral("--layout takes wide or long, not '%1'").arg(layout));
        return false;
    }
    options.longLayout = layout == "long";
    for (const char* option : {"output", "equalize-dir", "plot-dir"}) {
        error = emptyOutput(parser, QLatin1String(option));
        if (error.isError())
            return false;
    }
    options.output = parser.value("output");
    options.equalizeDir = parser.value("equalize-dir");
    options.plotDir = parser.value("plot-dir");
    options.allDevices = parser.isSet("devices");
    bool ok = true;
    options.jobs = cores;
    if (parser.isSet("jobs")) {
        options.jobs = parser.value("jobs").toInt(&ok);
        if (!ok || options.jobs < 1) {
            error = usageError(QStringLiteral("-j takes a whole number of jobs from 1 (got '%1')").arg(parser.value("jobs")));
            return false;
        }
        if (options.jobs > kJobsPerCore * cores) {
            options.jobsNote = QStringLiteral("-j %1 capped at %2 (%3 per core on %4 core(s)): more jobs only hold more frames in memory")
                                   .arg(options.jobs).arg(kJobsPerCore * cores).arg(kJobsPerCore).arg(cores);
            options.jobs = kJobsPerCore * cores;
        }
    }
    if (parser.isSet("file-timeout")) {
        options.fileTimeout = parser.value("file-timeout").toDouble(&ok);
        if (!ok || !std::isfinite(options.fileTimeout) || options.fileTimeout < 0 || options.fileTimeout > 1e6) {
            error = usageError(QStringLiteral("--file-timeout takes seconds from 0 (never) to 1000000 (got '%1')").arg(parser.value("file-timeout")));
            return false;
        }
    }
    const std::uint64_t budget = options.histogram.memoryBudget ? options.histogram.memoryBudget : defaultMemoryBudget();
    options.fileBudget = budget;
    options.memory = std::make_shared<MemoryPool>(budget);
    if (parser.isSet("shard")) {
        const QStringList parts = parser.value("shard").split('/');
        bool okI = false, okN = false;
        if (parts.size() == 2) {
            options.inputs.shardIndex = parts[0].toInt(&okI);
            options.inputs.shardCount = parts[1].toInt(&okN);
        }
        if (!okI || !okN || options.inputs.shardCount < 1 || options.inputs.shardIndex < 0
            || options.inputs.shardIndex >= options.inputs.shardCount) {
            error = usageError(QStringLiteral("--shard takes I/N with 0 <= I < N, e.g. 0/4"));
            return false;
        }
    }
    if (parser.positionalArguments().isEmpty()) {
        error = usageError(QStringLiteral("give at least one file or folder"));
        return false;
    }
    return true;
}
