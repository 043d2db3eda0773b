#include "app/gui/SettingsPanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QSpinBox>

SettingsPanel::SettingsPanel(QWidget* parent) : QWidget(parent)
{
    auto* form = new QFormLayout(this);
    m_strategy = new QComboBox;
    for (hs::Strategy s : hs::allStrategies())
        m_strategy->addItem(strategyDisplayName(s), int(s));
    m_strategy->setObjectName("strategy");
    form->addRow(tr("Strategy"), m_strategy);
    m_bins = new QSpinBox;
    m_bins->setObjectName("bins");
    m_bins->setRange(0, 1 << 24);
    m_bins->setSpecialValueText(tr("one per value"));
    form->addRow(tr("Bins"), m_bins);
    m_autoRange = new QCheckBox(tr("Range from the data type"));
    m_autoRange->setObjectName("autoRange");
    form->addRow(QString(), m_autoRange);
    m_lo = new QDoubleSpinBox;
    m_hi = new QDoubleSpinBox;
    for (QDoubleSpinBox* box : {m_lo, m_hi}) {
        box->setRange(-1e12, 1e12);
        box->setDecimals(4);
    }
    auto* range = new QHBoxLayout;
    range->addWidget(m_lo);
    range->addWidget(m_hi);
    form->addRow(tr("Range [lo, hi)"), range);
    auto* channels = new QHBoxLayout;
    const char* names[] = {"R", "G", "B", "A"};
    for (int c = 0; c < 4; ++c) {
        m_channels[c] = new QCheckBox(QString::fromLatin1(names[c]));
        m_channels[c]->setObjectName(QStringLiteral("channel%1").arg(names[c]));
        channels->addWidget(m_channels[c]);
    }
    form->addRow(tr("Channels"), channels);
    m_luma = new QComboBox;
    m_luma->addItems({tr("No luma"), tr("Luma BT.601"), tr("Luma BT.709")});
    form->addRow(tr("Luma"), m_luma);
    m_log = new QCheckBox(tr("Log counts"));
    m_log->setObjectName("logCounts");
    m_cumulative = new QCheckBox(tr("Cumulative with percentiles"));
    m_cumulative->setObjectName("cumulative");
    m_useGpu = new QCheckBox(tr("Use the GPU when present"));
    form->addRow(QString(), m_log);
    form->addRow(QString(), m_cumulative);
    form->addRow(QString(), m_useGpu);

    setSettings(HistogramSettings{});
    connect(m_strategy, &QComboBox::currentIndexChanged, this, &SettingsPanel::emitChanged);
    connect(m_bins, &QSpinBox::valueChanged, this, &SettingsPanel::emitChanged);
    connect(m_autoRange, &QCheckBox::toggled, this, &SettingsPanel::emitChanged);
    connect(m_lo, &QDoubleSpinBox::valueChanged, this, &SettingsPanel::emitChanged);
    connect(m_hi, &QDoubleSpinBox::valueChanged, this, &SettingsPanel::emitChanged);
    for (QCheckBox* box : m_channels)
        connect(box, &QCheckBox::toggled, this, &SettingsPanel::emitChanged);
    connect(m_luma, &QComboBox::currentIndexChanged, this, &SettingsPanel::emitChanged);
    connect(m_log, &QCheckBox::toggled, this, &SettingsPanel::emitChanged);
    connect(m_cumulative, &QCheckBox::toggled, this, &SettingsPanel::emitChanged);
    connect(m_useGpu, &QCheckBox::toggled, this, &SettingsPanel::emitChanged);
}

HistogramSettings SettingsPanel::settings() const
{
    HistogramSettings s;
    CountSettings& count = s.counting;
    count.strategy = hs::Strategy(m_strategy->currentData().toInt());
    count.bins = m_bins->value();
    count.autoRange = m_autoRange->isChecked();
    count.lo = m_lo->value();
    count.hi = m_hi->value();
    count.channelMask = 0;
    for (int c = 0; c < 4; ++c)
        count.channelMask |= m_channels[c]->isChecked() ? (1u << c) : 0u;
    count.useGpu = m_useGpu->isChecked();
    s.display.luma = LumaCoefficients(m_luma->currentIndex());
    s.display.logCounts = m_log->isChecked();
    s.display.cumulative = m_cumulative->isChecked();
    return s;
}

void SettingsPanel::setSettings(const HistogramSettings& settings)
{
    m_updating = true;
    const CountSettings& s = settings.counting;
    m_strategy->setCurrentIndex(m_strategy->findData(int(s.strategy)));
    m_bins->setValue(s.bins);
    m_autoRange->setChecked(s.autoRange);
    m_lo->setValue(s.lo);
    m_hi->setValue(s.hi);
    m_lo->setEnabled(!s.autoRange);
    m_hi->setEnabled(!s.autoRange);
    for (int c = 0; c < 4; ++c)
        m_channels[c]->setChecked((s.channelMask >> c) & 1u);
    m_useGpu->setChecked(s.useGpu);
    m_luma->setCurrentIndex(int(settings.display.luma));
    m_log->setChecked(settings.display.logCounts);
    m_cumulative->setChecked(settings.display.cumulative);
    m_updating = false;
}

void SettingsPanel::emitChanged()
{
    if (m_updating)
        return;
    const HistogramSettings s = settings();
    if (!(s.counting.lo < s.counting.hi) && !s.counting.autoRange)
        return;  // wait until the range is valid again
    m_lo->setEnabled(!s.counting.autoRange);
    m_hi->setEnabled(!s.counting.autoRange);
    emit settingsChanged(s);
}
