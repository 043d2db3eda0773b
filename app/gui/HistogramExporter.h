// The histogram's exports: its counts as CSV or JSON records (the record codec's, with the region
// and frame they came from, and in CSV every statistic the Statistics panel shows) and its plot
// as PNG, titled with the file, frame and region. Encoding and writing run off the GUI thread on
// values, never on the window, and each file is written whole or not at all (io/AtomicFile.h).
#pragma once

#include "app/core/HistogramSnapshot.h"

#include <QObject>
#include <QSize>

#include <functional>

class HistogramView;
class QImage;
class QWidget;

class HistogramExporter : public QObject {
    Q_OBJECT

public:
    explicit HistogramExporter(QObject* parent = nullptr);

    // Each answers with finished; the path gains the format's extension when it has none.
    // `frame` is the frame index the records carry (-1: none, as for a still image).
    void exportCsv(const QString& path, const SnapshotPtr& snapshot, const QString& source, qint64 frame);
    void exportJson(const QString& path, const SnapshotPtr& snapshot, const QString& source, qint64 frame);
    // `view` painted at `size` (its own size when empty), axes and legend included, under a
    // title naming `source`, `frame` and the snapshot's region (plotTitle).
    void exportPlot(const QString& path, HistogramView* view, QSize size, const SnapshotPtr& snapshot,
                    const QString& source, qint64 frame);
    // "a.png — whole frame", "clip.avi — frame 3 — region 10 × 8 at (2, 3)".
    static QString plotTitle(const QString& source, qint64 frame, const std::optional<hs::Rect>& region);

    // The plot's size, asked of the user with the last size chosen offered; empty: cancelled.
    static QSize askPlotSize(QWidget* parent);
    // `image` encoded as `format` ("PNG", "JPG", ...) and written whole; safe off the GUI thread.
    static Error writeImage(const QString& path, const QImage& image, const char* format);

signals:
    void finished(const QString& path, const Error& error);

private:
    void start(const QString& path, std::function<Error()> write);
};
