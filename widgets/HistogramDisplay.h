// What the histogram view paints: plain values built by the app from engine results, so that
// widgets/ never sees the engine's or OpenCV's headers.
#pragma once

#include <QColor>
#include <QString>
#include <QVector>

struct HistogramSeries {
    QString name;            // "R", "G", "B", "luma", "gray", "A"
    QColor color;
    QVector<double> counts;  // one per bin
    // Drawn as a line only, never filled (luma): it must not wash out the channels under it.
    bool outline = false;
    double total = 0;        // the sum of counts (0: not given, summed when needed)
    double scale = 1;        // drawn as counts * scale (a reference scaled to the current total)
    // The envelope the view paints from, so painting never grows with the bins: peaks[i] is the
    // largest count of bins [i * binsPerPeak, (i + 1) * binsPerPeak), cumulative[i] the sum of
    // every bin before the end of that group. Empty: the counts are their own envelope.
    QVector<double> peaks = {};
    QVector<double> cumulative = {};
    int binsPerPeak = 1;
};

struct HistogramDisplay {
    double lo = 0;
    double hi = 256;
    // The bins hold integer values: ticks and the readout name integers ("value 30", "32–39").
    bool integerValues = false;
    QString valueTitle = QStringLiteral("value");   // the x axis title, in the data's units
    QVector<HistogramSeries> series;
    // A pinned histogram to compare with, drawn as dashed outlines over [referenceLo, referenceHi).
    QVector<HistogramSeries> reference;
    double referenceLo = 0;
    double referenceHi = 256;
    QString referenceTitle;  // e.g. "reference: a.png"
    quint64 generation = 0;
    bool isEmpty() const { return series.isEmpty(); }
};
