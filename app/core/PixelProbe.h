// The value under the cursor of a decoded frame, per channel in display order (R, G, B, A or
// gray), at native depth and as a float: of one pixel, or the mean over a square of 3 × 3 or
// 5 × 5 pixels around it (as ImageJ's and darktable's pickers offer), clipped at the frame's edge.
// For colour frames also the luma and HSV of those values. Cheap (at most 25 pixels), so the GUI
// thread may call it on the frame it already holds.
#pragma once

#include "io/Frame.h"
#include "app/core/HistogramSettings.h"

#include <QString>
#include <QVector>

#include <optional>

struct ProbeSample {
    QString channel;        // "R", "G", "B", "A", "gray"
    double value = 0;       // at native depth: 0..255, 0..65535, the float itself; the mean over the area
    double normalized = 0;  // integers over their type's largest value (255, 65535...); floats as they are
};

// HSV of the R, G, B means, each normalized as above (the hexcone model):
//   value = max, saturation = (max − min) / max (0 when max <= 0),
//   hue = the angle in degrees, 0 (red) .. 360; none when max == min (a gray has no hue).
struct ProbeHsv {
    std::optional<double> hue;
    double saturation = 0;
    double value = 0;
};

struct PixelProbe {
    qint64 x = -1;
    qint64 y = -1;
    bool inside = false;    // false: outside the frame, no samples
    hs::SampleType type = hs::SampleType::U8;
    int area = 1;           // the side of the square asked for: 1, 3 or 5
    qint64 left = 0, top = 0, width = 0, height = 0;   // the pixels averaged: the square clipped at the edge
    qint64 averaged = 0;    // how many pixels (width · height)
    QVector<ProbeSample> samples;
    // Colour frames only. Luma: kr R + kg G + kb B of the means (the settings' BT.601 or BT.709
    // weights), at native depth and normalized as the samples are; not rounded (the luma histogram
    // counts each pixel's luma rounded to its sample type). None when luma is turned off.
    LumaCoefficients lumaCoefficients = LumaCoefficients::None;
    std::optional<double> luma;
    std::optional<double> lumaNormalized;
    std::optional<ProbeHsv> hsv;
};

// `area`: 1, 3 or 5 (others are taken as the next odd side, from 1 to 15).
PixelProbe probePixel(const Frame& frame, qint64 x, qint64 y, int area = 1,
                      LumaCoefficients luma = LumaCoefficients::None);
// "200", "65535", "0.25": the value as its type writes it; a mean of several integers with two decimals.
QString probeValueText(const PixelProbe& probe, const ProbeSample& sample);
// The luma at native depth: two decimals for integer types (it is a weighted sum, not a sample).
QString probeLumaText(const PixelProbe& probe);
