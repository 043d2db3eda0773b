#include "app/gui/ProbePanel.h"

#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

ProbePanel::ProbePanel(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 4);
    layout->setSpacing(4);
    m_position = new QLabel(tr("Move the cursor over the image"));
    m_position->setObjectName("probePosition");
    layout->addWidget(m_position);
    m_values = new QTableWidget(0, 3);
    m_values->setObjectName("probeValues");
    m_values->setHorizontalHeaderLabels({tr("channel"), tr("value"), tr("float")});
    m_values->verticalHeader()->hide();
    m_values->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_values->setSelectionMode(QAbstractItemView::NoSelection);
    m_values->setFocusPolicy(Qt::NoFocus);
    m_values->setTextElideMode(Qt::ElideNone);
    m_values->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_values->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 4);
    m_values->setFixedHeight(5 * (fontMetrics().height() + 4) + 6);
    m_values->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    layout->addWidget(m_values);

    auto* grid = new QGridLayout;
    grid->setHorizontalSpacing(4);
    grid->setVerticalSpacing(2);
    const QString labels[] = {tr("x"), tr("y"), tr("width"), tr("height")};
    for (int i = 0; i < 4; ++i) {
        m_roi[i] = new QSpinBox;
        m_roi[i]->setObjectName(QStringLiteral("roi%1").arg(i));
        m_roi[i]->setRange(0, 0);
        m_roi[i]->setKeyboardTracking(false);   // applied on Enter or when the box loses focus
        m_roi[i]->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
        m_roi[i]->setMinimumWidth(56);
        grid->addWidget(new QLabel(labels[i]), i / 2, (i % 2) * 2);
        grid->addWidget(m_roi[i], i / 2, (i % 2) * 2 + 1);
        connect(m_roi[i], &QSpinBox::valueChanged, this, &ProbePanel::emitRoi);
    }
    auto* whole = new QPushButton(tr("Whole frame"));
    whole->setObjectName("roiClear");
    whole->setToolTip(tr("Count the whole frame (clear the region)"));
    connect(whole, &QPushButton::clicked, this, [this] {
        setRoi(QRect());
        emit roiEdited(QRect());
    });
    grid->addWidget(whole, 2, 0, 1, 4);
    auto* title = new QLabel(tr("Region (pixels)"));
    title->setToolTip(tr("Drag on the image or type the region; width 0 counts the whole frame"));
    layout->addWidget(title);
    layout->addLayout(grid);
    layout->addStretch(1);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);
}

void ProbePanel::showProbe(const PixelProbe& probe)
{
    if (!probe.inside) {
        clearProbe();
        return;
    }
    m_position->setText(tr("x %1  y %2").arg(probe.x).arg(probe.y));
    m_values->setRowCount(int(probe.samples.size()));
    for (int r = 0; r < probe.samples.size(); ++r) {
        const ProbeSample& s = probe.samples[r];
        const QString cells[] = {s.channel, probeValueText(probe, s), QString::number(s.normalized, 'f', 6)};
        for (int c = 0; c < 3; ++c) {
            auto* item = m_values->item(r, c);
            if (!item) {
                item = new QTableWidgetItem;
                item->setTextAlignment(c == 0 ? (Qt::AlignLeft | Qt::AlignVCenter) : (Qt::AlignRight | Qt::AlignVCenter));
                m_values->setItem(r, c, item);
            }
            item->setText(cells[c]);
        }
    }
}

void ProbePanel::clearProbe()
{
    m_position->setText(tr("Move the cursor over the image"));
    m_values->setRowCount(0);
}

void ProbePanel::setFrameSize(const QSize& size)
{
    m_frameSize = size;
    m_updating = true;
    m_roi[0]->setRange(0, std::max(0, size.width() - 1));
    m_roi[1]->setRange(0, std::max(0, size.height() - 1));
    m_roi[2]->setRange(0, size.width());
    m_roi[3]->setRange(0, size.height());
    m_updating = false;
}

void ProbePanel::setRoi(const QRect& roi)
{
    m_updating = true;
    const int values[] = {roi.x(), roi.y(), roi.width(), roi.height()};
    for (int i = 0; i < 4; ++i)
        m_roi[i]->setValue(roi.isEmpty() ? 0 : values[i]);
    m_updating = false;
}

QRect ProbePanel::roi() const
{
    const QRect r(m_roi[0]->value(), m_roi[1]->value(), m_roi[2]->value(), m_roi[3]->value());
    return r.isEmpty() ? QRect() : r.intersected(QRect(QPoint(0, 0), m_frameSize));
}

void ProbePanel::emitRoi()
{
    if (!m_updating)
        emit roiEdited(roi());
}

QString ProbePanel::positionText() const { return m_position->text(); }

QString ProbePanel::valueText(int row, int column) const
{
    const QTableWidgetItem* item = m_values->item(row, column);
    return item ? item->text() : QString();
}

int ProbePanel::rowCount() const { return m_values->rowCount(); }
