// Strategy, bins, range, channels and display options, edited as one HistogramSettings value.
#pragma once

#include "app/core/HistogramSettings.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QSpinBox;

class SettingsPanel : public QWidget {
    Q_OBJECT

public:
    explicit SettingsPanel(QWidget* parent = nullptr);

    HistogramSettings settings() const;
    void setSettings(const HistogramSettings& settings);

signals:
    void settingsChanged(const HistogramSettings& settings);

private:
    void emitChanged();

    QComboBox* m_strategy;
    QSpinBox* m_bins;
    QCheckBox* m_autoRange;
    QDoubleSpinBox* m_lo;
    QDoubleSpinBox* m_hi;
    QCheckBox* m_channels[4];
    QComboBox* m_luma;
    QCheckBox* m_log;
    QCheckBox* m_cumulative;
    QCheckBox* m_useGpu;
    bool m_updating = false;
};
