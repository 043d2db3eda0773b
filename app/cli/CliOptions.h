// Command-line options shared by `histogram` and `batch`: bins, range, channels, strategy,
// memory budget and the shape of headerless raw files, parsed with QCommandLineParser. Every
// value is checked here, up front: a number that does not parse or overflows, a range the
// engine cannot bin, or a GPU strategy without a GPU is a usage error, not a failure per file.
#pragma once

#include "common/Error.h"

#include "app/core/HistogramSettings.h"
#include "io/RawFormat.h"

#include <QCommandLineParser>

#include <optional>

// A command-line usage error: no file to name, the option says what is wrong (exit code 2).
inline Error usageError(const QString& cause) { return Error::make(ErrorKind::Usage, QString(), cause); }

struct CliHistogramOptions {
    CountSettings counting;
    std::optional<rawformat::RawSpec> raw;
    std::uint64_t memoryBudget = 0;  // bytes for all files decoded at once
    bool strict = false;             // --strict: a file with a warning fails
};

void addHistogramOptions(QCommandLineParser& parser);
// False with `error` set when an option is malformed.
bool readHistogramOptions(const QCommandLineParser& parser, CliHistogramOptions& options, Error& error);
// A GPU strategy on a run without a GPU is refused (not quietly run on the CPU), so timings
// and results are what the user asked for. `hasGpu`: whether the engine found a device.
bool checkStrategyAvailable(const CountSettings& counting, bool hasGpu, Error& error);
