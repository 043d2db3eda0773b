// The timeline of a video or a live source: play/pause, a seek bar with timecode
// (hh:mm:ss:ff at the source's rate), and a plot of mean luma and clipped share per frame,
// filled from the snapshots as they are shown and, for a file, by a background pass over
// every frame. A click or drag on the plot or the bar asks for that frame (seekRequested).
#pragma once

#include "app/core/FrameTrend.h"

#include <QWidget>

class QLabel;
class QPushButton;
class QSlider;
class TimeSeriesView;

class TimelinePanel : public QWidget {
    Q_OBJECT

public:
    explicit TimelinePanel(QWidget* parent = nullptr);

    // A new source: its frame count (-1 or 0: unknown, e.g. live) and declared rate. A file's
    // count is its header's estimate until setFrameCount tells the real one.
    void setSource(qint64 frameCount, double fps, bool live);
    // The file's real length, once reading reached its end: the bar, the counter and the plot
    // run to its last frame, the trends already known kept.
    void setFrameCount(qint64 frameCount);
    qint64 frameCount() const { return m_frames; }
    // Playback reached the last frame: the counter says so, and Play's tooltip says it starts
    // again from the first, until the window takes another frame.
    void setAtEnd(bool atEnd);
    bool isAtEnd() const { return m_atEnd; }
    void setCurrentFrame(qint64 frame);            // moves the bar (asks for nothing)
    void setPlaying(bool playing);
    // `meanName` ("mean luma"), and the data's range for the mean's axis.
    void setMeanAxis(const QString& meanName, double lo, double hi);
    void addTrends(const QVector<FrameTrend>& trends);
    void clearTrends();                            // the region or the settings changed
    void setScanStatus(const QString& text, bool running);

    QSlider* slider() const { return m_slider; }
    TimeSeriesView* plot() const { return m_plot; }
    QPushButton* scanButton() const { return m_scan; }
    QPushButton* playButton() const { return m_play; }
    QString timecodeText() const;
    QString scanStatusText() const;
    // The trend known for `frame`, if any.
    std::optional<FrameTrend> trendAt(qint64 frame) const;
    qint64 knownTrends() const;

    static constexpr qint64 kLiveWindow = 600;     // frames a live source's plot keeps

signals:
    void seekRequested(qint64 frame);
    void playToggled();
    void scanRequested();

private:
    void refreshPlot();
    void showTimecode(qint64 frame);

    QPushButton* m_play;
    QSlider* m_slider;
    QLabel* m_timecode;
    QPushButton* m_scan;
    QLabel* m_scanStatus;
    TimeSeriesView* m_plot;
    qint64 m_frames = 0;
    double m_fps = 0;
    bool m_live = false;
    bool m_atEnd = false;
    qint64 m_current = -1;
    qint64 m_first = 0;                // frame of m_mean[0]
    QVector<double> m_mean;
    QVector<double> m_clipped;         // in %
    QString m_meanName;
    double m_lo = 0, m_hi = 256;
};
