#include "app/cli/ScopeCommand.h"

#include "app/cli/CliOptions.h"
#include "app/cli/Console.h"
#include "app/cli/Interrupts.h"
#include "app/cli/OutputSink.h"
#include "app/cli/StdinInput.h"
#include "common/Error.h"
#include "io/FrameSource.h"

#include "app/core/EngineHolder.h"

#include "histoscope/Histogram2D.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonDocument>

#include <cmath>
#include <memory>
#include <optional>

namespace {

enum class ScopeKind { Waveform, Parade, Vectorscope, Joint };

struct ScopeCommandOptions {
    CommonAction action = CommonAction::Run;
    ScopeKind kind = ScopeKind::Parade;
    QString kindName;
    QString path;
    QStringList channels;                 // display names or indices, as typed
    hs::YCbCrStandard standard = hs::YCbCrStandard::Bt709;
    std::uint32_t columnBins = 0;         // 0: one per column
    std::uint32_t bins = 0;               // 0: the scope default (256)
    std::optional<hs::Rect> roi;
    qint64 frame = 0;
    bool allFrames = false;
    bool useGpu = true;
    hs::Strategy strategy = hs::Strategy::Auto;
    QString output;
};

// One histogram of the output with the names it is written under.
struct Named {
    QString channel;
    QString xName;
    QString yName;
};

QString number(double v)
{
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9.0e15)
        return QString::number(qint64(v));
    return QString::number(v, 'g', 17);
}

bool parseOptions(const QStringList& arguments, ScopeCommandOptions& o, QString& problem, QCommandLineParser& parser)
{
    parser.setApplicationDescription(QStringLiteral(
        "Writes 2-D histograms of one file as JSON Lines (schema histoscope.histogram2d/2):\n"
        "  waveform     column against luma (gray images: against the gray value)\n"
        "  parade       column against each of R, G and B (counts[x][v]: pixels of column x with value v)\n"
        "  vectorscope  Cb against Cr, integer BT.601 or BT.709 arithmetic (docs/SCOPES.md)\n"
        "  joint        channel A against channel B (--channels A,B): counts[a][b]"));
    addCommonOptions(parser);
    parser.addPositionalArgument("kind", "waveform, parade, vectorscope or joint.");
    parser.addPositionalArgument("file", "Image, video, .npy or raw file.");
    parser.addOption({"channels", "Channels by name (R,G,B,A,gray) or display index: joint takes A,B; parade a subset.", "list"});
    parser.addOption({"standard", "bt601 or bt709 (default) for luma, Cb and Cr.", "name"});
    parser.addOption({"column-bins", "Column bins of waveform and parade (default: one per column).", "n"});
    parser.addOption({"bins", "Value bins per axis (default 256).", "n"});
    parser.addOption({"roi", "Region x,y,width,height.", "rect"});
    parser.addOption({"frame", "Frame of a video or stack (default 0).", "n"});
    parser.addOption({"all-frames", "Every frame of a video or stack, one set of objects each."});
    parser.addOption({"cpu", "Count on the CPU even when a GPU is present."});
    parser.addOption({"strategy", "auto, cpu, global-atomic, shared or cub (docs/SCOPES.md); a GPU strategy without a GPU is a usage error.", "name"});
    parser.addOption({{"o", "output"}, "Write to this file instead of standard output.", "file"});
    if (!parser.parse(arguments)) {
        problem = parser.errorText();
        return false;
    }
    Error common;
    if (!readCommonOptions(parser, o.action, common)) {
        problem = common.cause;
        return false;
    }
    if (o.action != CommonAction::Run)
        return true;
    const QStringList pos = parser.positionalArguments();
    if (pos.size() != 2) {
        problem = QStringLiteral("give a kind (waveform, parade, vectorscope, joint) and one file");
        return false;
    }
    o.kindName = pos[0];
    if (o.kindName == "waveform")
        o.kind = ScopeKind::Waveform;
    else if (o.kindName == "parade")
        o.kind = ScopeKind::Parade;
    else if (o.kindName == "vectorscope")
        o.kind = ScopeKind::Vectorscope;
    else if (o.kindName == "joint")
        o.kind = ScopeKind::Joint;
    else {
        problem = QStringLiteral("unknown kind '%1': use waveform, parade, vectorscope or joint").arg(o.kindName);
        return false;
    }
    o.path = pos[1];
    if (parser.isSet("channels"))
        o.channels = parser.value("channels").split(',', Qt::SkipEmptyParts);
    if (o.kind == ScopeKind::Joint && o.channels.size() != 2) {
        problem = QStringLiteral("joint needs --channels A,B (two channels)");
        return false;
    }
    if (parser.isSet("standard")) {
        const auto s = hs::standardFromName(parser.value("standard").toLower().toStdString());
        if (!s) {
            problem = QStringLiteral("unknown standard '%1': use bt601 or bt709").arg(parser.value("standard"));
            return false;
        }
        o.standard = *s;
    }
    auto positive = [&](const char* name, std::uint32_t& out) {
        if (!parser.isSet(name))
            return true;
        bool ok = false;
        const qlonglong v = parser.value(name).toLongLong(&ok);
        if (!ok || v < 1 || v > qlonglong(hs::kMaxBins)) {
            problem = QStringLiteral("--%1 takes a whole number from 1 to %2").arg(name).arg(hs::kMaxBins);
            return false;
        }
        out = std::uint32_t(v);
        return true;
    };
    if (!positive("column-bins", o.columnBins) || !positive("bins", o.bins))
        return false;
    if (parser.isSet("roi")) {
        const QStringList parts = parser.value("roi").split(',');
        bool ok = parts.size() == 4;
        qint64 v[4] = {0, 0, 0, 0};
        for (int i = 0; ok && i < 4; ++i)
            v[i] = parts[i].trimmed().toLongLong(&ok);
        if (!ok || v[0] < 0 || v[1] < 0 || v[2] < 1 || v[3] < 1) {
            problem = QStringLiteral("--roi takes x,y,width,height (width and height at least 1)");
            return false;
        }
        o.roi = hs::Rect{v[0], v[1], v[2], v[3]};
    }
    if (parser.isSet("frame")) {
        bool ok = false;
        o.frame = parser.value("frame").toLongLong(&ok);
        if (!ok || o.frame < 0) {
            problem = QStringLiteral("--frame takes a frame index from 0");
            return false;
        }
    }
    o.allFrames = parser.isSet("all-frames");
    if (o.allFrames && parser.isSet("frame")) {
        problem = QStringLiteral("--frame and --all-frames exclude each other: give one");
        return false;
    }
    o.useGpu = !parser.isSet("cpu");
    if (parser.isSet("strategy")) {
        const auto s = hs::strategyFromName(parser.value("strategy").toStdString());
        if (!s) {
            problem = QStringLiteral("unknown strategy '%1'").arg(parser.value("strategy"));
            return false;
        }
        o.strategy = *s;
    }
    o.output = parser.value("output");
    if (parser.isSet("output") && o.output.isEmpty()) {
        problem = QStringLiteral("-o takes a file name (it was given an empty one; leave -o out to write to stdout)");
        return false;
    }
    return true;
}

