#include "app/gui/EqualizeDialog.h"

#include "widgets/CurveView.h"
#include "widgets/HistogramView.h"
#include "widgets/ImageCanvas.h"
#include "app/gui/FrameImage.h"
#include "app/gui/SnapshotPresenter.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QGridLayout>
#include <QLabel>
#include <QPushButton>

namespace {

HistogramDisplay displayOf(const Frame& frame, const hs::HistogramResult& result)
{
    HistogramSnapshot snapshot;
    snapshot.frame = frame;
    snapshot.result = result;
    return toDisplay(snapshot);
}

}  // namespace

EqualizeDialog::EqualizeDialog(const Frame& frame, const QString& source, bool useGpu, EqualizationService* service,
                               const Frame& preview, QWidget* parent)
    : QDialog(parent), m_service(service), m_frame(frame), m_source(source), m_useGpu(useGpu)
{
    setWindowTitle(tr("Histogram equalization"));
    m_before = new ImageCanvas;
    m_after = new ImageCanvas;
    m_beforeHistogram = new HistogramView;
    m_afterHistogram = new HistogramView;
    m_curve = new CurveView;
    m_status = new QLabel(tr("Equalizing..."));
    m_status->setObjectName("equalizeStatus");
    m_method = new QComboBox;
    m_method->addItems({tr("Global (exact, on the GPU when present)"), tr("CLAHE (OpenCV, CPU)")});
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    m_save = buttons->addButton(tr("Save Result..."), QDialogButtonBox::ActionRole);
    m_save->setEnabled(false);
    auto* grid = new QGridLayout(this);
    grid->addWidget(new QLabel(tr("Before")), 0, 0);
    grid->addWidget(new QLabel(tr("After")), 0, 1);
    grid->addWidget(new QLabel(tr("Transfer curve")), 0, 2);
    grid->addWidget(m_before, 1, 0);
    grid->addWidget(m_after, 1, 1);
    grid->addWidget(m_curve, 1, 2);
    grid->addWidget(m_beforeHistogram, 2, 0);
    grid->addWidget(m_afterHistogram, 2, 1);
    grid->addWidget(m_method, 2, 2, Qt::AlignTop);
    grid->addWidget(m_status, 3, 0, 1, 2);
    grid->addWidget(buttons, 3, 2);
    if (!preview.isNull())
        m_before->setImage(frameImage(preview));
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_save, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save equalized image"), QString(),
                                                          tr("PNG (*.png);;TIFF (*.tif *.tiff)"));
        if (!path.isEmpty())
            save(path);
    });
    connect(m_service, &EqualizationService::equalized, this, [this](EqualizationPtr outcome) {
        if (outcome->id == m_request)
            present(std::move(outcome));   // answers to requests this dialog replaced are not shown
    });
    connect(m_service, &EqualizationService::saved, this, [this](quint64 id, const QString& path, const Error& error) {
        if (id != m_saveRequest)
            return;
        m_status->setText(error.isError() ? error.message() : tr("Saved %1").arg(path));
        emit saved(error);
    });
    connect(m_method, &QComboBox::currentIndexChanged, this, [this] { start(); });
    start();
    resize(1200, 700);
}

void EqualizeDialog::setMethod(EqualizeMethod method) { m_method->setCurrentIndex(int(method)); }

QString EqualizeDialog::statusText() const { return m_status->text(); }

void EqualizeDialog::start()
{
    m_save->setEnabled(false);
    m_status->setText(tr("Equalizing..."));
    EqualizeRequest request;
    request.frame = m_frame;
    request.source = m_source;
    request.method = EqualizeMethod(m_method->currentIndex());
    request.useGpu = m_useGpu;
    m_request = m_service->equalize(request);
}

void EqualizeDialog::save(const QString& path)
{
    if (!m_outcome || m_outcome->equalized.isNull()) {
        const Error error = Error::make(ErrorKind::InvalidInput, path, tr("nothing to save yet"));
        m_status->setText(error.message());
        emit saved(error);
        return;
    }
    m_status->setText(tr("Saving %1...").arg(path));
    m_saveRequest = m_service->save(path, m_outcome->equalized);
}

void EqualizeDialog::present(EqualizationPtr outcome)
{
    m_outcome = std::move(outcome);
    const Equalization& e = *m_outcome;
    if (!e.inputPreview.isNull())
        m_before->setImage(frameImage(e.inputPreview));
    if (e.error.isError()) {
        m_status->setText(e.error.message());
        emit equalized();
        return;
    }
    m_after->setImage(frameImage(e.equalizedPreview));
    m_beforeHistogram->setDisplay(displayOf(m_frame, e.before));
    m_afterHistogram->setDisplay(displayOf(e.equalized, e.after));
    QVector<QVector<double>> curves;
    QVector<QColor> colors;
    // CLAHE has one curve per tile, not one per image: no curves then.
    for (std::size_t i = 0; i < e.luts.size() && i < e.before.channels.size(); ++i) {
        curves.append(QVector<double>(e.luts[i].begin(), e.luts[i].end()));
        colors.append(channelColor(channelName(m_frame.channelOrder(), e.before.channels[i].channel)));
    }
    m_curve->setCurves(curves, colors, m_frame.type() == hs::SampleType::U8 ? 255 : 65535);
    m_status->setText(e.method == EqualizeMethod::Clahe
                          ? tr("Equalized with %1").arg(e.backend)
                          : tr("Equalized on %1 in %2 ms (histogram, CDF, LUT and apply)").arg(e.backend).arg(e.engineMs, 0, 'f', 3));
    m_save->setEnabled(true);
    emit equalized();
}
