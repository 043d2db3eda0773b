#include "widgets/HistogramPanel.h"

#include "widgets/HistogramTableModel.h"
#include "widgets/HistogramView.h"

#include <QButtonGroup>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QStackedWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

HistogramPanel::HistogramPanel(QWidget* parent) : QWidget(parent)
{
    m_view = new HistogramView;
    m_model = new HistogramTableModel(this);
    m_table = new QTableView;
    m_table->setModel(m_model);
    // Rows of one height and columns sized from the widest value the display can hold, never
    // from the rows' contents: laying out 65,536 bins then asks for the visible cells only.
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 4);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideNone);

    m_pages = new QStackedWidget;
    m_pages->addWidget(m_view);
    m_pages->addWidget(m_table);

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(2, 2, 2, 0);
    bar->setSpacing(2);
    auto* group = new QButtonGroup(this);
    const struct {
        Mode mode;
        QString text, tip;
    } modes[] = {
        {Mode::Overlay, tr("Overlay"), tr("Every channel in one plot; fills add up where they overlap")},
        {Mode::Separate, tr("Separate"), tr("One plot per channel, one above the other, on a shared value axis")},
        {Mode::Table, tr("Table"), tr("Every bin's range and counts, as a list")},
    };
    for (const auto& m : modes) {
        auto* button = new QToolButton;
        button->setText(m.text);
        button->setToolTip(m.tip);
        button->setCheckable(true);
        button->setAutoRaise(true);
        group->addButton(button, int(m.mode));
        bar->addWidget(button);
        m_buttons[int(m.mode)] = button;
    }
    bar->addStretch(1);
    m_buttons[int(m_mode)]->setChecked(true);
    connect(group, &QButtonGroup::idClicked, this, [this](int id) {
        if (Mode(id) == m_mode)
            return;
        setMode(Mode(id));
        emit modeChanged(m_mode);
    });

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(bar);
    layout->addWidget(m_pages, 1);

    connect(m_view, &HistogramView::displayChanged, this, &HistogramPanel::apply);
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] { m_fitColumns = true; });
}

QAbstractButton* HistogramPanel::modeButton(Mode mode) const { return m_buttons[int(mode)]; }

void HistogramPanel::setMode(Mode mode)
{
    m_mode = mode;
    m_buttons[int(mode)]->setChecked(true);
    m_view->setArrangement(mode == Mode::Separate ? HistogramView::Arrangement::Separate : HistogramView::Arrangement::Overlay);
    apply();
}

void HistogramPanel::apply()
{
    // Nothing to list: the plot's page says why ("Open an image...").
    const bool table = m_mode == Mode::Table && !m_view->display().isEmpty();
    if (table) {
        refreshTable();
    } else if (m_model->rowCount() > 0) {
        m_model->setDisplay({});   // lets go of the last snapshot's counts
    }
    m_pages->setCurrentWidget(table ? static_cast<QWidget*>(m_table) : m_view);
}

void HistogramPanel::refreshTable()
{
    const HistogramDisplay& display = m_view->display();
    m_model->setDisplay(display);   // a new frame of the same binning keeps the rows in view
    // Widths from the widest text each column can hold: the last bin's number, a few edges,
    // and a count as large as the channel's total (the envelope when a display has no total).
    const QFontMetrics fm(m_table->font());
    const int pad = 12;
    auto fit = [&](int column, const QStringList& texts) {
        int w = fm.horizontalAdvance(m_model->headerData(column, Qt::Horizontal).toString()) + 2 * pad;
        for (const QString& t : texts)
            w = std::max(w, fm.horizontalAdvance(t) + pad);
        // Fitted anew for a new binning; the next frames only widen a column (a count grew),
        // so a width the user set stays.
        m_table->setColumnWidth(column, m_fitColumns ? w : std::max(w, m_table->columnWidth(column)));
    };
    const int bins = m_model->rowCount();
    const double width = bins > 0 ? (display.hi - display.lo) / bins : 0;
    QStringList edges;
    for (int k : {0, 1, bins / 3, bins / 2 + 1, bins - 1, bins})
        edges << m_model->edgeText(k == bins ? display.hi : display.lo + k * width);
    fit(0, {QString::number(std::max(0, bins - 1))});
    fit(1, edges);
    fit(2, edges);
    for (int i = 0; i < display.series.size(); ++i) {
        const HistogramSeries& s = display.series[i];
        double widest = s.total;
        if (!(widest > 0))
            for (double c : s.peaks.isEmpty() ? s.counts : s.peaks)   // a display built by hand
                widest = std::max(widest, c);
        fit(HistogramTableModel::kFixedColumns + i, {QString::number(qulonglong(std::max(0.0, widest)))});
    }
    m_fitColumns = false;
}
