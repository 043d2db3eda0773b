// Command-line options shared by `histogram` and `batch`: bins, range, channels, strategy,
// memory budget and the shape of headerless raw files, parsed with QCommandLineParser. Every
// value is checked here, up front: a number that does not parse or overflows, a range the
// engine cannot bin, or a GPU strategy without a GPU is a usage error, not a failure per file.
#pragma once

#include "common/Error.h"

#include "app/core/HistogramSettings.h"
#include "io/Frame.h"
#include "io/RawFormat.h"

#include <QCommandLineParser>

#include <optional>

// A command-line usage error: no file to name, the option says what is wrong (exit code 2).
inline Error usageError(const QString& cause) { return Error::make(ErrorKind::Usage, QString(), cause); }

struct CliHistogramOptions {
    CountSettings counting;
    QStringList channels;            // --channels as typed, normalized: R, G, B, A or gray; empty: all
    bool binsGiven = false;          // --bins or --range given: integer key files keep them (FileBinning)
    bool rangeGiven = false;
    std::optional<rawformat::RawSpec> raw;
    std::uint64_t memoryBudget = 0;  // bytes for all files decoded at once
    bool strict = false;             // --strict: a file with a warning fails
};

// The options every command takes, the GNU way: -h/--help, --version, -q/--quiet (no notes),
// -v/--verbose (what was skipped and why). addHelpOption() is not used: its --help-all would
// be listed and then refused.
void addCommonOptions(QCommandLineParser& parser);
enum class CommonAction { Run, Help, Version };
// Sets the verbosity; false with a usage error for -q with -v.
bool readCommonOptions(const QCommandLineParser& parser, CommonAction& action, Error& error);
// The help of `histoscope-cli COMMAND`, whose usage line names the command (Qt's names argv[0]).
QString commandHelp(const QCommandLineParser& parser, const QString& command);
// Prints help or version for `action` (exit code 0, or 3 when stdout cannot take it).
int printCommonAction(const QCommandLineParser& parser, const QString& command, CommonAction action);
// The strategies the engine takes, as --help lists them (the one list: hs::allStrategies()).
QString strategyList();
// A usage error for an output option given an empty name: `-o ''` would write to stdout silently.
Error emptyOutput(const QCommandLineParser& parser, const QString& option);

void addHistogramOptions(QCommandLineParser& parser);
// An InvalidInput error naming the file when `frame` has no channel of that name: --channels R
// on a gray image counts no gray samples under the name R, and --channels gray on RGB no red ones.
Error missingChannel(const Frame& frame, const QStringList& channels, const QString& path);
// False with `error` set when an option is malformed.
bool readHistogramOptions(const QCommandLineParser& parser, CliHistogramOptions& options, Error& error);
// A GPU strategy on a run without a GPU is refused (not quietly run on the CPU), so timings
// and results are what the user asked for. `hasGpu`: whether the engine found a device.
bool checkStrategyAvailable(const CountSettings& counting, bool hasGpu, Error& error);
