// The pixel probe: the value under the cursor per channel, at native depth and as a float, and
// the region of interest as numbers the user can also type (x, y, width, height).
#pragma once

#include "app/core/PixelProbe.h"

#include <QRect>
#include <QWidget>

class QLabel;
class QSpinBox;
class QTableWidget;

class ProbePanel : public QWidget {
    Q_OBJECT

public:
    explicit ProbePanel(QWidget* parent = nullptr);

    void showProbe(const PixelProbe& probe);
    void clearProbe();
    // The frame's size bounds the region; the region shown is `roi` (empty: the whole frame).
    void setFrameSize(const QSize& size);
    void setRoi(const QRect& roi);
    QRect roi() const;

    QString positionText() const;
    QString valueText(int row, int column) const;   // column 0: channel, 1: value, 2: float
    int rowCount() const;
    QSpinBox* roiBox(int i) const { return m_roi[i]; }   // x, y, width, height

signals:
    void roiEdited(const QRect& roi);   // typed by the user; empty: the whole frame

private:
    void emitRoi();

    QLabel* m_position;
    QTableWidget* m_values;
    QSpinBox* m_roi[4];
    QSize m_frameSize;
    bool m_updating = false;
};
