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

    bool isValid() const { return xBins > 0 && yBins > 0 && counts.size() == qsizetype(xBins) * yBins; }
    double at(int x, int y) const { return counts[qsizetype(x) * yBins + y]; }
    double maxCount() const { return counts.isEmpty() ? 0.0 : *std::max_element(counts.cbegin(), counts.cend()); }
};

struct ScopeDisplay {
    // Waveform: 1 grid (luma) or 3 (R, G, B overlaid); parade: one grid per channel, side by side;
    // vectorscope: 1 grid of Cb (x) against Cr (y); histogram2d: 1 grid of any two quantities.
    enum class Kind { Waveform, Parade, Vectorscope, Histogram2D };
    Kind kind = Kind::Waveform;
    QVector<ScopeGrid> grids;
    double codeMax = 255;      // full-scale code of the value axis (255, 65535, 1.0): 100 %
    bool bt709 = true;         // vectorscope: the standard of the colour targets
    quint64 generation = 0;

    bool isEmpty() const { return grids.isEmpty(); }
};
