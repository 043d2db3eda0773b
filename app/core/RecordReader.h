// Reads a file of schema records (JSON Lines or CSV, told apart by the first byte), one record
// at a time in bounded memory, with the rules that span lines: one CSV layout per file, nothing
// after the summary, and the summary's record count matching what was read.
#pragma once

#include "app/core/CsvReader.h"
#include "app/core/RecordCodec.h"

#include "common/Error.h"

#include <memory>

class RecordReader {
public:
    static constexpr qint64 kMaxLineBytes = qint64(512) << 20;

    // `name` is what errors call the input (its path).
    RecordReader(QIODevice* device, QString name);

    // The next record or summary; false at the end (error unset) or on the first line that
    // does not fit the schema (error names the file and line).
    bool next(RecordLine& line, Error& error);
    RecordFormat format() const { return m_format; }
    qint64 lineNumber() const { return m_line; }
    bool sawSummary() const { return m_sawSummary; }
    const RunSummary& summary() const { return m_summary; }
    qint64 histogramRecords() const { return m_records; }
    int version() const { return m_version; }  // 0 until a record was read

private:
    bool detect(Error& error);
    bool nextJson(RecordLine& line, Error& error);
    bool nextCsv(RecordLine& line, Error& error);
    bool accept(const RecordLine& line, Error& error);
    Error fail(ErrorKind kind, const QString& cause) const;  // names the file and the line

    QIODevice* m_device;
    QString m_name;
    bool m_detected = false;
    RecordFormat m_format = RecordFormat::JsonLines;
    std::unique_ptr<CsvReader> m_csv;
    CsvLayout m_layout;
    qint64 m_line = 0;
    qint64 m_records = 0;
    int m_version = 0;
    bool m_sawSummary = false;
    RunSummary m_summary;
};
