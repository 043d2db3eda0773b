// The histogram as a table of its bins (ImageJ's List): the bin, its range [lo, hi) in the
// data's units and each channel's count. It reads the display's counts, which share the
// worker's immutable snapshot, and makes a cell's text only when a view asks for it, so showing
// 65,536 bins costs what the visible rows cost.
#pragma once

#include "widgets/HistogramDisplay.h"

#include <QAbstractTableModel>

class HistogramTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    explicit HistogramTableModel(QObject* parent = nullptr);

    void setDisplay(const HistogramDisplay& display);
    const HistogramDisplay& display() const { return m_display; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // The text of a bin's edge: integers for integer bins, else as many digits as tell
    // neighbouring bins apart.
    QString edgeText(double value) const;
    // Cells made since the display was set: the work a view's scrolling costs, for tests.
    qint64 cellsMade() const { return m_cellsMade; }

    static constexpr int kFixedColumns = 3;   // bin, lo, hi

private:
    HistogramDisplay m_display;
    int m_bins = 0;
    double m_width = 0;
    int m_digits = 6;
    mutable qint64 m_cellsMade = 0;
};
