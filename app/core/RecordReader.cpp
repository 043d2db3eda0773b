#include "app/core/RecordReader.h"

#include <QFileDevice>

RecordReader::RecordReader(QIODevice* device, QString name) : m_device(device), m_name(std::move(name)) {}

Error RecordReader::fail(ErrorKind kind, const QString& cause) const
{
    return Error::make(kind, m_name, QStringLiteral("line %1: %2").arg(m_line).arg(cause));
}

bool RecordReader::detect(Error& error)
{
    m_detected = true;
    // A byte-order mark (spreadsheets save CSV with one) is not part of the first field.
    if (m_device->peek(3) == QByteArray("\xef\xbb\xbf"))
        m_device->read(3);
    char first = 0;
    // Blank lines before the first record are allowed in JSON Lines; skip them to see its brace.
    while (m_device->peek(&first, 1) == 1 && (first == '\n' || first == '\r' || first == ' ')) {
        m_device->getChar(&first);
        if (first == '\n')
            ++m_line;
    }
    if (m_device->peek(&first, 1) != 1)
        return false;  // empty: no records, no summary
    if (first == '{') {
        m_format = RecordFormat::JsonLines;
        return true;
    }
    m_format = RecordFormat::Csv;
    m_csv = std::make_unique<CsvReader>(m_device);
    QList<QByteArray> header;
    Error problem;
    const bool got = m_csv->readRow(header, problem);
    m_line += m_csv->rowLine();
    if (!got || !RecordCodec::decodeCsvHeader(header, m_layout, problem)) {
        error = problem.isError() ? fail(problem.kind, problem.cause)
                                  : fail(ErrorKind::InvalidInput, QStringLiteral("neither JSON Lines nor a CSV header"));
        return false;
    }
    return true;
}

bool RecordReader::accept(const RecordLine& line, Error& error)
{
    if (m_sawSummary) {
        error = fail(ErrorKind::InvalidInput, QStringLiteral("a record after the summary, which ends a finished output"));
        return false;
    }
    if (m_version && line.version != m_version) {
        error = fail(ErrorKind::InvalidInput,
                     QStringLiteral("%1 among %2 records").arg(RecordCodec::schemaName(line.version), RecordCodec::schemaName(m_version)));
        return false;
    }
    m_version = line.version;
    if (line.kind == RecordLine::Kind::Summary) {
        if (line.summary.records != m_records) {
            error = fail(ErrorKind::InvalidInput,
                         QStringLiteral("the summary counts %1 records, the file holds %2").arg(line.summary.records).arg(m_records));
            return false;
        }
        m_sawSummary = true;
        m_summary = line.summary;
    } else {
        ++m_records;
    }
    return true;
}

bool RecordReader::nextJson(RecordLine& line, Error& error)
{
    for (;;) {
        // In 64 KiB steps: QIODevice::readLine(max) allocates all of `max` up front.
        QByteArray bytes;
        for (;;) {
            const QByteArray part = m_device->readLine(1 << 16);
            bytes += part;
            if (part.isEmpty() || part.endsWith('\n'))
                break;
            if (bytes.size() > kMaxLineBytes) {
                ++m_line;
                error = fail(ErrorKind::TooLarge, QStringLiteral("a line longer than %1 bytes").arg(kMaxLineBytes));
                return false;
            }
        }
        if (bytes.isEmpty())
            return false;
        ++m_line;
        bytes = bytes.trimmed();
        if (bytes.isEmpty())
            continue;
        Error problem;
        if (!RecordCodec::decodeJson(bytes, line, problem)) {
            error = fail(problem.kind, problem.cause);
            return false;
        }
        return accept(line, error);
    }
}

bool RecordReader::nextCsv(RecordLine& line, Error& error)
{
    const qint64 base = m_line - m_csv->rowLine();  // lines skipped before the header
    for (;;) {
        QList<QByteArray> fields;
        Error problem;
        const bool got = m_csv->readRow(fields, problem);
        m_line = base + m_csv->rowLine();
        if (!got) {
            if (problem.isError())
                error = fail(problem.kind, problem.cause);
            return false;
        }
        if (fields.size() == 1 && fields[0].isEmpty())
            continue;  // a blank line
        if (!RecordCodec::decodeCsvRow(m_layout, fields, line, problem)) {
            error = fail(problem.kind, problem.cause);
            return false;
        }
        return accept(line, error);
    }
}

bool RecordReader::next(RecordLine& line, Error& error)
{
    error = {};
    if (!m_detected && !detect(error))
        return false;
    const bool got = m_format == RecordFormat::JsonLines ? nextJson(line, error) : nextCsv(line, error);
    const auto* file = qobject_cast<const QFileDevice*>(m_device);
    if (!got && !error.isError() && file && file->error() != QFileDevice::NoError)
        error = Error::make(ErrorKind::Unreadable, m_name, file->errorString());
    return got;
}
