// The values of the scopes: what a panel asks for, and the immutable snapshot the scope worker
// hands back. Qt Core only: colours are a Tint, mapped in app/gui.
#pragma once

#include "app/core/ScopeOptions.h"
#include "common/Error.h"
#include "io/Frame.h"

#include "histoscope/HistogramTypes.h"

#include <QMetaType>
#include <QString>
#include <QStringList>
#include <QVector>

#include <memory>
#include <optional>

// What a scope panel shows; a job counts the kinds in its mask only.
enum class ScopeKind : unsigned {
    Waveform = 1u << 0,      // luma against column (an RGB overlay asks for Parade)
    Parade = 1u << 1,        // R, G, B against column
    Vectorscope = 1u << 2,   // Cb against Cr
    Histogram2D = 1u << 3,   // hue against saturation, or channel against channel
};
using ScopeKinds = unsigned;
inline constexpr ScopeKinds kAllScopeKinds = 0xFu;
inline constexpr ScopeKinds scopeBit(ScopeKind kind) { return static_cast<unsigned>(kind); }

// One 2-D histogram as plain values: counts[x * yBins + y] over the in-range cells.
struct ScopePlane {
    enum class Tint { None, Red, Green, Blue, Luma };
    QString name;             // "R", "G", "B", "luma", "CbCr", "H,S", "R,G"
    Tint tint = Tint::None;
    QString xName;            // "column", "Cb", "hue", "R"
    QString yName;            // "R", "luma", "Cr", "saturation", "G"
    int xBins = 0;
    int yBins = 0;
    double xLo = 0, xHi = 1;  // [lo, hi) in the quantity's units (float frames: after exposure)
    double yLo = 0, yHi = 1;
    QVector<double> counts;
    // Per x bin, the pixels whose y fell above hi or below lo (any x in range): what a waveform
    // or parade of a float frame clips at the top and the bottom of its axis.
    QVector<double> aboveByX;
    QVector<double> belowByX;
    bool clipAtEnds = false;  // the y axis spans the whole code range: its end bins are clipped values
    double topBin = 0;        // pixels in the last and the first y bin, every x
    double bottomBin = 0;
    quint64 total = 0;        // every pixel of the region, margins included
    quint64 inRange = 0;      // pixels inside both ranges
    quint64 aboveY = 0;       // pixels whose y lies at or above hi, below lo, or is NaN
    quint64 belowY = 0;
    quint64 nanY = 0;

    double at(int x, int y) const { return counts[qsizetype(x) * yBins + y]; }
};

struct ScopeSettings {
    ScopeKinds kinds = kAllScopeKinds;
    bool bt709 = true;             // vectorscope and luma: BT.709, else BT.601
    bool useGpu = true;
    ScopePair pair = ScopePair::HueSaturation;
    double exposure = 0;           // stops, float frames only
    ScopeFloatAxis floatAxis = ScopeFloatAxis::Fit;
    bool operator==(const ScopeSettings&) const = default;
};

struct ScopeSnapshot {
    quint64 generation = 0;
    qint64 frameIndex = -1;
    std::optional<hs::Rect> roi;
    ScopeSettings settings;
    qint64 width = 0;              // the region counted
    qint64 height = 0;
    QVector<ScopePlane> waveform;  // luma (one plane); a grey frame: its only channel
    QVector<ScopePlane> parade;    // R, G, B (or the grey channel)
    std::optional<ScopePlane> vectorscope;
    std::optional<ScopePlane> histogram2d;
    double codeMax = 255;          // full scale (100 %) of the waveform and parade value axes: 255,
                                   // 65535, or 1.0 for float frames (float units, luma too)
    double lumaCodeMax = 255;      // full scale of Cb and Cr codes (2^D - 1)
    bool floatValues = false;      // a float frame: value axes in float units, exposure applied
    QString backend;               // "GPU" or "CPU"
    double computeMs = 0;          // this job, counting and conversion
    double scopesPerSecond = 0;    // frames whose scopes were counted per second, last second
    QStringList notices;           // kinds this frame cannot give (a grey frame has no vectorscope)
    Error error;
};

using ScopeSnapshotPtr = std::shared_ptr<const ScopeSnapshot>;
Q_DECLARE_METATYPE(ScopeSnapshotPtr)

// One request as it crosses to the worker thread.
struct ScopeJob {
    Frame frame;
    std::optional<hs::Rect> roi;
    ScopeSettings settings;
    quint64 generation = 0;
    qint64 frameIndex = -1;
};

