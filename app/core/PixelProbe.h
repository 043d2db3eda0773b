// The value of one pixel of a decoded frame, per channel in display order (R, G, B, A or gray),
// at native depth and as a float. Cheap (one pixel), so the GUI thread may call it on the
// frame it already holds.
#pragma once

#include "io/Frame.h"

#include <QString>
#include <QVector>

struct ProbeSample {
    QString channel;        // "R", "G", "B", "A", "gray"
    double value = 0;       // at native depth: 0..255, 0..65535, the float itself
    double normalized = 0;  // integers over their type's largest value (255, 65535...); floats as they are
};

struct PixelProbe {
    qint64 x = -1;
    qint64 y = -1;
    bool inside = false;    // false: outside the frame, no samples
    hs::SampleType type = hs::SampleType::U8;
    QVector<ProbeSample> samples;
};

PixelProbe probePixel(const Frame& frame, qint64 x, qint64 y);
// "200", "65535", "0.25": the value as its type writes it.
QString probeValueText(const PixelProbe& probe, const ProbeSample& sample);
