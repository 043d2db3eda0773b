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
};

struct HistogramDisplay {
    double lo = 0;
    double hi = 256;
    QVector<HistogramSeries> series;
    quint64 generation = 0;
    bool isEmpty() const { return series.isEmpty(); }
};
