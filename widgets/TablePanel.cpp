#include "widgets/TablePanel.h"

#include <QHeaderView>
#include <QStyle>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

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
    // Interactive, with widths fitted here once per content: ResizeToContents measures every cell
    // again for each cell set, which made a live statistics table quadratic on the GUI thread.
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_table->setSizeAdjustPolicy(QAbstractScrollArea::AdjustIgnored);
    layout->addWidget(m_table);
}

void TablePanel::setContent(const TableContent& content)
{
    // Hidden (a tab behind another), the table is filled when it shows: a live source's frames
    // cost nothing here meanwhile.
    m_pending = content;
    m_hasPending = true;
    if (isVisible())
        applyPending();
}

void TablePanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    applyPending();
}

void TablePanel::applyPending()
{
    if (!m_hasPending)
        return;
    m_hasPending = false;
    const TableContent& content = m_pending;
    const bool sameShape = content.columns == m_shown.columns && content.rowLabels == m_shown.rowLabels
                           && m_table->columnCount() == content.columns.size();
    if (!sameShape) {
        m_table->setColumnCount(int(content.columns.size()));
        m_table->setRowCount(int(content.rowLabels.size()));
        m_table->setHorizontalHeaderLabels(content.columns);
        m_table->setVerticalHeaderLabels(content.rowLabels);
    }
    // Columns of numbers align right, to compare digits. One column of values is a list of
    // label -> value whose one long entry (the backend's description) can make the column wider
    // than the panel: aligned left, every short value stays in view instead of past the edge.
    const Qt::Alignment align = (content.columns.size() == 1 ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter;
    // Rows sized to their contents (wrapped text) are measured once after all cells are set,
    // not once per cell set.
    QHeaderView* rows = m_table->verticalHeader();
    const bool rowsFitContents = rows->sectionResizeMode(0) == QHeaderView::ResizeToContents;
    if (rowsFitContents)
        rows->setSectionResizeMode(QHeaderView::Fixed);
    for (int r = 0; r < content.cells.size() && r < m_table->rowCount(); ++r)
        for (int c = 0; c < content.cells[r].size() && c < m_table->columnCount(); ++c) {
            QTableWidgetItem* item = m_table->item(r, c);
            if (!item) {
                item = new QTableWidgetItem(content.cells[r][c]);
                item->setTextAlignment(align);
                m_table->setItem(r, c, item);
            } else if (item->text() != content.cells[r][c]) {
                item->setText(content.cells[r][c]);
            }
            if (item->textAlignment() != int(align))
                item->setTextAlignment(align);
            if (m_cellToolTips && item->toolTip() != item->text())
                item->setToolTip(item->text());   // the whole value, also when the panel is narrow
        }
    for (int r = 0; r < m_table->rowCount(); ++r)   // rows the new content leaves short
        for (int c = r < content.cells.size() ? int(content.cells[r].size()) : 0; c < m_table->columnCount(); ++c)
            delete m_table->takeItem(r, c);
    fitColumns(sameShape);
    if (rowsFitContents)
        rows->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_shown = content;
}

// Each column as wide as its widest text, measured once per content. While the shape stays (a
// playing video), columns only grow, so that the numbers do not jump sideways from frame to frame.
void TablePanel::fitColumns(bool growOnly)
{
    QHeaderView* header = m_table->horizontalHeader();
    const QFontMetrics fm(m_table->font());
    const int pad = 2 * (m_table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, m_table) + 1) + 2;
    for (int c = 0; c < m_table->columnCount(); ++c) {
        if (header->sectionResizeMode(c) != QHeaderView::Interactive)
            continue;   // a table told to stretch its columns keeps that
        int width = header->sectionSizeHint(c);
        for (int r = 0; r < m_table->rowCount(); ++r)
            if (const QTableWidgetItem* item = m_table->item(r, c))
                width = std::max(width, fm.horizontalAdvance(item->text()) + pad);
        if (growOnly)
            width = std::max(width, header->sectionSize(c));
        if (width != header->sectionSize(c))
            header->resizeSection(c, width);
    }
}

QString TablePanel::cell(int row, int column) const
{
    const TableContent& latest = m_hasPending ? m_pending : m_shown;
    if (row < 0 || row >= latest.cells.size() || column < 0 || column >= latest.cells[row].size())
        return {};
    return latest.cells[row][column];
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

QTableWidget* TablePanel::table()
{
    applyPending();   // whoever looks at the widget sees the latest content
    return m_table;
}

void TablePanel::setCellToolTips(bool on) { m_cellToolTips = on; }

int TablePanel::rowOf(const QString& label) const
{
    return int((m_hasPending ? m_pending : m_shown).rowLabels.indexOf(label));
}
