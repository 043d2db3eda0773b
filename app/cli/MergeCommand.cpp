#include "app/cli/MergeCommand.h"

#include "app/cli/CliOptions.h"
#include "app/cli/Console.h"
#include "app/cli/Interrupts.h"
#include "app/cli/OutputSink.h"
#include "app/cli/ScopeMerge.h"
#include "app/core/RecordReader.h"
#include "io/NativePath.h"

#include <QCommandLineParser>
#include <QFile>
#include <QHash>
#include <QMap>

#include <limits>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

// Where a record came from, to name both sides of a conflict.
struct Origin {
    QString file;
    qint64 line = 0;
    QString text() const { return QStringLiteral("%1:%2").arg(file).arg(line); }
};

struct MergedChannel {
    HistogramRecord record;
    Origin first;
    qint64 merged = 0;
    qint64 warned = 0;  // merged records that carried warnings
};

QString describeKey(const HistogramRecord& r, int version)
{
    const hs::ChannelBinning& b = r.histogram.binning;
    return QStringLiteral("%1, %2 bins over [%3, %4), %5 binning, %6")
        .arg(r.channel)
        .arg(b.bins)
        .arg(b.lo, 0, 'g', 17)
        .arg(b.hi, 0, 'g', 17)
        .arg(b.identity ? QStringLiteral("identity") : QStringLiteral("uniform"), RecordCodec::schemaName(version));
}

bool sameKey(const hs::ChannelBinning& a, const hs::ChannelBinning& b)
{
    return a.bins == b.bins && a.lo == b.lo && a.hi == b.hi && a.identity == b.identity;
}

constexpr std::uint64_t kMaxCount = std::uint64_t(std::numeric_limits<qint64>::max());

// a += b within the schema's counts (at most 2^63-1, what JSON readers take as an integer);
// false, leaving `a` as it was, when the sum would not fit.
bool addCount(std::uint64_t& a, std::uint64_t b)
{
    if (b > kMaxCount - std::min(a, kMaxCount))
        return false;
    a += b;
    return true;
}

bool addCount(qint64& a, qint64 b)
{
    std::uint64_t sum = std::uint64_t(a);
    if (a < 0 || b < 0 || !addCount(sum, std::uint64_t(b)))
        return false;
    a = qint64(sum);
    return true;
}

// Adds `h` into `total`; false, with `total` unchanged, when any sum (a bin, below, above, nan,
// or the in-range total the statistics' count is) would pass 2^63-1. Checked before anything
// is added, so a refused record leaves no trace.
bool add(hs::ChannelHistogram& total, const hs::ChannelHistogram& h)
{
    std::uint64_t inRange = 0;
    for (std::size_t i = 0; i < h.counts.size(); ++i) {
        std::uint64_t bin = total.counts[i];
        if (!addCount(bin, h.counts[i]) || !addCount(inRange, bin))
            return false;
    }
    std::uint64_t below = total.below, above = total.above, nan = total.nan;
    if (!addCount(below, h.below) || !addCount(above, h.above) || !addCount(nan, h.nan))
        return false;
    for (std::size_t i = 0; i < h.counts.size(); ++i)
        total.counts[i] += h.counts[i];
    total.below = below;
    total.above = above;
    total.nan = nan;
    // The extremes of a merge are the extremes of its parts; unknown in one part, unknown in all.
    if (total.hasValues && h.hasValues) {
        total.minValue = std::min(total.minValue, h.minValue);
        total.maxValue = std::max(total.maxValue, h.maxValue);
    } else {
        total.hasValues = false;
    }
    return true;
}

class Merger {
public:
    Merger(bool allowPartial, bool strict) : m_allowPartial(allowPartial), m_strict(strict) {}
    void read(const QString& path);
    // Said once all inputs are read: the sources that two inputs both hold.
    void reportOverlaps();
    QStringList problems;
    QStringList warnings;
    QMap<int, MergedChannel> channels;  // by display rank
    RunSummary inputs;

private:
    void take(const RecordLine& line, const Origin& origin);
    void noteSource(const HistogramRecord& r);
    bool m_allowPartial;
    bool m_strict;
    int m_version = 0;
    Origin m_versionOrigin;
    int m_input = -1;              // index of the input being read
    QStringList m_inputNames;
    // The input each source (file and frame) was first seen in: two inputs holding the same
    // source count its data twice (a file given to two shards, a run merged with itself).
    QHash<QString, int> m_sources;
    struct Overlap {
        qint64 sources = 0;
        QString first;
    };
    QMap<QPair<int, int>, Overlap> m_overlaps;
};

