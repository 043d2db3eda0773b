// What the scope widgets paint: plain values built by the app from the engine's 2-D histograms
// (hs::Histogram2D), so that widgets/ never sees the engine's headers. One ScopeGrid is one 2-D
// histogram: counts over x bins and y bins, x-major, with the axes' ranges in data units.
#pragma once

#include <QColor>
#include <QString>
#include <QVector>

#include <algorithm>

struct ScopeGrid {
    QString name;              // "R", "G", "B", "luma", "CbCr", "H,S"
    QColor color = Qt::white;  // trace colour in waveforms and parades
    QString xName;             // "column", "Cb", "hue"
    QString yName;             // "R", "luma", "Cr", "saturation"
    int xBins = 0;
    int yBins = 0;
    double xLo = 0, xHi = 1;   // [lo, hi) of each axis, in the quantity's units
    double yLo = 0, yHi = 1;
    QVector<double> counts;    // xBins * yBins, counts[x * yBins + y]
    // Waveform and parade: per x bin, the pixels above and below the value axis (a float frame's
    // clipped samples); empty when none are kept.
    QVector<double> over;
    QVector<double> under;
    bool clipAtEnds = false;   // the first and last y bins are the code range's ends: clipped values

    bool isValid() const { return xBins > 0 && yBins > 0 && counts.size() == qsizetype(xBins) * yBins; }
    double at(int x, int y) const { return counts[qsizetype(x) * yBins + y]; }
    double maxCount() const { return counts.isEmpty() ? 0.0 : *std::max_element(counts.cbegin(), counts.cend()); }
    // Pixels of column x that lie at or beyond the top (bottom) of the axis: clipped.
    double clippedHigh(int x) const
    {
        return over.value(x) + (clipAtEnds && yBins > 0 ? at(x, yBins - 1) : 0.0);
    }
    double clippedLow(int x) const { return under.value(x) + (clipAtEnds && yBins > 0 ? at(x, 0) : 0.0); }
};

struct ScopeDisplay {
    // Waveform: 1 grid (luma) or 3 (R, G, B overlaid); parade: one grid per channel, side by side;
    // vectorscope: 1 grid of Cb (x) against Cr (y); histogram2d: 1 grid of any two quantities.
    enum class Kind { Waveform, Parade, Vectorscope, Histogram2D };
    Kind kind = Kind::Waveform;
    QVector<ScopeGrid> grids;
    double codeMax = 255;      // full scale of the value axis (255, 65535, 1.0): 100 %
    bool floatValues = false;  // the value axis is in float units (a float frame), not codes
    double exposure = 0;       // stops the float values were exposed by (0: none)
    bool bt709 = true;         // vectorscope: the standard of the colour targets
    quint64 generation = 0;

    bool isEmpty() const { return grids.isEmpty(); }
    // Video's legal range, 16..235 in 8 bits (16 and 235 times 2^(D-8) in D bits); for float
    // values the same fractions of full scale.
    double legalLo() const { return floatValues ? codeMax * 16 / 255 : (codeMax + 1) * 16 / 256; }
    double legalHi() const { return floatValues ? codeMax * 235 / 255 : (codeMax + 1) * 235 / 256; }
};
