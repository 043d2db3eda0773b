#include "widgets/HistogramTableModel.h"

#include <algorithm>
#include <cmath>

HistogramTableModel::HistogramTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void HistogramTableModel::setDisplay(const HistogramDisplay& display)
{
    const int bins = display.series.isEmpty() ? 0 : int(display.series.first().counts.size());
    QStringList names, oldNames;
    for (const HistogramSeries& series : display.series)
        names << series.name;
    for (const HistogramSeries& series : m_display.series)
        oldNames << series.name;
    // The next frame of the same binning and channels changes values only: the views keep their
    // rows (and header sections, which Qt keeps one per row) and repaint what they show.
    const bool sameShape = bins == m_bins && names == oldNames && display.lo == m_display.lo && display.hi == m_display.hi
                           && display.integerValues == m_display.integerValues;
    if (!sameShape)
        beginResetModel();
    m_display = display;   // the counts are shared, not copied
    m_bins = bins;
    m_width = m_bins > 0 ? (m_display.hi - m_display.lo) / m_bins : 0;
    // Significant digits enough for the largest edge's magnitude over one bin's width, and two
    // more: 65,536 bins of [0, 1) read 0.0000152588, 0.0000305176...
    const double magnitude = std::max({std::abs(m_display.lo), std::abs(m_display.hi), m_width});
    m_digits = m_width > 0 ? std::clamp(int(std::ceil(std::log10(magnitude / m_width))) + 2, 6, 17) : 6;
    m_cellsMade = 0;
    if (!sameShape)
        endResetModel();
    else if (m_bins > 0)
        emit dataChanged(index(0, kFixedColumns), index(m_bins - 1, columnCount() - 1), {Qt::DisplayRole});
}

int HistogramTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : m_bins; }

int HistogramTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() || m_bins == 0 ? 0 : kFixedColumns + int(m_display.series.size());
}

QString HistogramTableModel::edgeText(double value) const
{
    if (m_display.integerValues && value == std::floor(value) && std::abs(value) < 9e15)
        return QString::number(qint64(value));
    return QString::number(value, 'g', m_digits);
}

QVariant HistogramTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= m_bins || index.column() >= columnCount())
        return {};
    if (role == Qt::TextAlignmentRole)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole)
        return {};
    ++m_cellsMade;
    const int bin = index.row();
    switch (index.column()) {
    case 0: return QString::number(bin);
    case 1: return edgeText(m_display.lo + bin * m_width);
    case 2: return edgeText(bin + 1 == m_bins ? m_display.hi : m_display.lo + (bin + 1) * m_width);
    default: break;
    }
    const HistogramSeries& s = m_display.series[index.column() - kFixedColumns];
    return QString::number(qulonglong(s.counts.value(bin)));
}

QVariant HistogramTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role == Qt::ToolTipRole && orientation == Qt::Horizontal && section < kFixedColumns)
        return tr("Bin i holds the samples in [lo, hi), in the data's units");
    if (role != Qt::DisplayRole || orientation != Qt::Horizontal)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case 0: return tr("bin");
    case 1: return tr("lo");
    case 2: return tr("hi");
    default: break;
    }
    if (section - kFixedColumns < m_display.series.size())
        return m_display.series[section - kFixedColumns].name;
    return {};
}
