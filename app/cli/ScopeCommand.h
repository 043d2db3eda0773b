#pragma once

#include <QStringList>

// `histoscope-cli scope KIND FILE`: 2-D histograms (waveform, parade, vectorscope, joint) as JSON
// Lines, one object per channel or channel pair, schema histoscope.histogram2d/2 (docs/SCOPES.md).
int runScopeCommand(const QStringList& arguments);
