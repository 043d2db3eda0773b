#include "widgets/TablePanel.h"

#include <QHeaderView>
#include <QTableWidget>
#include <QVBoxLayout>

TablePanel::TablePanel(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_table = new QTableWidget;
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->setDefaultSectionSize(20);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    layout->addWidget(m_table);
}

void TablePanel::setContent(const TableContent& content)
{
    m_table->setColumnCount(int(content.columns.size()));
    m_table->setRowCount(int(content.rowLabels.size()));
    m_table->setHorizontalHeaderLabels(content.columns);
    m_table->setVerticalHeaderLabels(content.rowLabels);
    for (int r = 0; r < content.cells.size(); ++r)
        for (int c = 0; c < content.cells[r].size(); ++c) {
            auto* item = new QTableWidgetItem(content.cells[r][c]);
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_table->setItem(r, c, item);
        }
}

QString TablePanel::cell(int row, int column) const
{
    const QTableWidgetItem* item = m_table->item(row, column);
    return item ? item->text() : QString();
}

int TablePanel::rowOf(const QString& label) const
{
    for (int r = 0; r < m_table->rowCount(); ++r)
        if (m_table->verticalHeaderItem(r) && m_table->verticalHeaderItem(r)->text() == label)
            return r;
    return -1;
}
