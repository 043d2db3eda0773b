// Turns engine snapshots into the plain values the widgets paint and list.
#pragma once

#include "app/core/FrameRequest.h"
#include "app/core/HistogramController.h"
#include "app/core/LiveCounters.h"
#include "widgets/HistogramDisplay.h"
#include "widgets/TablePanel.h"

QColor channelColor(const QString& name);
HistogramDisplay toDisplay(const HistogramSnapshot& snapshot);
QString valueAxisTitle(hs::SampleType type);
// The reference's channels that `display` also has, scaled to the same total (equal areas),
// as dashed outlines titled `title`.
void addReference(HistogramDisplay& display, const HistogramSnapshot& reference, const QString& title);   // "value (8-bit)", "value (float)"
TableContent statisticsTable(const HistogramSnapshot& snapshot);
TableContent timingTable(const HistogramSnapshot& snapshot, const QString& backend, const LiveCounters& counters);
// Display-ordered (name, histogram) pairs: R, G, B, A or gray, then luma.
QVector<NamedChannel> orderedChannels(const HistogramSnapshot& snapshot);
