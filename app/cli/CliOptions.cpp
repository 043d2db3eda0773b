#include "app/cli/CliOptions.h"

#include "app/cli/Console.h"
#include "io/MemoryBudget.h"

#include "histoscope/HistogramTypes.h"

#include <QRegularExpression>

#include <cmath>
#include <limits>

namespace {

// The engine bins integer samples exactly within +-2^34 (gpu/src/RequestPlan.cpp).
constexpr double kRangeLimit = 17179869184.0;

bool readRange(const QString& text, CountSettings& s, Error& error)
{
    const QStringList parts = text.split(':');
    bool okLo = false, okHi = false;
    double lo = 0, hi = 0;
    if (parts.size() == 2) {
        lo = parts[0].trimmed().toDouble(&okLo);
        hi = parts[1].trimmed().toDouble(&okHi);
    }
    if (!okLo || !okHi || !std::isfinite(lo) || !std::isfinite(hi) || !(lo < hi)) {
        error = usageError(QStringLiteral("--range takes LO:HI, two finite numbers with LO < HI, e.g. 0:1 or 0:4096 (got '%1')").arg(text));
        return false;
    }
    if (std::fabs(lo) > kRangeLimit || std::fabs(hi) > kRangeLimit) {
        error = usageError(QStringLiteral("--range %1 goes past +-2^34 (17179869184), beyond which bins are not exact").arg(text));
        return false;
    }
    if (!(float(lo) < float(hi))) {
        error = usageError(QStringLiteral("--range %1 is too narrow for 32-bit float samples").arg(text));
        return false;
    }
    // The command line's range applies to every kind of data it meets.
    s.rangeMode = RangeMode::Manual;
    s.manualRanges.fill(ValueRange{lo, hi});
    return true;
}

bool readRawShape(const QString& text, rawformat::RawSpec& spec, Error& error)
{
    static const QRegularExpression shape(QStringLiteral("^(\\d+)(?:x(\\d+))?(?:x(\\d+))?$"));
    const auto m = shape.match(text);
    bool okW = false, okH = true, okC = true;
    if (m.hasMatch()) {
        spec.width = m.captured(1).toLongLong(&okW);
        spec.height = m.captured(2).isEmpty() ? 1 : m.captured(2).toLongLong(&okH);
        spec.channels = m.captured(3).isEmpty() ? 1 : m.captured(3).toInt(&okC);
    }
    if (!m.hasMatch() || !okW || !okH || !okC) {
        error = usageError(QStringLiteral("--raw-shape takes WIDTHxHEIGHT[xCHANNELS] or N, whole numbers that fit 64 bits (got '%1')").arg(text));
        return false;
    }
    const bool oneD = m.captured(2).isEmpty();
    if ((spec.width == 0 && !oneD) || spec.height == 0) {
        error = usageError(QStringLiteral("--raw-shape %1 has a zero dimension (N = 0 alone means every sample of the file)").arg(text));
        return false;
    }
    if (spec.channels < 1 || spec.channels > 4) {
        error = usageError(QStringLiteral("--raw-shape %1: channels must be 1 to 4").arg(text));
        return false;
    }
    return true;
}

}  // namespace

void addCommonOptions(QCommandLineParser& parser)
{
    parser.addOptions({
        {{"h", "help"}, "Print this help and exit."},
        {"version", "Print the version and exit."},
        {{"q", "quiet"}, "Say less: no notes (such as \"No CUDA device found\"); warnings and errors stay."},
        {{"v", "verbose"}, "Say more: every file skipped and why."},
    });
}

bool readCommonOptions(const QCommandLineParser& parser, CommonAction& action, Error& error)
{
    action = parser.isSet("help") ? CommonAction::Help : parser.isSet("version") ? CommonAction::Version : CommonAction::Run;
    if (parser.isSet("quiet") && parser.isSet("verbose")) {
        error = usageError(QStringLiteral("-q and -v exclude each other: give one"));
        return false;
    }
    setVerbosity(parser.isSet("quiet") ? Verbosity::Quiet : parser.isSet("verbose") ? Verbosity::Verbose : Verbosity::Normal);
    return true;
}

