// Every user-visible histogram setting in one value type, split into what is counted and how
// it is shown. Defaults live here only; names are converted only in load/save and on the
// command line. No singleton: the window and the CLI each own a copy.
#pragma once

#include "app/core/ScopeOptions.h"
#include "common/Error.h"

#include "histoscope/HistogramTypes.h"

#include <QSettings>
#include <QString>
#include <QStringList>

#include <array>
#include <optional>

enum class LumaCoefficients { None, Bt601, Bt709 };

// Where the counted range comes from.
enum class RangeMode {
    DataType,    // the type's range: [0,256) for 8-bit, [0,65536) for 16-bit; floats [0,1), widened to the data
    DataMinMax,  // the frame's own smallest to largest finite sample, every sample included
    BitDepth,    // [0, 2^bitDepth) for integer data in a wider container (10, 12, 14 bits)
    Manual,      // the range the user set for this kind of data
};

// A manual range belongs to the kind of data it was set for: a float range never reaches an
// 8-bit JPEG opened later.
enum class RangeKind { Int8, Int16, Int32, Float };
inline constexpr int kRangeKinds = 4;
RangeKind rangeKindOf(hs::SampleType type);

struct ValueRange {
    double lo = 0.0;
    double hi = 1.0;
    bool operator==(const ValueRange&) const = default;
};

// What the engine counts: a change here means a new count.
struct CountSettings {
    hs::Strategy strategy = hs::Strategy::Auto;
    int bins = 256;                 // 0: one bin per value for integer samples (at most 2^24)
    RangeMode rangeMode = RangeMode::DataType;
    int bitDepth = 12;              // RangeMode::BitDepth
    std::array<std::optional<ValueRange>, kRangeKinds> manualRanges{};  // by RangeKind
    unsigned channelMask = 0xf;     // display channels R, G, B, A (gray is channel 0)
    bool useGpu = true;
    bool operator==(const CountSettings&) const = default;
};

// How the Histogram dock shows the counts: channels overlaid in one plot, one plot per channel
// (ImageJ's separate plots, for when additive overlap is hard to read), or a table of the bins.
enum class HistogramMode { Overlay, Separate, Table };

// How counts are shown. Luma is counted too, but only because it is shown.
struct DisplaySettings {
    LumaCoefficients luma = LumaCoefficients::Bt709;
    bool logCounts = false;
    bool cumulative = false;
    // Channels counted but not drawn in the plot, by display name ("R", "G", "B", "A", "gray",
    // "luma"); the statistics still list them.
    QStringList hiddenSeries;
    HistogramMode mode = HistogramMode::Overlay;
    bool operator==(const DisplaySettings&) const = default;
};

struct HistogramSettings {
    CountSettings counting;
    DisplaySettings display;
    ScopeOptions scopes;   // how the scopes are shown: a group of its own ("scopes")

    // Returns a notice for every stored value that was unknown or out of range and replaced by
    // its default, so the caller can say so instead of silently changing the user's choice.
    QStringList load(QSettings& settings);
    void save(QSettings& settings) const;
    bool operator==(const HistogramSettings&) const = default;
};

QString strategyDisplayName(hs::Strategy strategy);
QString rangeModeName(RangeMode mode);           // "type", "minmax", "bitdepth", "manual"
std::optional<RangeMode> parseRangeMode(const QString& name);
QString rangeKindName(RangeKind kind);           // "int8", "int16", "int32", "float"
// The strategy called `name`; otherwise nullopt with `error` (InvalidInput, no source) naming
// every valid name.
std::optional<hs::Strategy> parseStrategy(const QString& name, Error& error);
QString lumaName(LumaCoefficients luma);           // "none", "bt601", "bt709"
std::optional<LumaCoefficients> parseLuma(const QString& name);
QString histogramModeName(HistogramMode mode);     // "overlay", "separate", "table"
std::optional<HistogramMode> parseHistogramMode(const QString& name);
