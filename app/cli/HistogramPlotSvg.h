// A small SVG plot of a file's histograms for `batch --plot-dir` (no fonts or display needed),
// readable as ImageJ's or GIMP's histogram is: a value axis labelled at the data's first and last
// bin edges, a linear count axis from 0 to the highest count drawn, and a legend when there is
// more than one channel. Every channel is drawn at its own bin edges on one value axis, so
// channels binned over different ranges (a float file's, per channel) line up by value.
#pragma once

#include "app/core/FrameRequest.h"

#include <QString>
#include <QVector>

// `title` (usually the file's path) may hold any character: it is escaped, and characters XML
// cannot carry are replaced, so the result is always a well-formed standalone SVG.
QString histogramSvg(const QString& title, const QVector<NamedChannel>& channels);