QString commandHelp(const QCommandLineParser& parser, const QString& command)
{
    QString text = parser.helpText();
    const qsizetype end = text.indexOf('\n');
    const QString usage = text.left(end);
    const qsizetype options = usage.indexOf(QLatin1String(" [options]"));
    const QString rest = options >= 0 ? usage.mid(options) : QString();
    return QStringLiteral("Usage: histoscope-cli %1%2").arg(command, rest) + text.mid(end);
}

int printCommonAction(const QCommandLineParser& parser, const QString& command, CommonAction action)
{
    const QString text = action == CommonAction::Help ? commandHelp(parser, command)
                                                      : QStringLiteral("histoscope-cli %1\n").arg(QStringLiteral(HISTOSCOPE_VERSION));
    return printOutput(text) ? 0 : 3;
}

QString strategyList()
{
    QStringList names;
    for (hs::Strategy s : hs::allStrategies())
        names << QString::fromStdString(std::string(hs::strategyName(s)));
    return names.join(QStringLiteral(", "));
}

Error emptyOutput(const QCommandLineParser& parser, const QString& option)
{
    if (parser.isSet(option) && parser.value(option).isEmpty())
        return usageError(QStringLiteral("--%1 takes a name, and was given an empty one%2")
                              .arg(option, option == QLatin1String("output") ? QStringLiteral(" (leave -o out to write to stdout)") : QString()));
    return {};
}

void addHistogramOptions(QCommandLineParser& parser)
{
    parser.addOptions({
        {"bins", "Bins per channel (0: one per integer value). Default 256, except for 1-D integer key files (--raw-shape N, "
                 "1-D integer .npy), which get numpy.bincount's: one bin per value from 0 (or the smallest, if negative) to "
                 "the largest value present.", "N", "256"},
        {"range", "Counted range LO:HI, half-open, finite, within +-2^34 (default: the data's nominal range).", "LO:HI"},
        {"channels", "Channels to count, e.g. R,G,B or gray (default: all).", "LIST"},
        {"strategy", QStringLiteral("Engine strategy: %1 (docs/STRATEGIES.md). A GPU strategy without a GPU is a usage error.")
                         .arg(strategyList()), "NAME", "auto"},
        {"cpu", "Count on the CPU even when a GPU is present."},
        {"memory-budget", "Memory that decoding may take, e.g. 8G or 512M; a file that would need more is refused "
                          "from its header (default: half of this machine's memory).", "BYTES"},
        {"raw-shape", "Read other files as headerless raw data of WIDTHxHEIGHT[xCHANNELS], or N 1-D keys (0: all).", "SHAPE"},
        {"raw-type", "Raw sample type: u8, u16, i16, u32, i32, f32, f64.", "TYPE", "u8"},
        {"raw-endian", "Raw byte order: little or big.", "ORDER", "little"},
        {"raw-offset", "Raw header bytes to skip.", "BYTES", "0"},
        {"strict", "Treat warnings as failures: a file whose counts come with a warning (data filled in by the decoder, "
                   "a video whose header's frame count was wrong, a range that did not apply, samples outside the range) "
                   "fails, exit code 1."},
    });
}

