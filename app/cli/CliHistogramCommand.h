#pragma once

#include <QStringList>

// `histoscope-cli histogram FILE`: one file's histogram and statistics, readable on a terminal.
int runHistogramCommand(const QStringList& arguments);
