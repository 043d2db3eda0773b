// A statistic over time: one or two series against the frame index (e.g. mean luma on the
// left axis, clipped share in % on the right), a marker on the current frame, and a click (or
// drag) that asks for a frame. Paint-only: fed plain values.
#pragma once

#include <QColor>
#include <QString>
#include <QVector>
#include <QWidget>

#include <limits>

struct TimeSeries {
    QString name;              // "mean luma", "clipped %"
    QColor color;
    qint64 firstFrame = 0;     // values[i] belongs to frame firstFrame + i
    QVector<double> values;    // NaN: not known (yet)
    double lo = 0;             // the axis range
    double hi = 1;
    bool rightAxis = false;    // on the right-hand axis instead of the left
};

class TimeSeriesView : public QWidget {
    Q_OBJECT

public:
    explicit TimeSeriesView(QWidget* parent = nullptr);

    // The frames on the x axis: [first, first + count).
    void setFrameRange(qint64 first, qint64 count);
    void setSeries(const QVector<TimeSeries>& series);
    void setCurrentFrame(qint64 frame);
    const QVector<TimeSeries>& series() const { return m_series; }
    qint64 currentFrame() const { return m_current; }
    qint64 firstFrame() const { return m_first; }
    qint64 frameCount() const { return m_count; }

    QRectF plotRect() const;
    qint64 frameAt(double x) const;    // -1 outside the plot
    double xOf(qint64 frame) const;
    QString readoutAt(double x) const; // "frame 12  mean luma 131.2  clipped % 0.4"

    QSize sizeHint() const override { return {600, 110}; }
    QSize minimumSizeHint() const override { return {200, 70}; }

signals:
    void frameClicked(qint64 frame);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    QVector<TimeSeries> m_series;
    qint64 m_first = 0;
    qint64 m_count = 0;
    qint64 m_current = -1;
    double m_hoverX = -1;
};
