// Presents histogram equalization of one frame: before and after pictures, both histograms,
// the transfer curves, and saving the result at native depth. Methods: global (exact, on the
// engine), CLAHE (clip limit and tiles) and matching to a pinned reference; on the luminance
// only (the default for colour images: colours keep their hue) or on each channel; respecting
// the region of interest when asked (only inside it, or its LUT applied to the whole image).
// The work (counting, LUTs, CLAHE, the 8-bit pictures, encoding and writing) is done by an
// EqualizationService off the GUI thread; the dialog sends requests and lays out the answer to
// its latest one.
#pragma once

#include "app/core/EqualizationService.h"

#include <QDialog>

class CurveView;
class HistogramView;
class ImageCanvas;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;

class EqualizeDialog : public QDialog {
    Q_OBJECT

public:
    // `preview`: the frame's 8-bit picture if the caller has one (shown until the answer comes).
    // `roi`: the window's region, if any. `reference`: a frame to match, if one is pinned.
    EqualizeDialog(const Frame& frame, const QString& source, bool useGpu, EqualizationService* service,
                   const Frame& preview = {}, std::optional<hs::Rect> roi = std::nullopt, const Frame& reference = {},
                   QWidget* parent = nullptr);

    EqualizationPtr outcome() const { return m_outcome; }   // the answer to the latest request
    void setMethod(EqualizeMethod method);
    void setChannels(EqualizeChannels channels);
    void setRegion(EqualizeRegion region);
    void setClahe(double clipLimit, int tiles);
    EqualizeRequest request() const;                         // what the controls ask for now
    void save(const QString& path);                          // answers with saved()
    QString statusText() const;

signals:
    void equalized();
    void saved(const Error& error);

private:
    void start();
    void updateControls();
    void present(EqualizationPtr outcome);

    EqualizationService* m_service;
    Frame m_frame;
    Frame m_reference;
    QString m_source;
    std::optional<hs::Rect> m_roi;
    bool m_useGpu = true;
    quint64 m_request = 0;
    quint64 m_saveRequest = 0;
    EqualizationPtr m_outcome;
    QComboBox* m_method = nullptr;
    QComboBox* m_channels = nullptr;
    QComboBox* m_region = nullptr;
    QDoubleSpinBox* m_clip = nullptr;
    QSpinBox* m_tiles = nullptr;
    ImageCanvas* m_before;
    ImageCanvas* m_after;
    HistogramView* m_beforeHistogram;
    HistogramView* m_afterHistogram;
    CurveView* m_curve;
    QLabel* m_status;
    QPushButton* m_save;
    bool m_updating = false;
};
