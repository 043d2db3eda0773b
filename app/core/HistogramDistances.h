// How far the current histogram is from a pinned reference, channel by channel (R with R, luma
// with luma), by the four measures OpenCV's cv::compareHist offers. Both histograms are first
// normalized to a sum of 1, so images of different sizes compare by shape. With a the current
// histogram and b the reference (cv::compareHist(a, b, ...), in that order):
//   correlation     1 for the same shape (-1..1)
//   chi-square      0 for the same shape: sum (a - b)^2 / a over bins with a > 0; not symmetric
//   intersection    1 for the same shape: sum min(a, b)
//   Bhattacharyya   0 for the same shape (0..1)
// Meant for a worker (QtConcurrent): it takes values and returns one.
#pragma once

#include "app/core/HistogramSnapshot.h"

#include <QString>
#include <QVector>

struct ChannelDistances {
    QString channel;
    double correlation = 0;
    double chiSquare = 0;
    double intersection = 0;
    double bhattacharyya = 0;
};

struct HistogramDistances {
    quint64 generation = 0;               // of the current snapshot
    QVector<ChannelDistances> channels;   // display order; channels the reference lacks are left out
    Error error;                          // different binning, no channel in common
};

HistogramDistances histogramDistances(const HistogramSnapshot& current, const HistogramSnapshot& reference);
