// Presents histogram equalization of one frame: before and after pictures, both histograms
// (linear or log counts), the transfer curves on axes in the data's units (a note for CLAHE,
// which has none), how much of the result meets the ends of the range, and saving the result at
// native depth. Methods: global (exact, on the
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
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;
class TablePanel;

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
    // Answers with saved(). A path without an extension gets one: `filter`'s (the save dialog's
    // choice, "TIFF (*.tif *.tiff)"), else the source's format (equalizedSavePath).
    void save(const QString& path, const QString& filter = {});
    QString statusText() const;
    QString savedPath() const { return m_savedPath; }        // the file the latest save wrote to
    // The result against the ends of the range: shares of pixels per colour channel.
    TablePanel* rangeTable() const { return m_range; }
    CurveView* curveView() const { return m_curve; }
    HistogramView* beforeHistogram() const { return m_beforeHistogram; }
    HistogramView* afterHistogram() const { return m_afterHistogram; }
    QCheckBox* logCountsBox() const { return m_log; }

signals:
    void equalized();
    void saved(const Error& error);

private:
    void start();
    void updateControls();
    void present(EqualizationPtr outcome);
    void showRange(const Equalization& e, int top);

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
    TablePanel* m_range;
    QCheckBox* m_log;
    QPushButton* m_save;
    QString m_savedPath;
    bool m_updating = false;
};
