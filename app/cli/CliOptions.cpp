#include "app/cli/CliOptions.h"

#include "histoscope/HistogramTypes.h"

#include <QRegularExpression>

void addHistogramOptions(QCommandLineParser& parser)
{
    parser.addOptions({
        {"bins", "Bins per channel (0: one per integer value).", "N", "256"},
        {"range", "Counted range LO:HI, half-open (default: the data's nominal range).", "LO:HI"},
        {"channels", "Channels to count, e.g. R,G,B or gray (default: all).", "LIST"},
        {"strategy", "Engine strategy: auto, cpu, global-atomic, shared, warp-aggregated, replicated, "
                     "run-length, large-bins, cub.", "NAME", "auto"},
        {"cpu", "Count on the CPU even when a GPU is present."},
        {"raw-shape", "Read other files as headerless raw data of WIDTHxHEIGHT[xCHANNELS] (or N for 1-D keys).", "SHAPE"},
        {"raw-type", "Raw sample type: u8, u16, i16, u32, i32, f32, f64.", "TYPE", "u8"},
        {"raw-endian", "Raw byte order: little or big.", "ORDER", "little"},
        {"raw-offset", "Raw header bytes to skip.", "BYTES", "0"},
    });
}

bool readHistogramOptions(const QCommandLineParser& parser, CliHistogramOptions& options, QString& error)
{
    CountSettings& s = options.counting;
    bool ok = false;
    s.bins = parser.value("bins").toInt(&ok);
    if (!ok || s.bins < 0 || s.bins > int(hs::kMaxBins)) {
        error = QStringLiteral("--bins takes a whole number from 0 to %1").arg(hs::kMaxBins);
        return false;
    }
    if (parser.isSet("range")) {
        const QStringList parts = parser.value("range").split(':');
        bool okLo = false, okHi = false;
        ValueRange range;
        if (parts.size() == 2) {
            range.lo = parts[0].toDouble(&okLo);
            range.hi = parts[1].toDouble(&okHi);
        }
        if (!okLo || !okHi || !(range.lo < range.hi)) {
            error = QStringLiteral("--range takes LO:HI with LO < HI, e.g. 0:1 or 0:4096");
            return false;
        }
        // The command line's range applies to every kind of data it meets.
        s.rangeMode = RangeMode::Manual;
        s.manualRanges.fill(range);
    }
    if (parser.isSet("channels")) {
        s.channelMask = 0;
        for (const QString& c : parser.value("channels").split(',', Qt::SkipEmptyParts)) {
            const QString name = c.trimmed().toUpper();
            if (name == "R" || name == "GRAY") s.channelMask |= 1;
            else if (name == "G") s.channelMask |= 2;
            else if (name == "B") s.channelMask |= 4;
            else if (name == "A") s.channelMask |= 8;
            else {
                error = QStringLiteral("--channels: unknown channel '%1' (use R, G, B, A or gray)").arg(c);
                return false;
            }
        }
    }
    QString strategyError;
    const auto strategy = parseStrategy(parser.value("strategy"), &strategyError);
    if (!strategy) {
        error = QStringLiteral("--strategy: ") + strategyError;
        return false;
    }
    s.strategy = *strategy;
    s.useGpu = !parser.isSet("cpu");
    if (parser.isSet("raw-shape")) {
        rawformat::RawSpec spec;
        static const QRegularExpression shape(QStringLiteral("^(\\d+)(?:x(\\d+))?(?:x(\\d))?$"));
        const auto m = shape.match(parser.value("raw-shape"));
        if (!m.hasMatch()) {
            error = QStringLiteral("--raw-shape takes WIDTHxHEIGHT[xCHANNELS] or N");
            return false;
        }
        spec.width = m.captured(1).toLongLong();
        spec.height = m.captured(2).isEmpty() ? 1 : m.captured(2).toLongLong();
        spec.channels = m.captured(3).isEmpty() ? 1 : m.captured(3).toInt();
        const auto type = rawformat::rawTypeFromName(parser.value("raw-type").toStdString());
        if (!type) {
            error = QStringLiteral("--raw-type: unknown type '%1'").arg(parser.value("raw-type"));
            return false;
        }
        spec.type = *type;
        const QString endian = parser.value("raw-endian");
        if (endian != "little" && endian != "big") {
            error = QStringLiteral("--raw-endian takes little or big");
            return false;
        }
        spec.bigEndian = endian == "big";
        spec.offset = parser.value("raw-offset").toULongLong(&ok);
        if (!ok) {
            error = QStringLiteral("--raw-offset takes a byte count");
            return false;
        }
        options.raw = spec;
    }
    return true;
}
