#include "app/cli/FirstFrameRequest.h"

#include "app/core/FrameRequest.h"

#include <algorithm>

hs::HistogramRequest firstFrameRequest(const Frame& frame, FrameSource& source, const CountSettings& counting,
                                       QStringList* notices)
{
    // Each channel over its own range (one outlier in B leaves R's bins alone); an array counted
    // in chunks over the whole array's per-channel extremes, by the same rule as for one frame.
    RangeOptions options{RangeScope::PerChannel, {}, {}};
    if (const ChannelExtrema whole = source.finiteExtremes(); !whole.empty()) {
        ChannelExtremes extremes;
        for (std::size_t c = 0; c < whole.size() && c < extremes.size(); ++c)
            if (whole[c])
                extremes[c] = ValueRange{whole[c]->first, whole[c]->second};
        options.extremes = extremes;
    }
    const ResolvedRequest resolved = resolveRequest(frame, counting, std::nullopt, options);
    if (notices)
        *notices = resolved.notices;
    return resolved.request;
}

hs::HistogramRequest FileBinning::requestFor(const Frame& frame)
{
    const bool sameLayout = m_first && frame.type() == m_type && frame.channels() == m_channels;
    if (m_first && (sameLayout || !m_separate))
        return sameBinningRequest(frame, *m_first);
    CountSettings counting = m_counting;
    QString keysNotice;
    const bool keys = m_bincount && m_source.kind() == FrameSource::MediaKind::Array && frame.height() == 1
                   && frame.channels() == 1 && !hs::isFloatType(frame.type());
    if (keys && m_source.frameCount() > 1) {
        keysNotice = QStringLiteral("integer keys converted in chunks are binned by the default rule, not one bin per value; "
                                    "give --bins 0 --range 0:N for that");
    } else if (keys) {
        if (const auto extremes = finiteExtremes(frame)) {
            const double lo = std::min(0.0, extremes->lo), hi = extremes->hi + 1;
            if (hi - lo <= double(hs::kMaxBins)) {
                counting.bins = 0;
                counting.rangeMode = RangeMode::Manual;
                counting.manualRanges.fill(ValueRange{lo, hi});
            } else {
                keysNotice = QStringLiteral("integer keys from %1 to %2 need more than %3 bins for one per value; binned by the "
                                            "default rule (give --bins and --range)")
                                 .arg(extremes->lo, 0, 'f', 0).arg(extremes->hi, 0, 'f', 0).arg(hs::kMaxBins);
            }
        }
    }
    m_first = firstFrameRequest(frame, m_source, counting, &m_notices);
    if (!keysNotice.isEmpty())
        m_notices << keysNotice;
    m_type = frame.type();
    m_channels = frame.channels();
    return *m_first;
}

Error FileBinning::mismatch(const Frame& frame, qint64 index, const QString& path) const
{
    if (m_separate || !m_first || (frame.type() == m_type && frame.channels() == m_channels))
        return {};
    const auto layout = [](int channels, hs::SampleType type) {
        return QStringLiteral("%1 channel(s) of %2").arg(channels).arg(QString::fromStdString(std::string(hs::sampleTypeName(type))));
    };
    const QString which = m_source.kind() == FrameSource::MediaKind::Image
                            ? QStringLiteral("page %1 (frame %2)").arg(index + 1).arg(index)
                            : QStringLiteral("frame %1").arg(index);
    return Error::make(ErrorKind::InvalidInput, path,
                       QStringLiteral("%1 has %2 where the first has %3: the frames of a file are summed into one "
                                      "histogram, so they must share their channels and sample type (--per-frame counts "
                                      "each on its own)")
                           .arg(which, layout(frame.channels(), frame.type()), layout(m_channels, m_type)));
}