// A channel typed by the user: a display name of the frame, or a display index.
std::optional<int> storageChannel(const Frame& frame, const QString& typed)
{
    for (int s = 0; s < frame.channels(); ++s)
        if (channelName(frame.channelOrder(), s).compare(typed, Qt::CaseInsensitive) == 0)
            return s;
    bool ok = false;
    const int display = typed.toInt(&ok);
    if (ok && display >= 0 && display < frame.channels())
        return frame.storageIndexOfDisplayChannel(display);
    return std::nullopt;
}

bool isColourFrame(const Frame& frame)
{
    const ChannelOrder o = frame.channelOrder();
    return frame.channels() >= 3 && o != ChannelOrder::Gray && o != ChannelOrder::GrayAlpha;
}

hs::ChannelBinning valueBinning(const Frame& frame, const ScopeCommandOptions& o)
{
    hs::ChannelBinning b = hs::scopeValueBinning(frame.type(), hs::Quantity::Channel);
    if (hs::isFloatType(frame.type())) {
        b.lo = frame.nominalLo();
        b.hi = frame.nominalHi();
    }
    if (o.bins)
        b.bins = o.bins;
    return b;
}

// The request for a frame, and the names of its histograms; an empty request with `error` set
// when the frame cannot give this scope.
bool buildRequest(const Frame& frame, const ScopeCommandOptions& o, hs::Histogram2DRequest& request, QVector<Named>& names,
                  Error& error)
{
    request = hs::Histogram2DRequest{};
    names.clear();
    hs::ImageView view = frame.view();
    view.roi = o.roi;
    request.image = view;
    request.standard = o.standard;
    request.strategy = o.useGpu ? o.strategy : hs::Strategy::Cpu;
    const std::int64_t width = hs::regionWidth(view);
    const bool colour = isColourFrame(frame);
    if (colour)
        request.rgb = {frame.storageIndexOfDisplayChannel(0), frame.storageIndexOfDisplayChannel(1),
                       frame.storageIndexOfDisplayChannel(2)};
    auto fail = [&](const QString& cause) {
        error = Error::make(ErrorKind::InvalidInput, o.path, cause);
        return false;
    };
    auto channelList = [&](QVector<int>& out) {
        if (o.channels.isEmpty()) {
            const int n = colour ? 3 : (frame.channelOrder() == ChannelOrder::GrayAlpha ? 1 : frame.channels());
            for (int d = 0; d < n; ++d)
                out << frame.storageIndexOfDisplayChannel(d);
            return true;
        }
        for (const QString& typed : o.channels) {
            const auto s = storageChannel(frame, typed);
            if (!s)
                return fail(QStringLiteral("no channel '%1' in this %2-channel frame").arg(typed).arg(frame.channels()));
            out << *s;
        }
        return true;
    };
    switch (o.kind) {
    case ScopeKind::Parade: {
        QVector<int> channels;
        if (!channelList(channels))
            return false;
        for (int s : channels) {
            hs::AxisPair p{hs::columnAxis(width, o.columnBins), hs::channelAxis(s, frame.type())};
            p.y.binning = valueBinning(frame, o);
            request.pairs.push_back(p);
            const QString name = channelName(frame.channelOrder(), s);
            names.push_back({name, QStringLiteral("column"), name});
        }
        break;
    }
    case ScopeKind::Waveform: {
        if (colour) {
            hs::AxisPair p{hs::columnAxis(width, o.columnBins), hs::colourAxis(hs::Quantity::Luma, frame.type())};
            if (o.bins)
                p.y.binning.bins = o.bins;
            request.pairs.push_back(p);
            names.push_back({QStringLiteral("luma"), QStringLiteral("column"), QStringLiteral("luma")});
        } else {
            hs::AxisPair p{hs::columnAxis(width, o.columnBins), hs::channelAxis(0, frame.type())};
            p.y.binning = valueBinning(frame, o);
            request.pairs.push_back(p);
            const QString name = channelName(frame.channelOrder(), 0);
            names.push_back({name, QStringLiteral("column"), name});
        }
        break;
    }
    case ScopeKind::Vectorscope: {
        if (!colour)
            return fail(QStringLiteral("a vectorscope needs a colour frame (R, G, B), this one has %1 channel(s)")
                            .arg(frame.channels()));
        request.pairs.push_back({hs::colourAxis(hs::Quantity::Cb, frame.type()), hs::colourAxis(hs::Quantity::Cr, frame.type())});
        if (o.bins)
            request.pairs[0].x.binning.bins = request.pairs[0].y.binning.bins = o.bins;
        names.push_back({QStringLiteral("CbCr"), QStringLiteral("Cb"), QStringLiteral("Cr")});
        break;
    }
    case ScopeKind::Joint: {
        QVector<int> channels;
        if (!channelList(channels))
            return false;
        hs::AxisPair p{hs::channelAxis(channels[0], frame.type()), hs::channelAxis(channels[1], frame.type())};
        p.x.binning = p.y.binning = valueBinning(frame, o);
        request.pairs.push_back(p);
        const QString a = channelName(frame.channelOrder(), channels[0]);
        const QString b = channelName(frame.channelOrder(), channels[1]);
        names.push_back({a + "," + b, a, b});
        break;
    }
    }
    return true;
}

