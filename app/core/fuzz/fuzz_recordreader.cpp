// libFuzzer entry: the record reader (JSON Lines and CSV) on arbitrary bytes. Besides not
// crashing, every record it accepts must survive a round-trip through the writer of both
// encodings unchanged; a mismatch aborts, so the fuzzer reports it like a crash.
#include "app/core/CsvReader.h"
#include "app/core/RecordCodec.h"
#include "app/core/RecordReader.h"

#include <QBuffer>

#include <cstdlib>

namespace {

// Both encodings carry the sample type and the region.
bool same(const HistogramRecord& a, const HistogramRecord& b)
{
    const hs::ChannelHistogram &x = a.histogram, &y = b.histogram;
    const bool region = a.region.has_value() == b.region.has_value()
                     && (!a.region || (a.region->x == b.region->x && a.region->y == b.region->y
                                       && a.region->width == b.region->width && a.region->height == b.region->height));
    return a.file == b.file && a.frame == b.frame && a.channel == b.channel && x.binning.bins == y.binning.bins
        && x.binning.lo == y.binning.lo && x.binning.hi == y.binning.hi && x.binning.identity == y.binning.identity
        && x.counts == y.counts && x.below == y.below && x.above == y.above && x.nan == y.nan
        && (!x.hasValues || (y.hasValues && x.minValue == y.minValue && x.maxValue == y.maxValue))
        && a.sampleType == b.sampleType && region
        // Extremes derived from one-value bins are written, and come back as known: the same statistics.
        && RecordCodec::recordJson(a)["statistics"] == RecordCodec::recordJson(b)["statistics"];
}

void roundTrip(const HistogramRecord& record)
{
    RecordLine back;
    Error error;
    if (!RecordCodec::decodeJson(RecordCodec::jsonLine(record).trimmed(), back, error) || !same(record, back.record))
        std::abort();
    // The layout from the writer's own header, so that the check follows the columns it writes.
    QByteArray csv = RecordCodec::csvHeader(int(record.histogram.binning.bins)) + RecordCodec::csvLine(record);
    QBuffer buffer(&csv);
    buffer.open(QIODevice::ReadOnly);
    CsvReader reader(&buffer);
    QList<QByteArray> header, fields;
    CsvLayout layout;
    if (!reader.readRow(header, error) || !RecordCodec::decodeCsvHeader(header, layout, error) || !reader.readRow(fields, error)
        || !RecordCodec::decodeCsvRow(layout, fields, back, error) || !same(record, back.record))
        std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size)
{
    QByteArray bytes = QByteArray::fromRawData(reinterpret_cast<const char*>(data), qsizetype(size));
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::ReadOnly);
    RecordReader reader(&buffer, QStringLiteral("fuzz"));
    RecordLine line;
    Error error;
    while (reader.next(line, error))
        if (line.kind == RecordLine::Kind::Histogram)
            roundTrip(line.record);
    return 0;
}
