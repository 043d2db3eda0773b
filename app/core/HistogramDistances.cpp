#include "app/core/HistogramDistances.h"

#include "app/core/FrameRequest.h"

#include <opencv2/imgproc.hpp>

namespace {

QVector<NamedChannel> channelsOf(const HistogramSnapshot& s)
{
    QVector<NamedChannel> out = displayOrderedChannels(s.frame, s.result);
    if (s.luma)
        out.append({QStringLiteral("luma"), &*s.luma});
    return out;
}

// One column summing to 1 (all zeros when nothing was counted).
cv::Mat normalized(const hs::ChannelHistogram& h)
{
    cv::Mat m(int(h.counts.size()), 1, CV_32F);   // what compareHist takes
    double total = 0;
    for (std::uint64_t c : h.counts)
        total += double(c);
    for (std::size_t i = 0; i < h.counts.size(); ++i)
        m.at<float>(int(i)) = total > 0 ? float(double(h.counts[i]) / total) : 0.0f;
    return m;
}

}  // namespace

HistogramDistances histogramDistances(const HistogramSnapshot& current, const HistogramSnapshot& reference)
{
    HistogramDistances out;
    out.generation = current.generation;
    const QVector<NamedChannel> mine = channelsOf(current), theirs = channelsOf(reference);
    for (const NamedChannel& a : mine) {
        for (const NamedChannel& b : theirs) {
            if (a.name != b.name)
                continue;
            if (a.histogram->counts.size() != b.histogram->counts.size()) {
                out.error = Error::make(ErrorKind::InvalidInput, {},
                                        QStringLiteral("the reference has %1 bins, the current histogram %2: count both with the same bins")
                                            .arg(b.histogram->counts.size())
                                            .arg(a.histogram->counts.size()));
                out.channels.clear();
                return out;
            }
            try {
                const cv::Mat x = normalized(*a.histogram), y = normalized(*b.histogram);
                out.channels.append({a.name, cv::compareHist(x, y, cv::HISTCMP_CORREL), cv::compareHist(x, y, cv::HISTCMP_CHISQR),
                                     cv::compareHist(x, y, cv::HISTCMP_INTERSECT), cv::compareHist(x, y, cv::HISTCMP_BHATTACHARYYA)});
            } catch (const cv::Exception& e) {
                out.error = Error::make(ErrorKind::Engine, {}, QStringLiteral("compareHist failed: ") + QString::fromStdString(e.msg).trimmed());
                return out;
            }
        }
    }
    if (out.channels.isEmpty())
        out.error = Error::make(ErrorKind::InvalidInput, {}, QStringLiteral("the reference has no channel in common with this histogram"));
    return out;
}
