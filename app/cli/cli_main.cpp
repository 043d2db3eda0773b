// histoscope-cli: the engine without a window, for scripts and pipelines.
#include "app/cli/BatchCommand.h"
#include "app/cli/Console.h"
#include "app/cli/MergeCommand.h"
#include "io/NativePath.h"
#include "bench/BenchCommand.h"
#include "app/cli/CliHistogramCommand.h"
#include "app/cli/ScopeCommand.h"

#include <QCoreApplication>

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
           "\nRun 'histoscope-cli <command> --help' for a command's options.\n");
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
        return hs::bench::runBenchCommand(rest);
    }
    printError(QStringLiteral("histoscope-cli: unknown command '%1'\n").arg(command));
    printErrorText(usageText());
    return 2;
}
