#include "app/cli/CliHistogramCommand.h"

#include "app/cli/CliOptions.h"
#include "app/core/FrameRequest.h"
#include "io/FrameSource.h"

#include "histoscope/HistogramEngine.h"
#include "histoscope/HistogramStatistics.h"

#include <QTextStream>

#include <algorithm>

namespace {

QString sparkline(const hs::ChannelHistogram& h, int columns)
{
    static const QString levels = QStringLiteral(" ▁▂▃▄▅▆▇█");
    std::vector<double> sums(columns, 0);
    for (std::size_t b = 0; b < h.counts.size(); ++b)
        sums[b * columns / h.counts.size()] += double(h.counts[b]);
    const double peak = *std::max_element(sums.begin(), sums.end());
    QString line;
    for (double v : sums)
        line += levels[peak > 0 ? int(std::round(v / peak * 8)) : 0];
    return line;
}

}  // namespace

int runHistogramCommand(const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Prints the histogram and statistics of one file (all frames summed)."));
    parser.addHelpOption();
    addHistogramOptions(parser);
    parser.addPositionalArgument("file", "Image, video, .npy or raw file.");
    QTextStream out(stdout), err(stderr);
    if (!parser.parse(arguments)) {
        err << parser.errorText() << "\n";
        return 2;
    }
    if (parser.isSet("help")) {
        out << parser.helpText();
        return 0;
    }
    if (parser.positionalArguments().size() != 1) {
        err << "histoscope-cli histogram: give exactly one file\n";
        return 2;
    }
    CliHistogramOptions options;
    QString problem;
    if (!readHistogramOptions(parser, options, problem)) {
        err << "histoscope-cli histogram: " << problem << "\n";
        return 2;
    }
    const QString path = parser.positionalArguments().first();
    Error error;
    auto source = openFrameSource(path, options.raw, error);
    if (!source) {
        err << "error: " << error.message() << "\n";
        return 1;
    }
    hs::HistogramEngine engine(hs::EngineOptions{options.counting.useGpu});
    if (!engine.notice().empty())
        err << "note: " << QString::fromStdString(engine.notice()) << "\n";
    hs::HistogramResult result;
    Frame frame, first;
    qint64 frames = 0;
    while (source->next(frame, error)) {
        const hs::HistogramRequest request = frameRequest(frame, options.counting);
        const hs::Status s = frames == 0 ? engine.compute(request, result) : engine.accumulate(request, result);
        if (!s) {
            err << "error: " << path << ": " << QString::fromStdString(s.message) << "\n";
            return 1;
        }
        if (frames++ == 0)
            first = frame;
    }
    for (const QString& w : source->warnings)
        err << "warning: " << w << "\n";
    if (error.isError()) {
        err << "error: " << error.message() << "\n";
        if (frames == 0)
            return 1;
    }
    out << path << ": " << first.width() << "x" << first.height() << ", " << first.channels() << " channel(s), "
        << QString::fromStdString(std::string(hs::sampleTypeName(first.type()))) << ", " << frames << " frame(s)\n";
    out << "engine: " << (engine.hasGpu() ? QString::fromStdString(engine.deviceInfo()->name) : QStringLiteral("CPU"))
        << ", strategy " << QString::fromStdString(std::string(hs::strategyName(result.strategyRan)))
        << QStringLiteral(", %1 ms").arg(result.timings.totalMs(), 0, 'f', 3) << "\n";
    for (const NamedChannel& channel : displayOrderedChannels(first, result)) {
        const hs::ChannelHistogram& h = *channel.histogram;
        const hs::ChannelStatistics st = hs::computeStatistics(h, statisticsContext(first, h));
        out << QStringLiteral("%1  %2 bins [%3, %4)  count %5  mean %6  sd %7  median %8  min %9  max %10")
                   .arg(resultChannelName(first, h), -4)
                   .arg(h.counts.size())
                   .arg(h.binning.lo)
                   .arg(hs::upperEdge(h.binning))
                   .arg(st.count)
                   .arg(st.mean, 0, 'g', 6)
                   .arg(st.stdDevPopulation, 0, 'g', 6)
                   .arg(st.median, 0, 'g', 6)
                   .arg(st.min ? QString::number(*st.min, 'g', 6) : QStringLiteral("?"))
                   .arg(st.max ? QString::number(*st.max, 'g', 6) : QStringLiteral("?"))
            << QStringLiteral("  entropy %1 bits  below %2  above %3  NaN %4\n")
                   .arg(st.entropyBits, 0, 'f', 3)
                   .arg(h.below)
                   .arg(h.above)
                   .arg(h.nan)
            << "      |" << sparkline(h, 64) << "|\n";
    }
    return error.isError() ? 1 : 0;
}
