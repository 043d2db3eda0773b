// Strategy, bins, range, channels and display options, edited as one HistogramSettings value.
// A manual range is edited for the kind of data on screen (setDataKind), so each kind keeps
// its own. Without a GPU (setGpuAvailability) the GPU strategies are not offered, each with a
// tooltip that says why, and "Use the GPU" is shown unticked and disabled.
#pragma once

#include "app/core/HistogramSettings.h"
#include "app/gui/GpuAvailability.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;

class SettingsPanel : public QWidget {
    Q_OBJECT

public:
    explicit SettingsPanel(QWidget* parent = nullptr);

    HistogramSettings settings() const;
    void setSettings(const HistogramSettings& settings);
    // The kind of data shown now, and its type's range: a manual range is edited for this kind,
    // starting from the type's range the first time.
    void setDataKind(RangeKind kind, ValueRange typeRange);
    // The channels of the image on screen: only theirs are offered (a gray image's one box reads
    // "Gray"); 0, before any image, offers R, G, B and A. Hidden channels keep their setting.
    void setImageChannels(int channels);
    // Whether a GPU can count here; until told, the panel offers everything. Without one, the
    // stored "Use the GPU" is kept (settings() returns it) but shown unticked and disabled.
    void setGpuAvailability(const GpuAvailability& gpu);
    // Why the strategy cannot be picked now (no GPU, or "Use the GPU" off); empty when it can.
    QString strategyUnavailableReason(hs::Strategy strategy) const;

signals:
    void settingsChanged(const HistogramSettings& settings);

private:
    void showSettings();
    void emitChanged();

    HistogramSettings m_settings;
    RangeKind m_kind = RangeKind::Int8;
    ValueRange m_typeRange{0, 256};
    int m_imageChannels = 0;
    GpuAvailability m_gpu{true, {}};
    QComboBox* m_strategy;
    QSpinBox* m_bins;
    QComboBox* m_rangeMode;
    QComboBox* m_bitDepth;
    QDoubleSpinBox* m_lo;
    QDoubleSpinBox* m_hi;
    QLabel* m_rangeKind;
    QCheckBox* m_channels[4];
    QComboBox* m_luma;
    QCheckBox* m_log;
    QCheckBox* m_cumulative;
    QCheckBox* m_useGpu;
    bool m_updating = false;
};