QString sourceText(const HistogramRecord& r)
{
    return r.frame >= 0 ? QStringLiteral("%1 (frame %2)").arg(r.file).arg(r.frame) : r.file;
}

void Merger::noteSource(const HistogramRecord& r)
{
    // A merged record's name is not a source: two merges of different data both say merged:N.
    if (r.file.startsWith(QLatin1String("merged:")))
        return;
    const QString key = r.file + QChar(0) + QString::number(r.frame);
    const auto it = m_sources.constFind(key);
    if (it == m_sources.cend()) {
        m_sources.insert(key, m_input);
        return;
    }
    if (*it == m_input)
        return;  // the source's other channels, or its other records in the same input
    Overlap& o = m_overlaps[{*it, m_input}];
    if (o.sources++ == 0)
        o.first = sourceText(r);
    m_sources[key] = m_input;  // counted once per pair of inputs
}

void Merger::reportOverlaps()
{
    for (auto it = m_overlaps.cbegin(); it != m_overlaps.cend(); ++it) {
        const QString text = QStringLiteral("%1 and %2 both hold %3%4: its counts are added twice")
                                 .arg(m_inputNames[it.key().first], m_inputNames[it.key().second], it->first,
                                      it->sources > 1 ? QStringLiteral(" and %1 more source(s)").arg(it->sources - 1) : QString());
        if (m_strict)
            problems << text + QStringLiteral(" (refused under --strict)");
        else
            warnings << text;
    }
}

int channelRank(const QString& name)
{
    static const QStringList rank{"gray", "R", "G", "B", "A", "luma"};
    return int(rank.indexOf(name));
}

void Merger::take(const RecordLine& line, const Origin& origin)
{
    // Versions 2 and 3 hold the same records (3 moved the CSV's `record` column first), so they
    // merge together; version 1 lacks the binning mode and merges only with itself.
    const auto family = [](int version) { return version == 1 ? 1 : 2; };
    if (m_version && family(line.version) != family(m_version)) {
        problems << QStringLiteral("%1 is %2 but %3 is %4: merge inputs of version 1 only with version 1")
                        .arg(origin.text(), RecordCodec::schemaName(line.version), m_versionOrigin.text(), RecordCodec::schemaName(m_version));
        return;
    }
    if (!m_version) {
        m_version = line.version;
        m_versionOrigin = origin;
    }
    const HistogramRecord& r = line.record;
    noteSource(r);
    const int rank = channelRank(r.channel);
    auto it = channels.find(rank);
    if (it == channels.end()) {
        MergedChannel m{r, origin, 1, r.warnings.isEmpty() ? 0 : 1};
        m.record.frame = -1;
        m.record.region.reset();
        m.record.warnings.clear();
        channels.insert(rank, m);
        return;
    }
    if (!sameKey(it->record.histogram.binning, r.histogram.binning)) {
        problems << QStringLiteral("incompatible records: %1 has %2, but %3 has %4")
                        .arg(it->first.text(), describeKey(it->record, m_version), origin.text(), describeKey(r, line.version));
        return;
    }
    if (it->record.sampleType != r.sampleType)
        it->record.sampleType.reset();  // the clipping points of mixed types are not one pair
    if (!add(it->record.histogram, r.histogram)) {
        problems << QStringLiteral("%1: adding its %2 counts to the %3 merged before it overflows 64 bits "
                                   "(a count of the schema is at most 2^63-1)")
                        .arg(origin.text(), r.channel).arg(it->merged);
        return;
    }
    ++it->merged;
    it->warned += r.warnings.isEmpty() ? 0 : 1;
}

