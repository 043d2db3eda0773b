#include "app/gui/TimelinePanel.h"

#include "app/core/Timecode.h"
#include "widgets/TimeSeriesView.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QStyle>
#include <QVBoxLayout>

#include <cmath>
#include <limits>

namespace {
constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();
}

TimelinePanel::TimelinePanel(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 2, 4, 2);
    layout->setSpacing(2);
    auto* row = new QHBoxLayout;
    m_play = new QPushButton;
    m_play->setObjectName("timelinePlay");
    m_play->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
    m_play->setToolTip(tr("Play or pause (Space)"));
    m_play->setFlat(true);
    m_slider = new QSlider(Qt::Horizontal);
    m_slider->setObjectName("seekBar");
    m_slider->setRange(0, 0);
    m_slider->setTracking(true);
    m_timecode = new QLabel;
    m_timecode->setObjectName("timecode");
    m_timecode->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont mono = m_timecode->font();
    mono.setFamily(QStringLiteral("monospace"));
    mono.setStyleHint(QFont::Monospace);
    m_timecode->setFont(mono);
    m_scan = new QPushButton(tr("Scan File"));
    m_scan->setObjectName("scanFile");
    m_scan->setToolTip(tr("Count every frame of the file in the background, to plot its statistics over time"));
    m_scanStatus = new QLabel;
    m_slider->setMinimumWidth(160);
    m_scanStatus->setWordWrap(true);
    m_scanStatus->setMaximumWidth(120);
    m_scanStatus->setAlignment(Qt::AlignHCenter | Qt::AlignTop);
    row->addWidget(m_play);
    row->addWidget(m_slider, 1);
    row->addWidget(m_timecode);
    layout->addLayout(row);
    // The plot takes the width; the background pass's button and progress sit beside it.
    auto* below = new QHBoxLayout;
    m_plot = new TimeSeriesView;
    m_plot->setObjectName("trendPlot");
    below->addWidget(m_plot, 1);
    auto* side = new QVBoxLayout;
    side->addWidget(m_scan);
    side->addWidget(m_scanStatus);
    side->addStretch(1);
    below->addLayout(side);
    layout->addLayout(below, 1);

    connect(m_play, &QPushButton::clicked, this, &TimelinePanel::playToggled);
    connect(m_scan, &QPushButton::clicked, this, &TimelinePanel::scanRequested);
    // The bar asks for frames while dragged (the window sends one seek at a time) and on a click.
    connect(m_slider, &QSlider::valueChanged, this, [this](int value) {
        showTimecode(value);
        emit seekRequested(value);
    });
    connect(m_plot, &TimeSeriesView::frameClicked, this, &TimelinePanel::seekRequested);
    setSource(0, 0, false);
}

void TimelinePanel::setSource(qint64 frameCount, double fps, bool live)
{
    m_frames = std::max<qint64>(0, frameCount);
    m_fps = fps;
    m_live = live;
    m_current = -1;
    setAtEnd(false);
    {
        const QSignalBlocker quiet(m_slider);
        m_slider->setRange(0, int(std::max<qint64>(0, m_frames - 1)));
        m_slider->setValue(0);
    }
    m_slider->setEnabled(!live && m_frames > 1);
    m_slider->setToolTip(live ? tr("A live source cannot seek") : QString());
    m_scan->setVisible(!live);
    m_scan->setEnabled(!live && m_frames > 1);
    m_scanStatus->clear();
    clearTrends();
    showTimecode(-1);
}

void TimelinePanel::setFrameCount(qint64 frameCount)
{
    if (m_live || frameCount <= 0)
        return;
    m_frames = frameCount;
    {
        const QSignalBlocker quiet(m_slider);
        m_slider->setRange(0, int(m_frames - 1));   // a value past it is clamped, asking for nothing
    }
    m_slider->setEnabled(m_frames > 1);
    m_scan->setEnabled(m_frames > 1);
    m_current = std::min(m_current, m_frames - 1);
    showTimecode(m_current);
    refreshPlot();
}

void TimelinePanel::setAtEnd(bool atEnd)
{
    m_atEnd = atEnd;
    m_play->setToolTip(atEnd ? tr("At the last frame: Play starts again from the first (Space)") : tr("Play or pause (Space)"));
    showTimecode(m_current);
}

void TimelinePanel::setCurrentFrame(qint64 frame)
{
    m_current = frame;
    if (!m_live && frame >= m_frames) {
        // A header's frame count is only an estimate: a file with more frames grows the bar.
        m_frames = frame + 1;
        const QSignalBlocker quiet(m_slider);
        m_slider->setMaximum(int(frame));
    }
    if (!m_slider->isSliderDown()) {
        const QSignalBlocker quiet(m_slider);
        m_slider->setValue(int(frame));
    }
    showTimecode(frame);
    refreshPlot();
}

