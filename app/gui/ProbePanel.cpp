#include "app/gui/ProbePanel.h"

#include <QComboBox>
#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QHBoxLayout>
#include <QVBoxLayout>

namespace {

QTableWidget* valueTable(const QString& name, const QStringList& headers, int rows, const QFontMetrics& fm)
{
    auto* table = new QTableWidget(0, int(headers.size()));
    table->setObjectName(name);
    table->setHorizontalHeaderLabels(headers);
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionMode(QAbstractItemView::NoSelection);
    table->setFocusPolicy(Qt::NoFocus);
    table->setTextElideMode(Qt::ElideNone);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    table->verticalHeader()->setDefaultSectionSize(fm.height() + 4);
    table->setFixedHeight(rows * (fm.height() + 4) + 6);
    table->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    return table;
}

// Fills `row` of `table` with `cells`, making the items once.
void setRow(QTableWidget* table, int row, const QStringList& cells)
{
    for (int c = 0; c < cells.size(); ++c) {
        auto* item = table->item(row, c);
        if (!item) {
            item = new QTableWidgetItem;
            item->setTextAlignment(c == 0 ? (Qt::AlignLeft | Qt::AlignVCenter) : (Qt::AlignRight | Qt::AlignVCenter));
            table->setItem(row, c, item);
        }
        item->setText(cells[c]);
    }
}

QString cellText(const QTableWidget* table, int row, int column)
{
    const QTableWidgetItem* item = table->item(row, column);
    return item ? item->text() : QString();
}

}  // namespace

ProbePanel::ProbePanel(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 4);
    layout->setSpacing(4);
    m_position = new QLabel(tr("Move the cursor over the image"));
    m_position->setObjectName("probePosition");
    layout->addWidget(m_position);
    auto* areaRow = new QHBoxLayout;
    m_area = new QComboBox;
    m_area->setObjectName("probeArea");
    for (int side : {1, 3, 5})
        m_area->addItem(tr("%1 × %1").arg(side), side);
    m_area->setToolTip(tr("Show the value of one pixel, or the mean over a square around it (clipped at the image's edge)"));
    m_averaged = new QLabel;
    m_averaged->setObjectName("probeAveraged");
    areaRow->addWidget(new QLabel(tr("Area")));
    areaRow->addWidget(m_area);
    areaRow->addWidget(m_averaged, 1);
    layout->addLayout(areaRow);
    m_values = valueTable(QStringLiteral("probeValues"), {tr("channel"), tr("value"), tr("float")}, 5, fontMetrics());
    layout->addWidget(m_values);
    m_derived = valueTable(QStringLiteral("probeDerived"), {tr("derived"), tr("value"), tr("float")}, 5, fontMetrics());
    m_derived->setToolTip(tr("Luma: the weighted sum of R, G and B (the settings' BT.601 or BT.709), not rounded.\n"
                             "HSV of R, G and B as floats: hue in degrees (none for a gray), saturation (max − min) / max, value = max."));
    layout->addWidget(m_derived);
    connect(m_area, &QComboBox::currentIndexChanged, this, [this] {
        if (m_probing)
            showProbe(probePixel(m_frame, m_pixel.x(), m_pixel.y(), area(), m_luma));
    });

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

void ProbePanel::probeAt(const Frame& frame, const QPoint& pixel)
{
    m_frame = frame;
    m_pixel = pixel;
    m_probing = true;
    showProbe(probePixel(frame, pixel.x(), pixel.y(), area(), m_luma));
}

void ProbePanel::setLuma(LumaCoefficients luma)
{
    m_luma = luma;
    if (m_probing)
        showProbe(probePixel(m_frame, m_pixel.x(), m_pixel.y(), area(), m_luma));
}

void ProbePanel::setArea(int side)
{
    const int index = m_area->findData(side);
    if (index >= 0)
        m_area->setCurrentIndex(index);
}

int ProbePanel::area() const { return m_area->currentData().toInt(); }

void ProbePanel::showProbe(const PixelProbe& probe)
{
    if (!probe.inside) {
        clearProbe();
        return;
    }
    m_position->setText(tr("x %1  y %2").arg(probe.x).arg(probe.y));
    const bool clipped = probe.averaged < qint64(probe.area) * probe.area;
    m_averaged->setText(probe.averaged == 1 ? tr("1 pixel")
                        : clipped           ? tr("mean of %1 pixels (%2 × %3, clipped at the edge)").arg(probe.averaged).arg(probe.width).arg(probe.height)
                                            : tr("mean of %1 pixels").arg(probe.averaged));
    m_values->setRowCount(int(probe.samples.size()));
    for (int r = 0; r < probe.samples.size(); ++r) {
        const ProbeSample& s = probe.samples[r];
        setRow(m_values, r, {s.channel, probeValueText(probe, s), QString::number(s.normalized, 'f', 6)});
    }
    QVector<QStringList> derived;
    if (probe.luma) {
        const QString name = probe.lumaCoefficients == LumaCoefficients::Bt601 ? tr("luma (BT.601)") : tr("luma (BT.709)");
        derived.append({name, probeLumaText(probe), QString::number(*probe.lumaNormalized, 'f', 6)});
    }
    if (probe.hsv) {
        const ProbeHsv& h = *probe.hsv;
        derived.append({tr("hue"), h.hue ? QStringLiteral("%1°").arg(*h.hue, 0, 'f', 1) : tr("none (gray)"),
                        h.hue ? QString::number(*h.hue / 360.0, 'f', 6) : QString()});
        derived.append({tr("saturation"), QString(), QString::number(h.saturation, 'f', 6)});
        derived.append({tr("value"), QString(), QString::number(h.value, 'f', 6)});
    }
    m_derived->setRowCount(int(derived.size()));
    for (int r = 0; r < derived.size(); ++r)
        setRow(m_derived, r, derived[r]);
}

void ProbePanel::clearProbe()
{
    m_position->setText(tr("Move the cursor over the image"));
    m_averaged->clear();
    m_values->setRowCount(0);
    m_derived->setRowCount(0);
    m_probing = false;
    m_frame = Frame();   // the pixels are not held past the hover
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

QString ProbePanel::valueText(int row, int column) const { return cellText(m_values, row, column); }

int ProbePanel::rowCount() const { return m_values->rowCount(); }

QString ProbePanel::averagedText() const { return m_averaged->text(); }

QString ProbePanel::derivedText(int row, int column) const { return cellText(m_derived, row, column); }

int ProbePanel::derivedRowCount() const { return m_derived->rowCount(); }
