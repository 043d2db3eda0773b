#include "app/gui/SettingsPanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QSizePolicy>
#include <QStandardItemModel>

namespace {
// The channel boxes, in the order of HistogramSettings::channelMask's bits.
const char* const kChannelNames[] = {"R", "G", "B", "A"};
}  // namespace

SettingsPanel::SettingsPanel(QWidget* parent) : QWidget(parent)
{
    // Compact: a narrow dock beside the image, not a third of the window.
    auto* form = new QFormLayout(this);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setRowWrapPolicy(QFormLayout::DontWrapRows);
    form->setContentsMargins(6, 6, 6, 6);
    form->setVerticalSpacing(4);
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
    m_rangeMode = new QComboBox;
    m_rangeMode->setObjectName("rangeMode");
    m_rangeMode->addItem(tr("Data type"), int(RangeMode::DataType));
    m_rangeMode->addItem(tr("Min–max"), int(RangeMode::DataMinMax));
    m_rangeMode->setItemData(1, tr("From the smallest to the largest sample of the frame"), Qt::ToolTipRole);
    m_rangeMode->addItem(tr("Bit depth"), int(RangeMode::BitDepth));
    m_rangeMode->addItem(tr("Manual"), int(RangeMode::Manual));
    form->addRow(tr("Range"), m_rangeMode);
    m_bitDepth = new QComboBox;
    m_bitDepth->setObjectName("bitDepth");
    for (int bits : {8, 10, 12, 14, 16})
        m_bitDepth->addItem(tr("%1-bit").arg(bits), bits);
    form->addRow(tr("Bit depth"), m_bitDepth);
    m_lo = new QDoubleSpinBox;
    m_hi = new QDoubleSpinBox;
    m_lo->setObjectName("rangeLo");
    m_hi->setObjectName("rangeHi");
    for (QDoubleSpinBox* box : {m_lo, m_hi}) {
        box->setRange(-1e12, 1e12);
        box->setDecimals(4);
    }
    auto* range = new QHBoxLayout;
    range->addWidget(m_lo);
    range->addWidget(m_hi);
    m_rangeKind = new QLabel;
    form->addRow(m_rangeKind, range);
    auto* channels = new QHBoxLayout;
    for (int c = 0; c < 4; ++c) {
        m_channels[c] = new QCheckBox(QString::fromLatin1(kChannelNames[c]));
        m_channels[c]->setObjectName(QStringLiteral("channel%1").arg(kChannelNames[c]));
        channels->addWidget(m_channels[c]);
    }
    form->addRow(tr("Channels"), channels);
    m_luma = new QComboBox;
    m_luma->addItems({tr("None"), tr("BT.601"), tr("BT.709")});
    form->addRow(tr("Luma"), m_luma);
    m_log = new QCheckBox(tr("Log counts"));
    m_log->setObjectName("logCounts");
    m_cumulative = new QCheckBox(tr("Cumulative"));
    m_cumulative->setObjectName("cumulative");
    m_useGpu = new QCheckBox(tr("Use the GPU"));
    m_useGpu->setObjectName("useGpu");
    m_useGpu->setToolTip(tr("Count on the GPU when one is present; otherwise on the CPU"));
    form->addRow(QString(), m_log);
    form->addRow(QString(), m_cumulative);
    form->addRow(QString(), m_useGpu);
    for (QComboBox* box : findChildren<QComboBox*>()) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(8);
    }
    for (QAbstractSpinBox* box : findChildren<QAbstractSpinBox*>())
        box->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    m_bins->setMinimumWidth(90);
    m_lo->setMinimumWidth(60);
    m_hi->setMinimumWidth(60);
    m_log->setToolTip(tr("Counts on a logarithmic axis (decades)"));
    m_cumulative->setToolTip(tr("The cumulative share on a % axis, with the 5th, 50th and 95th percentiles marked"));
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);

    showSettings();
    connect(m_strategy, &QComboBox::currentIndexChanged, this, &SettingsPanel::emitChanged);
    connect(m_bins, &QSpinBox::valueChanged, this, &SettingsPanel::emitChanged);
    connect(m_rangeMode, &QComboBox::currentIndexChanged, this, &SettingsPanel::emitChanged);
    connect(m_bitDepth, &QComboBox::currentIndexChanged, this, &SettingsPanel::emitChanged);
    connect(m_lo, &QDoubleSpinBox::valueChanged, this, &SettingsPanel::emitChanged);
    connect(m_hi, &QDoubleSpinBox::valueChanged, this, &SettingsPanel::emitChanged);
    for (QCheckBox* box : m_channels)
        connect(box, &QCheckBox::toggled, this, &SettingsPanel::emitChanged);
    connect(m_luma, &QComboBox::currentIndexChanged, this, &SettingsPanel::emitChanged);
    connect(m_log, &QCheckBox::toggled, this, &SettingsPanel::emitChanged);
    connect(m_cumulative, &QCheckBox::toggled, this, &SettingsPanel::emitChanged);
    connect(m_useGpu, &QCheckBox::toggled, this, &SettingsPanel::emitChanged);
}

HistogramSettings SettingsPanel::settings() const { return m_settings; }

void SettingsPanel::setSettings(const HistogramSettings& settings)
{
    m_settings = settings;
    showSettings();
}

void SettingsPanel::setDataKind(RangeKind kind, ValueRange typeRange)
{
    m_kind = kind;
    m_typeRange = typeRange;
    showSettings();
}

