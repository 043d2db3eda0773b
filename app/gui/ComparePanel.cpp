#include "app/gui/ComparePanel.h"

#include "widgets/TablePanel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

ComparePanel::ComparePanel(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(4);
    auto* buttons = new QHBoxLayout;
    m_pin = new QPushButton(tr("Pin Current"));
    m_pin->setObjectName("pinReference");
    m_pin->setToolTip(tr("Keep the histogram shown now as the reference: it is overlaid dashed and compared with every later one"));
    m_clear = new QPushButton(tr("Clear"));
    m_clear->setObjectName("clearReference");
    m_match = new QPushButton(tr("Match to Reference..."));
    m_match->setObjectName("matchReference");
    m_match->setToolTip(tr("Remap the current image so that its histogram matches the reference's (exact CDF matching)"));
    buttons->addWidget(m_pin);
    buttons->addWidget(m_clear);
    buttons->addWidget(m_match);
    buttons->addStretch(1);
    layout->addLayout(buttons);
    m_reference = new QLabel;
    m_reference->setObjectName("referenceName");
    m_reference->setWordWrap(true);
    layout->addWidget(m_reference);
    m_message = new QLabel;
    m_message->setWordWrap(true);
    layout->addWidget(m_message);
    m_table = new TablePanel;
    layout->addWidget(m_table, 1);
    m_legend = new QLabel(tr("c: the current histogram, r: the pinned reference, each normalized to a sum of 1 "
                             "(cv::compareHist, the current first). Chi-square is not symmetric: it divides by the "
                             "current, so swapping the two gives another value. Same shape: correlation 1, chi-square 0, "
                             "intersection 1, Bhattacharyya 0."));
    m_legend->setObjectName("compareLegend");
    QLabel* legend = m_legend;
    legend->setWordWrap(true);
    legend->setStyleSheet(QStringLiteral("color: gray;"));
    layout->addWidget(legend);
    connect(m_pin, &QPushButton::clicked, this, &ComparePanel::pinRequested);
    connect(m_clear, &QPushButton::clicked, this, &ComparePanel::clearRequested);
    connect(m_match, &QPushButton::clicked, this, &ComparePanel::matchRequested);
    setReference({});
    setCanPin(false);
}

void ComparePanel::setReference(const QString& description)
{
    m_reference->setText(description.isEmpty() ? tr("No reference pinned")
                                               : tr("Reference (r): %1. Measured: the current histogram (c) against it.").arg(description));
    m_clear->setEnabled(!description.isEmpty());
    m_match->setEnabled(!description.isEmpty());
    if (description.isEmpty()) {
        m_table->setContent({});
        m_message->clear();
    }
}

void ComparePanel::setCanPin(bool can) { m_pin->setEnabled(can); }

void ComparePanel::showDistances(const HistogramDistances& d)
{
    m_message->setText(d.error.isError() ? d.error.cause : QString());
    TableContent t;
    t.rowLabels = {tr("correlation"), chiSquareLabel(), tr("intersection"), tr("Bhattacharyya")};
    t.cells.resize(4);
    for (const ChannelDistances& c : d.channels) {
        t.columns << c.channel;
        const double values[] = {c.correlation, c.chiSquare, c.intersection, c.bhattacharyya};
        for (int r = 0; r < 4; ++r)
            t.cells[r] << QString::number(values[r], 'f', 5);
    }
    m_table->setContent(d.channels.isEmpty() ? TableContent{} : t);
}

QString ComparePanel::chiSquareLabel() { return tr("chi-square Σ(c−r)²/c"); }

QString ComparePanel::referenceText() const { return m_reference->text(); }
QString ComparePanel::legendText() const { return m_legend->text(); }
QString ComparePanel::messageText() const { return m_message->text(); }
