// A small SVG plot of a file's histograms for `batch --plot-dir` (no fonts or display needed).
#pragma once

#include "app/core/FrameRequest.h"

#include <QString>
#include <QVector>

QString histogramSvg(const QString& title, const QVector<NamedChannel>& channels);
