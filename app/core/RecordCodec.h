// The record schema's one codec: the writer and the reader of a single JSON Lines line or CSV
// row, so that what is written is what is read back (tst_recordcodec checks round-trips).
// JSON goes through Qt's parser; CSV through CsvReader (RFC 4180). Streaming a whole file,
// with line numbers and the summary rule, is RecordReader's job.
#pragma once

#include "app/core/HistogramRecord.h"
#include "common/Error.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>

enum class RecordFormat { JsonLines, Csv };

// A decoded line: a histogram record or the summary, and the schema version it was written in.
struct RecordLine {
    enum class Kind { Histogram, Summary };
    Kind kind = Kind::Histogram;
    int version = 3;  // RecordCodec::kVersion
    HistogramRecord record;
    RunSummary summary;
};

// The columns of one CSV file: set by its header, the same for every row.
struct CsvLayout {
    int version = 3;  // RecordCodec::kVersion
    int bins = 0;
    // The `coarse` column, added within version 2 after `nan`: files written before it lack it.
    bool coarseColumn = true;
    // Every statistic, between `coarse` and the counts: the app's export, and batch and merge since
    // they carry the statistics JSON has (files written before lack them).
    bool allStatistics = false;
    // `warnings`, after the statistics: a JSON array of strings, empty when there is none.
    bool warningsColumn = false;
    qsizetype columns() const;
};

class RecordCodec {
public:
    static constexpr int kVersion = 3;
    static QString schemaName(int version = kVersion);  // "histoscope.histogram/3"
    static bool isChannelName(const QString& name);

    // Writing. Lines end with '\n'; JSON is UTF-8, CSV file names keep their bytes.
    static QJsonObject recordJson(const HistogramRecord& record);
    // One record as a JSON object, keys in docs/SCHEMA.md's order (QJsonDocument would sort
    // them); jsonLine is it with its newline. The app's JSON export writes these.
    static QByteArray jsonText(const HistogramRecord& record);
    static QByteArray jsonLine(const HistogramRecord& record);
    static QByteArray summaryJsonLine(const RunSummary& summary);
    // Every statistic JSON has, in the columns docs/SCHEMA.md lists: batch, merge, histogram and
    // the app's export write one layout.
    static QByteArray csvHeader(int bins);
    static QByteArray csvLine(const HistogramRecord& record);
    static QByteArray summaryCsvLine(const RunSummary& summary, int bins);
    static QByteArray csvField(const QByteArray& field);
    // The long ("tidy") layout, `--layout long`: one row (CSV) or object (JSON Lines) per bin,
    // with the bin's edges and count, as numpy.histogram's edges and ImageJ's List give them.
    // For reading by people and data frames; merge reads the wide layout.
    static QByteArray longCsvHeader();
    static QByteArray longCsvLines(const HistogramRecord& record);
    static QByteArray longJsonLines(const HistogramRecord& record);
    static QByteArray longSummaryCsvLine(const RunSummary& summary);

    // Reading. False with `error` saying what does not fit: DecodeFailed when a line is not
    // JSON, InvalidInput when it parses but breaks the schema. The caller adds the file and line
    // (Error::source is empty). Versions 1 and 2 are read; version 1 has no binning mode or summary.
    static bool decodeJson(const QByteArray& line, RecordLine& out, Error& error);
    static bool decodeCsvHeader(const QList<QByteArray>& fields, CsvLayout& layout, Error& error);
    static bool decodeCsvRow(const CsvLayout& layout, const QList<QByteArray>& fields, RecordLine& out, Error& error);
};