void Merger::read(const QString& path)
{
    m_input = int(m_inputNames.size());
    m_inputNames << path;
    QFile file;
    const int fd = ::open(nativePath(path).constData(), O_RDONLY | O_CLOEXEC);
    struct stat st {};
    if (fd < 0 || fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
        problems << QStringLiteral("%1: %2").arg(path, fd < 0 ? QString::fromLocal8Bit(std::strerror(errno)) : QStringLiteral("a folder, not a batch output"));
        if (fd >= 0)
            ::close(fd);
        return;
    }
    if (!file.open(fd, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle)) {
        ::close(fd);
        problems << QStringLiteral("%1: %2").arg(path, file.errorString());
        return;
    }
    RecordReader reader(&file, path);
    RecordLine line;
    Error error;
    const qsizetype before = problems.size();
    while (problems.size() == before && reader.next(line, error))
        if (line.kind == RecordLine::Kind::Histogram)
            take(line, {path, reader.lineNumber()});
    if (error.isError()) {
        problems << error.message();
        return;
    }
    if (problems.size() > before)
        return;
    if (!reader.sawSummary()) {
        const QString why = reader.version() == 1
            ? QStringLiteral("it is %1, which has no summary record").arg(RecordCodec::schemaName(1))
            : QStringLiteral("no summary record at its end: the run that wrote it did not finish");
        if (m_allowPartial)
            warnings << QStringLiteral("%1: %2; merged anyway (--allow-partial)").arg(path, why);
        else
            problems << QStringLiteral("%1: %2 (--allow-partial merges it anyway)").arg(path, why);
        return;
    }
    const RunSummary& s = reader.summary();
    if (!addCount(inputs.files, s.files) || !addCount(inputs.failed, s.failed) || !addCount(inputs.frames, s.frames))
        problems << QStringLiteral("%1: adding its summary (files %2, failed %3, frames %4) to the inputs' before it overflows 64 bits")
                        .arg(path).arg(s.files).arg(s.failed).arg(s.frames);
}

}  // namespace