void TimelinePanel::setPlaying(bool playing)
{
    m_play->setIcon(style()->standardIcon(playing ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
}

void TimelinePanel::setMeanAxis(const QString& meanName, double lo, double hi)
{
    if (meanName == m_meanName && lo == m_lo && hi == m_hi)
        return;
    m_meanName = meanName;
    m_lo = lo;
    m_hi = hi;
    refreshPlot();
}

void TimelinePanel::addTrends(const QVector<FrameTrend>& trends)
{
    for (const FrameTrend& t : trends) {
        if (t.frame < 0)
            continue;
        if (m_mean.isEmpty())
            m_first = m_live ? t.frame : 0;
        if (t.frame < m_first) {
            if (m_live)
                continue;   // older than the live window
            const qint64 grow = m_first - t.frame;
            m_mean.insert(0, qsizetype(grow), kUnknown);
            m_clipped.insert(0, qsizetype(grow), kUnknown);
            m_first = t.frame;
        }
        const qint64 i = t.frame - m_first;
        if (i >= m_mean.size()) {
            m_mean.resize(qsizetype(i + 1), kUnknown);
            m_clipped.resize(qsizetype(i + 1), kUnknown);
        }
        m_mean[qsizetype(i)] = t.mean;
        m_clipped[qsizetype(i)] = t.clippedShare * 100;
        if (m_live && m_mean.size() > kLiveWindow) {
            const qsizetype drop = m_mean.size() - qsizetype(kLiveWindow);
            m_mean.remove(0, drop);
            m_clipped.remove(0, drop);
            m_first += drop;
        }
    }
    refreshPlot();
}

void TimelinePanel::clearTrends()
{
    m_mean.clear();
    m_clipped.clear();
    m_first = 0;
    refreshPlot();
}

void TimelinePanel::setScanStatus(const QString& text, bool running)
{
    m_scanStatus->setText(text);
    m_scan->setText(running ? tr("Stop Scan") : tr("Scan File"));
}

std::optional<FrameTrend> TimelinePanel::trendAt(qint64 frame) const
{
    const qint64 i = frame - m_first;
    if (i < 0 || i >= m_mean.size() || std::isnan(m_mean[qsizetype(i)]))
        return std::nullopt;
    return FrameTrend{frame, m_mean[qsizetype(i)], m_clipped[qsizetype(i)] / 100};
}

qint64 TimelinePanel::knownTrends() const
{
    qint64 n = 0;
    for (double v : m_mean)
        n += std::isnan(v) ? 0 : 1;
    return n;
}

QString TimelinePanel::timecodeText() const { return m_timecode->text(); }
QString TimelinePanel::scanStatusText() const { return m_scanStatus->text(); }

void TimelinePanel::showTimecode(qint64 frame)
{
    if (m_live) {
        m_timecode->setText(frame < 0 ? tr("live") : tr("live  frame %1").arg(frame));
        return;
    }
    const qint64 last = std::max<qint64>(0, m_frames - 1);
    m_timecode->setText(tr("%1 / %2  %3/%4%5")
                            .arg(timecode(std::max<qint64>(0, frame), m_fps), timecode(last, m_fps))
                            .arg(frame < 0 ? QStringLiteral("-") : QString::number(frame))
                            .arg(last)
                            .arg(m_atEnd ? tr("  end") : QString()));
}

void TimelinePanel::refreshPlot()
{
    qint64 first = 0, count = m_frames;
    if (m_live) {
        first = m_mean.isEmpty() ? std::max<qint64>(0, m_current) : m_first;
        count = kLiveWindow;
    } else {
        count = std::max<qint64>({m_frames, m_first + m_mean.size(), m_current + 1});
    }
    m_plot->setFrameRange(first, count);
    double clippedTop = 1;
    for (double v : m_clipped)
        if (!std::isnan(v))
            clippedTop = std::max(clippedTop, v);
    clippedTop = std::min(100.0, std::ceil(clippedTop * 1.1));
    TimeSeries mean{m_meanName.isEmpty() ? tr("mean") : m_meanName, QColor(225, 225, 225), m_first, m_mean, m_lo, m_hi, false};
    TimeSeries clipped{tr("clipped %"), QColor(240, 120, 60), m_first, m_clipped, 0, clippedTop, true};
    m_plot->setSeries({mean, clipped});
    m_plot->setCurrentFrame(m_current);
}
