// Global histogram equalization of the current frame on a worker thread: before and after
// images, both histograms, the transfer curves, and saving the result at native depth.
#pragma once

#include "io/Frame.h"

#include <QDialog>
#include <QFutureWatcher>

#include <memory>

class CurveView;
class HistogramView;
class ImageCanvas;
class QLabel;
class QPushButton;

enum class EqualizeMethod { Global, Clahe };

struct EqualizeOutcome {
    Frame equalized;
    std::vector<std::vector<std::uint32_t>> luts;
    hs::HistogramResult before;
    hs::HistogramResult after;
    QString error;
    QString backend;
    double engineMs = 0;
};

class EqualizeDialog : public QDialog {
    Q_OBJECT

public:
    EqualizeDialog(const Frame& frame, bool useGpu, QWidget* parent = nullptr);
    const EqualizeOutcome* outcome() const { return m_outcome.get(); }
    bool save(const QString& path);

    static EqualizeOutcome run(const Frame& frame, bool useGpu, EqualizeMethod method = EqualizeMethod::Global,
                               double clipLimit = 2.0);
    void setMethod(EqualizeMethod method);

signals:
    void equalized();

private:
    void present(const EqualizeOutcome& outcome);
    void start();

    Frame m_frame;
    bool m_useGpu = true;
    class QComboBox* m_method = nullptr;
    std::unique_ptr<EqualizeOutcome> m_outcome;
    QFutureWatcher<EqualizeOutcome> m_watcher;
    ImageCanvas* m_before;
    ImageCanvas* m_after;
    HistogramView* m_beforeHistogram;
    HistogramView* m_afterHistogram;
    CurveView* m_curve;
    QLabel* m_status;
    QPushButton* m_save;
};