bool readHistogramOptions(const QCommandLineParser& parser, CliHistogramOptions& options, Error& error)
{
    CountSettings& s = options.counting;
    options.binsGiven = parser.isSet("bins");
    options.rangeGiven = parser.isSet("range");
    bool ok = false;
    s.bins = parser.value("bins").toInt(&ok);
    if (!ok || s.bins < 0 || s.bins > int(hs::kMaxBins)) {
        error = usageError(QStringLiteral("--bins takes a whole number from 0 to %1 (got '%2')").arg(hs::kMaxBins).arg(parser.value("bins")));
        return false;
    }
    if (parser.isSet("range") && !readRange(parser.value("range"), s, error))
        return false;
    if (s.bins == 0 && s.rangeMode == RangeMode::Manual) {
        const ValueRange& range = *s.manualRanges.front();
        const double values = std::ceil(range.hi) - std::ceil(range.lo);
        if (values > double(hs::kMaxBins)) {
            error = usageError(QStringLiteral("--bins 0 over --range %1 would need %2 bins, more than the %3 the engine counts; give --bins")
                        .arg(parser.value("range")).arg(values, 0, 'f', 0).arg(hs::kMaxBins));
            return false;
        }
    }
    if (parser.isSet("channels")) {
        s.channelMask = 0;
        for (const QString& c : parser.value("channels").split(',', Qt::SkipEmptyParts)) {
            const QString name = c.trimmed().toUpper();
            options.channels << (name == "GRAY" ? QStringLiteral("gray") : name);
            if (name == "R" || name == "GRAY") s.channelMask |= 1;
            else if (name == "G") s.channelMask |= 2;
            else if (name == "B") s.channelMask |= 4;
            else if (name == "A") s.channelMask |= 8;
            else {
                error = usageError(QStringLiteral("--channels: unknown channel '%1' (use R, G, B, A or gray)").arg(c));
                return false;
            }
        }
        if (!s.channelMask) {
            error = usageError(QStringLiteral("--channels names no channel"));
            return false;
        }
    }
    const auto strategy = parseStrategy(parser.value("strategy"), error);
    if (!strategy) {
        error = usageError(QStringLiteral("--strategy: ") + error.cause);  // on the command line, a usage error
        return false;
    }
    s.strategy = *strategy;
    s.useGpu = !parser.isSet("cpu");
    options.strict = parser.isSet("strict");
    if (parser.isSet("memory-budget")) {
        const auto bytes = parseBytes(parser.value("memory-budget"));
        if (!bytes) {
            error = usageError(QStringLiteral("--memory-budget takes a size such as 8G, 512M or 1000000 (got '%1')").arg(parser.value("memory-budget")));
            return false;
        }
        options.memoryBudget = *bytes;
    }
    if (parser.isSet("raw-shape")) {
        rawformat::RawSpec spec;
        if (!readRawShape(parser.value("raw-shape"), spec, error))
            return false;
        const auto type = rawformat::rawTypeFromName(parser.value("raw-type").toStdString());
        if (!type) {
            error = usageError(QStringLiteral("--raw-type: unknown type '%1' (u8, u16, i16, u32, i32, f32, f64)").arg(parser.value("raw-type")));
            return false;
        }
        spec.type = *type;
        const QString endian = parser.value("raw-endian");
        if (endian != "little" && endian != "big") {
            error = usageError(QStringLiteral("--raw-endian takes little or big"));
            return false;
        }
        spec.bigEndian = endian == "big";
        spec.offset = parser.value("raw-offset").toULongLong(&ok);
        if (!ok || spec.offset > std::uint64_t(std::numeric_limits<std::int64_t>::max())) {
            error = usageError(QStringLiteral("--raw-offset takes a byte count (got '%1')").arg(parser.value("raw-offset")));
            return false;
        }
        options.raw = spec;
    }
    return true;
}

bool checkStrategyAvailable(const CountSettings& counting, bool hasGpu, Error& error)
{
    if (!hs::isGpuStrategy(counting.strategy) || (counting.useGpu && hasGpu))
        return true;
    error = usageError(QStringLiteral("--strategy %1 runs on a CUDA GPU, and %2; use --strategy auto or cpu")
                .arg(QString::fromStdString(std::string(hs::strategyName(counting.strategy))),
                     counting.useGpu ? QStringLiteral("no GPU was found") : QStringLiteral("--cpu was given")));
    return false;
}

Error missingChannel(const Frame& frame, const QStringList& channels, const QString& path)
{
    QStringList has;
    for (int d = 0; d < frame.channels(); ++d)
        has << channelName(frame.channelOrder(), frame.storageIndexOfDisplayChannel(d));
    for (const QString& wanted : channels)
        if (!has.contains(wanted))
            return Error::make(ErrorKind::InvalidInput, path,
                               QStringLiteral("the file has no channel %1 (--channels); its channels are %2")
                                   .arg(wanted, has.join(QStringLiteral(", "))));
    return {};
}
