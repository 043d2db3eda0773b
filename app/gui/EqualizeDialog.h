// Presents histogram equalization of one frame: before and after pictures, both histograms,
// the transfer curves, and saving the result at native depth. The work (counting, LUTs,
// CLAHE, the 8-bit pictures, encoding and writing) is done by an EqualizationService off the
// GUI thread; the dialog sends requests and lays out the answer to its latest one.
#pragma once

#include "app/core/EqualizationService.h"

#include <QDialog>

class CurveView;
class HistogramView;
class ImageCanvas;
class QComboBox;
class QLabel;
class QPushButton;

class EqualizeDialog : public QDialog {
    Q_OBJECT

public:
    // `preview`: the frame's 8-bit picture if the caller has one (shown until the answer comes).
    EqualizeDialog(const Frame& frame, const QString& source, bool useGpu, EqualizationService* service,
                   const Frame& preview = {}, QWidget* parent = nullptr);

    EqualizationPtr outcome() const { return m_outcome; }   // the answer to the latest request
    void setMethod(EqualizeMethod method);
    void save(const QString& path);                          // answers with saved()
    QString statusText() const;

signals:
    void equalized();
    void saved(const Error& error);

private:
    void start();
    void present(EqualizationPtr outcome);

    EqualizationService* m_service;
    Frame m_frame;
    QString m_source;
    bool m_useGpu = true;
    quint64 m_request = 0;
    quint64 m_saveRequest = 0;
    EqualizationPtr m_outcome;
    QComboBox* m_method = nullptr;
    ImageCanvas* m_before;
    ImageCanvas* m_after;
    HistogramView* m_beforeHistogram;
    HistogramView* m_afterHistogram;
    CurveView* m_curve;
    QLabel* m_status;
    QPushButton* m_save;
};
