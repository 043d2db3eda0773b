// histoscope-cli: the engine without a window, for scripts and pipelines.
#include "app/cli/BatchCommand.h"
#include "app/cli/Console.h"
#include "app/cli/MergeCommand.h"
#include "io/NativePath.h"
#include "bench/BenchCommand.h"
#include "app/cli/CliHistogramCommand.h"
#include "app/cli/ScopeCommand.h"

#include "histoscope/HistogramTypes.h"

#include <QCoreApplication>

#include <iostream>
#include <sstream>

namespace {

QString usageText()
{
    return QStringLiteral("usage: histoscope-cli <command> [options]\n\n"
           "commands:\n"
           "  histogram FILE     histogram and statistics of one image, video, .npy or raw file\n"
           "  batch PATH...      histograms of files and folders as CSV or JSON Lines\n"
           "  merge FILE...      add batch outputs (shards) back together exactly\n"
           "  scope KIND FILE    2-D histograms: waveform, parade, vectorscope or joint (JSON Lines)\n"
           "  bench ...          GPU self-check and benchmark (bench --help)\n"
           "\nRun 'histoscope-cli <command> --help' (or 'histoscope-cli help <command>') for a command's options;\n"
           "every command takes -q/--quiet, -v/--verbose and --version.\n");
}

// `bench` as a command of this program: its help names it so, --version answers, and its
// strategy list is the engine's (the benchmark's read-probe is a baseline it times, not a strategy).
int runBench(const std::vector<std::string>& rest)
{
    const std::string first = rest.empty() ? std::string() : rest.front();
    if (first == "--version")
        return printOutput(QStringLiteral("histoscope-cli %1\n").arg(QStringLiteral(HISTOSCOPE_VERSION))) ? 0 : 3;
    if (first == "--list-strategies" || first == "list-strategies") {
        QString names;
        for (hs::Strategy s : hs::allStrategies())
            names += QString::fromStdString(std::string(hs::strategyName(s))) + '\n';
        return printOutput(names) ? 0 : 3;
    }
    if (first == "--help" || first == "-h" || rest.empty()) {
        std::ostringstream captured;
        std::streambuf* previous = std::cout.rdbuf(captured.rdbuf());
        const int code = hs::bench::runBenchCommand(rest);
        std::cout.rdbuf(previous);
        const QString text = QString::fromStdString(captured.str()).replace(QStringLiteral("histoscope-bench"), QStringLiteral("histoscope-cli bench"));
        if (rest.empty()) {
            printErrorText(text);
            return code;
        }
        return printOutput(text) ? code : 3;
    }
    return hs::bench::runBenchCommand(rest);
}

}  // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("histoscope-cli"));
    QCoreApplication::setApplicationVersion(QStringLiteral(HISTOSCOPE_VERSION));
    // From argv as bytes: QCoreApplication::arguments() would turn a file name that is not
    // UTF-8 into replacement characters, and the file could not be opened again.
    QStringList args;
    for (int i = 0; i < argc; ++i)
        args << pathFromNative(QByteArray(argv[i]));
    if (args.size() < 2 || args[1] == "--help" || args[1] == "-h") {
        if (args.size() < 2) {
            printErrorText(usageText());
            return 2;
        }
        return printOutput(usageText()) ? 0 : 3;
    }
    if (args[1] == "--version")
        return printOutput(QStringLiteral("histoscope-cli %1\n").arg(QStringLiteral(HISTOSCOPE_VERSION))) ? 0 : 3;
    if (args[1] == "help") {
        // `histoscope-cli help CMD` is `histoscope-cli CMD --help`.
        if (args.size() < 3)
            return printOutput(usageText()) ? 0 : 3;
        args = QStringList{args[0], args[2], QStringLiteral("--help")};
    }
    const QString command = args[1];
    args.removeAt(1);  // the parser sees "histoscope-cli <options...>"
    if (command == "histogram")
        return runHistogramCommand(args);
    if (command == "batch")
        return runBatchCommand(args);
    if (command == "scope")
        return runScopeCommand(args);
    if (command == "merge")
        return runMergeCommand(args);
    if (command == "bench") {
        std::vector<std::string> rest;
        for (int i = 1; i < args.size(); ++i)
            rest.push_back(args[i].toStdString());
        return runBench(rest);
    }
    printError(QStringLiteral("histoscope-cli: unknown command '%1'\n").arg(command));
    printErrorText(usageText());
    return 2;
}
