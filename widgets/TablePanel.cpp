#include "widgets/TablePanel.h"

#include <QHeaderView>
#include <QStyle>
#include <QTableWidget>
#include <QVBoxLayout>

TablePanel::TablePanel(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_table = new QTableWidget;
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    // Numbers are never cut off ("262..."): columns take their contents' width and the table
    // scrolls when they do not fit.
    m_table->setTextElideMode(Qt::ElideNone);
    m_table->setWordWrap(false);
    m_table->setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 4);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_table->setSizeAdjustPolicy(QAbstractScrollArea::AdjustIgnored);
    layout->addWidget(m_table);
}

void TablePanel::setContent(const TableContent& content)
{
    m_table->setColumnCount(int(content.columns.size()));
    m_table->setRowCount(int(content.rowLabels.size()));
    m_table->setHorizontalHeaderLabels(content.columns);
    m_table->setVerticalHeaderLabels(content.rowLabels);
    // Columns of numbers align right, to compare digits. One column of values is a list of
    // label -> value whose one long entry (the backend's description) can make the column wider
    // than the panel: aligned left, every short value stays in view instead of past the edge.
    const Qt::Alignment align = (content.columns.size() == 1 ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter;
    for (int r = 0; r < content.cells.size(); ++r)
        for (int c = 0; c < content.cells[r].size(); ++c) {
            auto* item = new QTableWidgetItem(content.cells[r][c]);
            item->setTextAlignment(align);
            m_table->setItem(r, c, item);
        }
}

QString TablePanel::cell(int row, int column) const
{
    const QTableWidgetItem* item = m_table->item(row, column);
    return item ? item->text() : QString();
}

bool TablePanel::showsEveryCellWhole() const
{
    const QFontMetrics fm(m_table->font());
    const int pad = 2 * m_table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, m_table) + 2;
    for (int c = 0; c < m_table->columnCount(); ++c) {
        const int width = m_table->columnWidth(c);
        if (QTableWidgetItem* header = m_table->horizontalHeaderItem(c))
            if (fm.horizontalAdvance(header->text()) + pad > width)
                return false;
        for (int r = 0; r < m_table->rowCount(); ++r)
            if (QTableWidgetItem* item = m_table->item(r, c))
                if (fm.horizontalAdvance(item->text()) + pad > width)
                    return false;
    }
    for (int r = 0; r < m_table->rowCount(); ++r)
        if (QTableWidgetItem* label = m_table->verticalHeaderItem(r))
            if (fm.horizontalAdvance(label->text()) + pad > m_table->verticalHeader()->width())
                return false;
    return true;
}

QTableWidget* TablePanel::table() const { return m_table; }

int TablePanel::rowOf(const QString& label) const
{
    for (int r = 0; r < m_table->rowCount(); ++r)
        if (m_table->verticalHeaderItem(r) && m_table->verticalHeaderItem(r)->text() == label)
            return r;
    return -1;
}
