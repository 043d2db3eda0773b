// Command-line options shared by `histogram` and `batch`: bins, range, channels, strategy and
// the shape of headerless raw files, parsed with QCommandLineParser.
#pragma once

#include "app/core/HistogramSettings.h"
#include "io/RawFormat.h"

#include <QCommandLineParser>

#include <optional>

struct CliHistogramOptions {
    CountSettings counting;
    std::optional<rawformat::RawSpec> raw;
};

void addHistogramOptions(QCommandLineParser& parser);
// False with `error` set when an option is malformed.
bool readHistogramOptions(const QCommandLineParser& parser, CliHistogramOptions& options, QString& error);