// The schema of scope records; version 2 added the `record` key and the summary that ends a
// finished output, as the histogram schema's.
const QByteArray kScopeSchema = "histoscope.histogram2d/2";

// A JSON string as Qt writes it (control characters escaped, names that are not UTF-8 as
// \udcXX, like the histogram records).
QByteArray jsonString(const QString& text)
{
    QByteArray array = QJsonDocument(QJsonArray{text}).toJson(QJsonDocument::Compact);
    array.replace("\xef\xbb\xbf", "\\ufeff");  // Qt's parser would drop a leading U+FEFF
    return array.mid(1, array.size() - 2);
}

QByteArray summaryJson(qint64 records, qint64 files, qint64 failed, qint64 frames)
{
    return "{\"record\":\"summary\",\"schema\":\"" + kScopeSchema + "\",\"records\":" + QByteArray::number(records)
        + ",\"files\":" + QByteArray::number(files) + ",\"failed\":" + QByteArray::number(failed)
        + ",\"frames\":" + QByteArray::number(frames) + "}\n";
}

QByteArray axisJson(const QString& name, const hs::ChannelBinning& b)
{
    return "{\"name\":" + jsonString(name) + ",\"bins\":" + QByteArray::number(b.bins) + ",\"lo\":" + number(b.lo).toUtf8()
        + ",\"hi\":" + number(hs::upperEdge(b)).toUtf8() + "}";
}

