// How the scopes are shown, remembered between runs: each panel's brightness (gain), intensity
// scale and graticule, the vectorscope's targets and trace colour, the 2-D histogram's pair, the
// exposure and axis of float frames, and the Scopes dock's current tab. A value composed into
// HistogramSettings (its `scopes`), loaded and saved with it under the "scopes" group; defaults
// live here only. Qt Core only.
#pragma once

#include <QSettings>
#include <QString>
#include <QStringList>

// Which 2-D histogram the 2-D Histogram panel counts.
enum class ScopePair { HueSaturation, RedGreen, RedBlue, GreenBlue };
QString scopePairName(ScopePair pair);   // "H–S", "R–G", "R–B", "G–B"

// The waveform's and parade's value scale: code values (float units for float frames) or percent
// of full scale (0–100 %, IRE-style).
enum class ScopeScale { CodeValues, Percent };
// Where 0 % and 100 % lie: the whole code range, or video's legal range (16–235 in 8 bits).
enum class ScopeRange { Full, Legal };
// The vectorscope's colour targets: 75 % or 100 % colour bars.
enum class ScopeTargets { Bars75, Bars100 };
// The vectorscope's trace: a phosphor tint, or each cell in the colour of its Cb, Cr.
enum class ScopeTrace { Classic, PixelColours };
// The value axis of a float frame: one that holds every finite sample (at least 0–1), or the
// display range 0–1, where exposure brings HDR values into view and what lies above is clipped.
enum class ScopeFloatAxis { Fit, Unit };

struct ScopeIntensity {
    double gain = 1.0;   // brightness, kMinGain..kMaxGain
    bool log = false;    // log intensity instead of the phosphor response
    bool operator==(const ScopeIntensity&) const = default;
};

struct ScopeGraticule {
    ScopeScale scale = ScopeScale::CodeValues;
    ScopeRange range = ScopeRange::Full;
    bool operator==(const ScopeGraticule&) const = default;
};

struct ScopeOptions {
    static constexpr double kMinGain = 0.25;
    static constexpr double kMaxGain = 64.0;
    static constexpr double kMaxExposure = 10.0;   // stops, either way
    static constexpr int kTabs = 4;                // waveform, parade, vectorscope, 2-D histogram

    ScopeIntensity waveform;
    ScopeIntensity parade;
    ScopeIntensity vectorscope;
    bool histogram2dLog = true;          // the 2-D histogram's colour scale
    ScopeGraticule waveformGraticule;
    ScopeGraticule paradeGraticule;
    bool rgbWaveform = false;            // the waveform overlays R, G and B instead of luma
    ScopeTargets targets = ScopeTargets::Bars75;
    ScopeTrace trace = ScopeTrace::Classic;
    bool skinToneLine = true;
    ScopePair pair = ScopePair::HueSaturation;
    double exposure = 0.0;               // stops applied to float frames before they are placed
    ScopeFloatAxis floatAxis = ScopeFloatAxis::Fit;
    int tab = 0;                         // the Scopes dock's current tab, 0..kTabs-1

    // A notice for every stored value that was unknown or out of range and replaced by its
    // default, as HistogramSettings::load gives.
    QStringList load(QSettings& settings);
    void save(QSettings& settings) const;
    bool operator==(const ScopeOptions&) const = default;
};