void SettingsPanel::setImageChannels(int channels)
{
    if (channels == m_imageChannels)
        return;
    m_imageChannels = channels;
    for (int c = 0; c < 4; ++c) {
        m_channels[c]->setHidden(channels > 0 && c >= channels);
        const bool gray = (channels == 1 || channels == 2) && c == 0;
        const bool alpha = channels == 2 && c == 1;
        m_channels[c]->setText(gray ? tr("Gray") : alpha ? QStringLiteral("A") : QString::fromLatin1(kChannelNames[c]));
    }
}

void SettingsPanel::setGpuAvailability(const GpuAvailability& gpu)
{
    m_gpu = gpu;
    showSettings();
}

QString SettingsPanel::strategyUnavailableReason(hs::Strategy strategy) const
{
    if (!hs::isGpuStrategy(strategy))
        return {};
    if (!m_gpu.present)
        return tr("Needs a CUDA GPU, and %1").arg(m_gpu.reason);
    if (!m_settings.counting.useGpu)
        return tr("Needs the GPU: tick \"Use the GPU\"");
    return {};
}

void SettingsPanel::showSettings()
{
    m_updating = true;
    const CountSettings& s = m_settings.counting;
    m_strategy->setCurrentIndex(m_strategy->findData(int(s.strategy)));
    m_bins->setValue(s.bins);
    m_rangeMode->setCurrentIndex(m_rangeMode->findData(int(s.rangeMode)));
    const int depth = m_bitDepth->findData(s.bitDepth);
    if (depth < 0)
        m_bitDepth->addItem(tr("%1-bit").arg(s.bitDepth), s.bitDepth);
    m_bitDepth->setCurrentIndex(m_bitDepth->findData(s.bitDepth));
    m_bitDepth->setEnabled(s.rangeMode == RangeMode::BitDepth);
    const ValueRange manual = s.manualRanges[std::size_t(m_kind)].value_or(m_typeRange);
    for (QDoubleSpinBox* box : {m_lo, m_hi})
        box->setDecimals(m_kind == RangeKind::Float ? 4 : 0);
    m_lo->setValue(manual.lo);
    m_hi->setValue(manual.hi);
    m_lo->setEnabled(s.rangeMode == RangeMode::Manual);
    m_hi->setEnabled(s.rangeMode == RangeMode::Manual);
    // The manual range is kept per kind of data; the label names the kind in the user's words.
    const QString kind = m_kind == RangeKind::Int8    ? tr("8-bit")
                       : m_kind == RangeKind::Int16   ? tr("16-bit")
                       : m_kind == RangeKind::Int32   ? tr("32-bit")
                                                      : tr("Float");
    m_rangeKind->setText(tr("%1 [lo, hi)").arg(kind));
    for (int c = 0; c < 4; ++c)
        m_channels[c]->setChecked((s.channelMask >> c) & 1u);
    // Without a device the box is not offered as ticked; the stored choice stays for a machine
    // that has one (emitChanged keeps it).
    m_useGpu->setEnabled(m_gpu.present);
    m_useGpu->setChecked(m_gpu.present && s.useGpu);
    m_useGpu->setToolTip(m_gpu.present ? tr("Count on the GPU when one is present; otherwise on the CPU")
                                       : tr("Counting on the CPU: %1").arg(m_gpu.reason));
    if (auto* model = qobject_cast<QStandardItemModel*>(m_strategy->model()))
        for (int i = 0; i < m_strategy->count(); ++i) {
            const QString why = strategyUnavailableReason(hs::Strategy(m_strategy->itemData(i).toInt()));
            model->item(i)->setEnabled(why.isEmpty());
            m_strategy->setItemData(i, why.isEmpty() ? QVariant() : QVariant(why), Qt::ToolTipRole);
        }
    m_luma->setCurrentIndex(int(m_settings.display.luma));
    m_log->setChecked(m_settings.display.logCounts);
    m_cumulative->setChecked(m_settings.display.cumulative);
    m_updating = false;
}

void SettingsPanel::emitChanged()
{
    if (m_updating)
        return;
    HistogramSettings s = m_settings;
    CountSettings& count = s.counting;
    count.strategy = hs::Strategy(m_strategy->currentData().toInt());
    count.bins = m_bins->value();
    const RangeMode previousMode = count.rangeMode;
    count.rangeMode = RangeMode(m_rangeMode->currentData().toInt());
    count.bitDepth = m_bitDepth->currentData().toInt();
    count.channelMask = 0;
    for (int c = 0; c < 4; ++c)
        count.channelMask |= m_channels[c]->isChecked() ? (1u << c) : 0u;
    count.useGpu = m_useGpu->isEnabled() ? m_useGpu->isChecked() : m_settings.counting.useGpu;
    s.display.luma = LumaCoefficients(m_luma->currentIndex());
    s.display.logCounts = m_log->isChecked();
    s.display.cumulative = m_cumulative->isChecked();
    if (count.rangeMode == RangeMode::Manual) {
        auto& manual = count.manualRanges[std::size_t(m_kind)];
        // Switching to manual starts from the range on screen, never from an unrelated default.
        if (previousMode != RangeMode::Manual && !manual)
            manual = m_typeRange;
        else if (m_lo->value() < m_hi->value())
            manual = ValueRange{m_lo->value(), m_hi->value()};
        else
            return;  // wait until the range is valid again
    }
    m_settings = s;
    showSettings();
    emit settingsChanged(s);
}
