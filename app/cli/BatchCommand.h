#pragma once

#include <QStringList>

// `histoscope-cli batch PATH...`: histograms of files and folders as CSV or JSON Lines.
int runBatchCommand(const QStringList& arguments);
