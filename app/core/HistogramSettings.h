// Every user-visible histogram setting in one value struct: defaults live here only, and
// load/save go through QSettings. No singleton: the window and the CLI each own a copy.
#pragma once

#include <QSettings>
#include <QString>

enum class LumaCoefficients { None, Bt601, Bt709 };

struct HistogramSettings {
    QString strategy = QStringLiteral("auto");
    int bins = 256;                 // 0: one bin per value for integer samples (at most 2^24)
    bool autoRange = true;          // the frame's nominal range ([0,256), [0,65536), [0,1))
    double lo = 0.0;
    double hi = 1.0;
    unsigned channelMask = 0xf;     // display channels R, G, B, A (gray is channel 0)
    LumaCoefficients luma = LumaCoefficients::Bt709;
    bool logCounts = false;
    bool cumulative = false;
    bool useGpu = true;

    void load(QSettings& settings);
    void save(QSettings& settings) const;
    bool operator==(const HistogramSettings&) const = default;
};
