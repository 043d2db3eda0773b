// What the waveform/parade, the vectorscope and the 2-D histogram view share: the display they
// paint, the display response (brightness, gain, and a log intensity) that re-renders it, the
// drawing of cells at device resolution, and the hover readout that clears on leave. Each scope
// paints and reads out its own geometry.
//
// The response is a phosphor's, as on a hardware scope or Resolve's: a cell glows by how many
// pixels hit it relative to the grid's typical populated cell, saturating gradually towards full
// brightness, seen through a display gamma; any cell that holds a pixel is at least dimly lit.
// It never scales every cell to the single busiest one, which left normal video nearly black.
#pragma once

#include "widgets/ScopeDisplay.h"

#include <QSize>
#include <QString>
#include <QVector>
#include <QWidget>

class ScopeView : public QWidget {
    Q_OBJECT

public:
    // The brightness of a cell holding one pixel at gain 1, whatever else the grid holds.
    static constexpr double kFloor = 0.2;

    void setDisplay(const ScopeDisplay& display);
    const ScopeDisplay& display() const { return m_display; }
    // Brightness: multiplies every cell's exposure of the phosphor (0.01..100).
    void setGain(double gain);
    double gain() const { return m_gain; }
    // Log intensity: the log of the count over the log of the largest, for dense detail that
    // the phosphor saturates.
    void setLogIntensity(bool on);
    bool logIntensity() const { return m_log; }

    // A description of what lies under a widget position; empty where there is nothing.
    virtual QString readoutAt(const QPoint& position) const = 0;
    // Cells read by the last rebuild: a fixed number of passes over the grid, never more.
    quint64 cellsVisitedByRebuild() const { return m_cellsVisited; }

signals:
    void hovered(const QString& readout);

protected:
    ScopeView(bool logIntensity, QWidget* parent);
    // Re-renders the trace after the display, the gain or the intensity scale changed.
    virtual void rebuild() = 0;
    // The one grid a vectorscope or a 2-D view paints; null when there is none fit to paint.
    const ScopeGrid* singleGrid() const;

    // What the response needs of a grid, found in one pass over its cells.
    struct Response {
        double reference = 0;   // the mean count of the populated cells
        double max = 0;         // the largest count (the log intensity's top)
        QVector<float> table;   // the intensity of the small counts, which most cells hold
    };
    Response responseOf(const ScopeGrid& grid);
    // 0..1 brightness of a cell holding `count` pixels.
    double intensity(double count, const Response& response) const;
    double computeIntensity(double count, const Response& response) const;
    // Cells at device resolution: `cells` holds `channels` floats per cell, w x h cells, the top
    // row first; each cell covers the pixels its extent covers, at least one, and where several
    // cells share a pixel each channel keeps the largest. Work: the cells plus the pixels.
    static QVector<float> poolMax(const QVector<float>& cells, int channels, int w, int h, QSize out);
    // Lit cells widened to spots: each dark pixel of an image (`channels` floats per pixel) takes,
    // channel by channel, the largest value within rx pixels across and ry down. Lit pixels keep
    // their own, so a dense trace keeps its detail and only isolated cells grow. Work: the pixels
    // times the radii.
    static void dilateMax(QVector<float>& image, int channels, QSize size, int rx, int ry);

    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

    ScopeDisplay m_display;
    quint64 m_cellsVisited = 0;

private:
    double m_gain = 1.0;
    bool m_log = false;
    QString m_hover;
};
