// A small RFC 4180 reader for the record codec's CSV. Hand-written on purpose: Qt has no CSV
// parser, OpenCV's (cv::ml::TrainData) reads numbers only and no quoting, and the Debian
// candidates (libcsv) add a C dependency for ~150 lines that tst_recordcodec covers case by
// case. It streams from a QIODevice, so a file of any size is read in bounded memory.
#pragma once

#include "common/Error.h"

#include <QByteArray>
#include <QIODevice>
#include <QList>
#include <QString>

class CsvReader {
public:
    // Limits that keep a hostile file from growing one row without bound.
    static constexpr qint64 kMaxRowBytes = qint64(512) << 20;
    static constexpr qsizetype kMaxFields = (qsizetype(1) << 24) + 64;

    explicit CsvReader(QIODevice* device);

    // The next row's fields, unquoted, as bytes. False at the end of the data (error unset) or
    // on malformed input (DecodeFailed, or TooLarge past a limit; rowLine() says where).
    bool readRow(QList<QByteArray>& fields, Error& error);
    // The 1-based line on which the row last returned (or failed) starts.
    qint64 rowLine() const { return m_rowLine; }

private:
    bool fill();
    int peek();
    int take();

    QIODevice* m_device;
    QByteArray m_buffer;
    qsizetype m_pos = 0;
    qint64 m_line = 1;
    qint64 m_rowLine = 0;
    bool m_eof = false;
};