QByteArray outsideJson(const hs::AxisOutside& o)
{
    return "{\"below\":" + QByteArray::number(quint64(o.below)) + ",\"above\":" + QByteArray::number(quint64(o.above))
        + ",\"nan\":" + QByteArray::number(quint64(o.nan)) + "}";
}

QByteArray objectJson(const ScopeCommandOptions& o, const QString& file, std::optional<qint64> frame, const Named& name,
                      const hs::Histogram2D& h)
{
    QByteArray s;
    const std::uint32_t bx = h.axes.x.binning.bins, by = h.axes.y.binning.bins;
    s.reserve(int(std::min<std::uint64_t>(std::uint64_t(bx) * by * 3 + 512, 1u << 30)));
    s += "{\"record\":\"histogram2d\",\"schema\":\"" + kScopeSchema + "\",\"file\":" + jsonString(file);
    if (frame)
        s += ",\"frame\":" + QByteArray::number(*frame);
    s += ",\"kind\":\"" + o.kindName.toUtf8() + "\",\"channel\":\"" + name.channel.toUtf8() + "\"";
    if (o.kind == ScopeKind::Vectorscope || (o.kind == ScopeKind::Waveform && name.channel == "luma"))
        s += ",\"standard\":\"" + QByteArray(hs::standardName(o.standard).data()) + "\"";
    s += ",\"x\":" + axisJson(name.xName, h.axes.x.binning) + ",\"y\":" + axisJson(name.yName, h.axes.y.binning);
    s += ",\"outside\":{\"x\":" + outsideJson(h.outsideX()) + ",\"y\":" + outsideJson(h.outsideY()) + "}";
    s += ",\"counts\":[";
    for (std::uint32_t x = 0; x < bx; ++x) {
        s += x ? ",[" : "[";
        for (std::uint32_t y = 0; y < by; ++y) {
            if (y)
                s += ',';
            s += QByteArray::number(quint64(h.count(x, y)));
        }
        s += ']';
    }
    s += "]}\n";
    return s;
}

}  // namespace

