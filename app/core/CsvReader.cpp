#include "app/core/CsvReader.h"

namespace {

// The caller names the file; rowLine() says where.
Error malformed(const QString& cause) { return Error::make(ErrorKind::DecodeFailed, QString(), cause); }
Error tooLarge(const QString& cause) { return Error::make(ErrorKind::TooLarge, QString(), cause); }

}  // namespace

CsvReader::CsvReader(QIODevice* device) : m_device(device) {}

bool CsvReader::fill()
{
    if (m_eof)
        return false;
    m_buffer = m_device->read(1 << 16);
    m_pos = 0;
    if (m_buffer.isEmpty())
        m_eof = true;
    return !m_eof;
}

int CsvReader::peek()
{
    if (m_pos >= m_buffer.size() && !fill())
        return -1;
    return static_cast<unsigned char>(m_buffer[m_pos]);
}

int CsvReader::take()
{
    const int c = peek();
    if (c >= 0)
        ++m_pos;
    if (c == '\n')
        ++m_line;
    return c;
}

bool CsvReader::readRow(QList<QByteArray>& fields, Error& error)
{
    fields.clear();
    error = {};
    m_rowLine = m_line;
    if (peek() < 0)
        return false;
    QByteArray field;
    qint64 rowBytes = 0;
    enum class State { FieldStart, Unquoted, Quoted, AfterQuote } state = State::FieldStart;
    auto endField = [&] {
        fields.append(field);
        field.clear();
        return fields.size() <= kMaxFields;
    };
    for (;;) {
        const int c = take();
        if (++rowBytes > kMaxRowBytes) {
            error = tooLarge(QStringLiteral("a row longer than %1 bytes").arg(kMaxRowBytes));
            return false;
        }
        if (state == State::Quoted) {
            if (c < 0) {
                error = malformed(QStringLiteral("the data ends inside a quoted field"));
                return false;
            }
            if (c == '"')
                state = State::AfterQuote;
            else
                field.append(char(c));
            continue;
        }
        if (state == State::AfterQuote && c == '"') {  // "" inside quotes: one quote
            field.append('"');
            state = State::Quoted;
            continue;
        }
        if (c == ',') {
            if (!endField()) {
                error = tooLarge(QStringLiteral("a row with more than %1 fields").arg(kMaxFields));
                return false;
            }
            state = State::FieldStart;
            continue;
        }
        if (c == '\r') {
            if (peek() != '\n') {
                error = malformed(QStringLiteral("a carriage return outside quotes that does not end the line"));
                return false;
            }
            continue;  // the '\n' ends the row next
        }
        if (c == '\n' || c < 0) {
            endField();
            return true;
        }
        if (state == State::AfterQuote) {
            error = malformed(QStringLiteral("'%1' after the closing quote of a field").arg(QChar(c)));
            return false;
        }
        if (c == '"') {
            if (state == State::Unquoted) {
                error = malformed(QStringLiteral("a quote inside an unquoted field"));
                return false;
            }
            state = State::Quoted;
            continue;
        }
        field.append(char(c));
        state = State::Unquoted;
    }
}
