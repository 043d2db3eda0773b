// Histogram and statistics records, versioned, shared by the app's export and `batch`.
// Schema "histoscope.histogram/1": one record per channel (see docs/SCHEMA.md).
#pragma once

#include "histoscope/HistogramStatistics.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

inline constexpr const char* kRecordSchema = "histoscope.histogram/1";

struct ChannelRecord {
    QString file;
    qint64 frame = -1;        // -1: not a video frame
    QString channel;          // gray, R, G, B, A or luma
    const hs::ChannelHistogram* histogram = nullptr;
    hs::StatisticsContext context;   // the samples' type and exact extremes
};

QJsonObject statisticsJson(const hs::ChannelHistogram& histogram, const hs::StatisticsContext& context = {});
QJsonObject recordJson(const ChannelRecord& record);
// CSV: a header line, then one line per channel with the counts as the last columns.
QString csvHeader(int bins);
QString csvLine(const ChannelRecord& record);
QString csvEscape(const QString& field);