int runScopeCommand(const QStringList& arguments)
{
    // Before any thread exists: SIGPIPE ignored (a closed pipe is a checked write error, exit 3,
    // as for batch), Ctrl-C and SIGTERM taken between two lines.
    Interrupts::install();
    QCommandLineParser parser;
    ScopeCommandOptions o;
    QString problem;
    auto usage = [](const QString& text) {
        printError(QStringLiteral("histoscope-cli scope: %1\n").arg(text));
        return 2;
    };
    if (!parseOptions(arguments, o, problem, parser))
        return usage(problem);
    if (o.action != CommonAction::Run)
        return printCommonAction(parser, QStringLiteral("scope"), o.action);
    if (const Error same = outputIsInput(o.output, {o.path}); same.isError())
        return usage(same.cause);
    EngineHolder<hs::Histogram2DEngine> holder;
    const hs::Histogram2DEngine& probe = holder.engine(o.useGpu);
    if (hs::isGpuStrategy(o.strategy) && (!o.useGpu || !probe.hasGpu()))
        return usage(QStringLiteral("--strategy %1 runs on a CUDA GPU, and %2; use --strategy auto or cpu")
                         .arg(QString::fromStdString(std::string(hs::strategyName(o.strategy))),
                              o.useGpu ? QStringLiteral("no GPU was found") : QStringLiteral("--cpu was given")));
    if (const std::string& notice = probe.notice(); !notice.empty() && o.useGpu)
        printNotice(QStringLiteral("note: %1\n").arg(QString::fromStdString(notice)));
    Error error;
    StdinInput stdinInput;
    if (StdinInput::names(o.path) && !stdinInput.copy(o.path, error)) {
        if (error.kind == ErrorKind::Usage)
            return usage(error.message());
        printError(QStringLiteral("error: %1\n").arg(error.message()));
        return 1;
    }
    auto source = openFrameSource(stdinInput.path().isEmpty() ? o.path : stdinInput.path(), std::nullopt, error);
    if (!source) {
        printError(QStringLiteral("error: %1\n").arg(stdinInput.shown(error).message()));
        return 1;
    }
    const bool sequence = source->kind() == FrameSource::MediaKind::Video || source->frameCount() > 1;
    if (!o.allFrames && o.frame > 0 && !source->seek(o.frame, error)) {
        printError(QStringLiteral("error: %1\n").arg(stdinInput.shown(error).message()));
        return 1;
    }
    // Checked output (OutputSink): whole lines, a failed write or close is an error (exit 3),
    // never a silent truncation.
    OutputSink out;
    Interrupts::setExitNote(QStringLiteral("the scope output has no summary record"));
    if (!out.open(o.output, error)) {
        printError(QStringLiteral("histoscope-cli scope: %1\n").arg(error.message()));
        return error.kind == ErrorKind::Locked ? 2 : 3;
    }
    Error writeError;
    auto write = [&](const QByteArray& bytes) { return !writeError.isError() && out.writeLine(bytes, writeError); };

    Frame frame;
    qint64 index = o.allFrames ? 0 : o.frame;
    qint64 frames = 0, records = 0;
    Error failure;  // the file's, after what was written before it
    while (!Interrupts::requested() && source->next(frame, error)) {
        hs::Histogram2DRequest request;
        QVector<Named> names;
        if (!buildRequest(frame, o, request, names, failure))
            break;
        // After a GPU fault the holder counts the frame again on the rebuilt engine.
        hs::Histogram2DResult result;
        const hs::Status s = holder.run(
            o.useGpu, [&](hs::Histogram2DEngine& engine) { return engine.compute(request, result); },
            [](const hs::Status& status) { return status.code == hs::ErrorCode::DeviceLost ? QString::fromStdString(status.message) : QString(); });
        if (const QString notice = holder.takeNotice(); !notice.isEmpty())
            printError(QStringLiteral("warning: %1: %2\n").arg(o.path, notice));
        if (!s) {
            failure = Error::fromStatus(s, o.path);
            break;
        }
        bool ok = true;
        for (int i = 0; ok && i < int(result.histograms.size()); ++i) {
            ok = write(objectJson(o, o.path, sequence ? std::optional<qint64>(index) : std::nullopt, names[i], result.histograms[i]));
            records += ok ? 1 : 0;
        }
        if (!ok)
            break;
        ++frames;
        ++index;
        if (!o.allFrames)
            break;
    }
    for (const QString& w : source->warnings)
        printError(QStringLiteral("warning: %1\n").arg(stdinInput.shown(w)));
    error = stdinInput.shown(error);
    if (!failure.isError() && error.isError())
        failure = frames == 0 && o.frame > 0 && !o.allFrames
                      ? Error::make(error.kind, o.path, QStringLiteral("frame %1 could not be read: %2").arg(o.frame).arg(error.cause))
                      : error;
    if (!failure.isError() && frames == 0 && !writeError.isError() && !Interrupts::requested())
        failure = Error::make(ErrorKind::Empty, o.path, QStringLiteral("no frame %1").arg(o.frame));
    const bool interrupted = Interrupts::requested();
    // A finished output ends with its summary, as batch's does: one without it was cut short.
    if (!interrupted)
        write(summaryJson(records, failure.isError() ? 0 : 1, failure.isError() ? 1 : 0, frames));
    if (!writeError.isError())
        out.close(writeError);
    if (failure.isError())
        printError(QStringLiteral("error: %1%2\n").arg(failure.message(), frames ? QStringLiteral(" (the output holds the %1 frame(s) before it)").arg(frames) : QString()));
    if (writeError.isError()) {
        printError(QStringLiteral("error: %1\n").arg(writeError.message()));
        return 3;
    }
    if (interrupted) {
        printError(QStringLiteral("interrupted: %1 holds %2 whole line(s) and no summary record\n").arg(out.name()).arg(out.lines()));
        return 130;
    }
    return failure.isError() ? 1 : 0;
}
