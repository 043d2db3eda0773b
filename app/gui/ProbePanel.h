// The pixel probe: the value under the cursor per channel, at native depth and as a float, of
// one pixel or the mean over 3 × 3 or 5 × 5 (clipped at the edge, saying how many pixels were
// averaged); for colour frames the luma (the settings' BT.601 or BT.709) and HSV of it; and the
// region of interest as numbers the user can also type (x, y, width, height).
#pragma once

#include "app/core/PixelProbe.h"

#include <QRect>
#include <QWidget>

class QComboBox;
class QLabel;
class QSpinBox;
class QTableWidget;

class ProbePanel : public QWidget {
    Q_OBJECT

public:
    explicit ProbePanel(QWidget* parent = nullptr);

    // Probes `pixel` of `frame` (which the caller already holds) with the panel's area and luma,
    // and probes it again when either changes.
    void probeAt(const Frame& frame, const QPoint& pixel);
    void setLuma(LumaCoefficients luma);
    void setArea(int side);   // 1, 3 or 5
    int area() const;
    void showProbe(const PixelProbe& probe);
    void clearProbe();
    // The frame's size bounds the region; the region shown is `roi` (empty: the whole frame).
    void setFrameSize(const QSize& size);
    void setRoi(const QRect& roi);
    QRect roi() const;

    QString positionText() const;
    QString valueText(int row, int column) const;   // column 0: channel, 1: value, 2: float
    int rowCount() const;
    QString averagedText() const;                  // how many pixels the values are the mean of
    QString derivedText(int row, int column) const; // luma, hue, saturation, value: 0 name, 1 value, 2 float
    int derivedRowCount() const;
    QComboBox* areaBox() const { return m_area; }
    QSpinBox* roiBox(int i) const { return m_roi[i]; }   // x, y, width, height

signals:
    void roiEdited(const QRect& roi);   // typed by the user; empty: the whole frame

private:
    void emitRoi();

    QLabel* m_position;
    QLabel* m_averaged;
    QComboBox* m_area;
    QTableWidget* m_values;
    QTableWidget* m_derived;
    Frame m_frame;                 // the frame probed last (shared, never copied), until cleared
    QPoint m_pixel;
    bool m_probing = false;
    LumaCoefficients m_luma = LumaCoefficients::Bt709;
    QSpinBox* m_roi[4];
    QSize m_frameSize;
    bool m_updating = false;
};