int runMergeCommand(const QStringList& arguments)
{
    Interrupts::install();  // before any thread exists, so that every thread inherits it
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Adds the histograms of batch outputs (for example one per shard) into one record per channel, exactly.\n"
        "Every input must end with its summary record (a finished run) unless --allow-partial is given.\n"
        "Exit code: 0 merged, 1 an input is invalid, unfinished or incompatible (nothing written), 2 usage error, "
        "3 the output could not be written."));
    addCommonOptions(parser);
    parser.addOptions({{"format", "Output: csv or jsonl.", "FORMAT", "jsonl"},
                       {{"o", "output"}, "Output file (default: stdout).", "FILE"},
                       {"allow-partial", "Merge inputs that have no summary record (unfinished runs, schema 1)."},
                       {"strict", "Refuse inputs that hold records of the same source file and frame (overlapping shards), "
                                  "which are otherwise merged with a warning."}});
    parser.addPositionalArgument("files", "Batch outputs (.jsonl or .csv).", "FILE...");
    if (!parser.parse(arguments)) {
        printError(QStringLiteral("histoscope-cli merge: %1\n").arg(parser.errorText()));
        return 2;
    }
    CommonAction action = CommonAction::Run;
    Error problem;
    if (!readCommonOptions(parser, action, problem)) {
        printError(QStringLiteral("histoscope-cli merge: %1\n").arg(problem.message()));
        return 2;
    }
    if (action != CommonAction::Run)
        return printCommonAction(parser, QStringLiteral("merge"), action);
    const QString format = parser.value("format");
    QString usage;
    if (format != "csv" && format != "jsonl")
        usage = QStringLiteral("--format takes csv or jsonl, not '%1'").arg(format);
    else if (parser.positionalArguments().isEmpty())
        usage = QStringLiteral("give batch outputs to merge");
    else
        usage = emptyOutput(parser, QStringLiteral("output")).cause;
    const QString output = parser.value("output");
    if (usage.isEmpty())
        usage = outputIsInput(output, parser.positionalArguments()).cause;
    if (usage.isEmpty()) {
        // The same file given twice would count every record twice.
        QHash<QPair<dev_t, ino_t>, QString> given;
        for (const QString& input : parser.positionalArguments()) {
            struct stat in {};
            if (::stat(nativePath(input).constData(), &in) != 0 || !S_ISREG(in.st_mode))
                continue;  // reported when it is read
            const auto it = given.constFind({in.st_dev, in.st_ino});
            if (it != given.cend()) {
                usage = *it == input ? QStringLiteral("%1 is given twice: its counts would be added twice").arg(input)
                                     : QStringLiteral("%1 and %2 are the same file: its counts would be added twice").arg(*it, input);
                break;
            }
            given.insert({in.st_dev, in.st_ino}, input);
        }
    }
    if (!usage.isEmpty()) {
        printError(QStringLiteral("histoscope-cli merge: %1\n").arg(usage));
        return 2;
    }

    Interrupts::setExitNote(QStringLiteral("the merge output has no summary record"));
    if (isScopeOutput(parser.positionalArguments().first())) {
        // Outputs of `scope`: 2-D counts, added cell by cell (JSON Lines only).
        if (format == "csv") {
            printError(QStringLiteral("histoscope-cli merge: scope outputs are JSON Lines only; leave --format out\n"));
            return 2;
        }
        OutputSink sink;
        Error written;
        const ScopeMergeResult result = mergeScopeOutputs(parser.positionalArguments(), parser.isSet("allow-partial"),
                                                          parser.isSet("strict"), sink, output, written);
        for (const QString& w : result.warnings)
            printError(QStringLiteral("warning: %1\n").arg(w));
        if (!result.problems.isEmpty()) {
            for (const QString& p : result.problems)
                printError(QStringLiteral("error: %1\n").arg(p));
            printError(QStringLiteral("histoscope-cli merge: nothing written (%1 problem(s))\n").arg(result.problems.size()));
            return 1;
        }
        if (written.isError()) {
            printError(QStringLiteral("histoscope-cli merge: %1\n").arg(written.message()));
            return written.kind == ErrorKind::Locked ? 2 : 3;
        }
        return 0;
    }
    Merger merger(parser.isSet("allow-partial"), parser.isSet("strict"));
    for (const QString& path : parser.positionalArguments())
        merger.read(path);
    merger.reportOverlaps();
    for (const QString& w : merger.warnings)
        printError(QStringLiteral("warning: %1\n").arg(w));
    const bool csv = format == "csv";
    if (csv && merger.problems.isEmpty()) {
        const auto first = merger.channels.cbegin();
        for (auto it = merger.channels.cbegin(); it != merger.channels.cend(); ++it)
            if (it->record.histogram.binning.bins != first->record.histogram.binning.bins)
                merger.problems << QStringLiteral("CSV holds one column layout, but %1 has %2 bins and %3 %4: use --format jsonl")
                                       .arg(first->record.channel).arg(first->record.histogram.binning.bins)
                                       .arg(it->record.channel).arg(it->record.histogram.binning.bins);
    }
    if (!merger.problems.isEmpty()) {
        for (const QString& p : merger.problems)
            printError(QStringLiteral("error: %1\n").arg(p));
        printError(QStringLiteral("histoscope-cli merge: nothing written (%1 problem(s))\n").arg(merger.problems.size()));
        return 1;
    }

    OutputSink sink;
    Error error;
    Interrupts::setExitNote(QStringLiteral("the merge output has no summary record"));
    if (!sink.open(output, error)) {
        printError(QStringLiteral("histoscope-cli merge: %1\n").arg(error.message()));
        return error.kind == ErrorKind::Locked ? 2 : 3;  // another run holds it: a usage error
    }
    const int bins = merger.channels.isEmpty() ? 0 : int(merger.channels.first().record.histogram.binning.bins);
    bool ok = !csv || sink.writeLine(RecordCodec::csvHeader(bins), error);
    RunSummary summary = merger.inputs;
    for (auto it = merger.channels.begin(); ok && it != merger.channels.end(); ++it) {
        it->record.file = QStringLiteral("merged:%1").arg(it->merged);
        if (it->warned)
            it->record.warnings = {QStringLiteral("%1 of the %2 merged records carried warnings").arg(it->warned).arg(it->merged)};
        ok = sink.writeLine(csv ? RecordCodec::csvLine(it->record) : RecordCodec::jsonLine(it->record), error);
        ++summary.records;
    }
    if (ok)
        ok = sink.writeLine(csv ? RecordCodec::summaryCsvLine(summary, bins) : RecordCodec::summaryJsonLine(summary), error);
    if (ok)
        ok = sink.close(error);
    if (!ok) {
        printError(QStringLiteral("histoscope-cli merge: %1\n").arg(error.message()));
        return 3;
    }
    return 0;
}
