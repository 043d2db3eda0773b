#include "app/gui/EqualizeDialog.h"

#include "widgets/CurveView.h"
#include "io/FrameWriter.h"
#include "widgets/HistogramView.h"
#include "widgets/ImageCanvas.h"
#include "app/core/PreviewFrame.h"
#include "app/gui/FrameImage.h"
#include "app/gui/SnapshotPresenter.h"

#include "histoscope/HistogramEngine.h"

#include <opencv2/imgproc.hpp>

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QGridLayout>
#include <QLabel>
#include <QPushButton>
#include <QtConcurrent/QtConcurrentRun>

namespace {

HistogramDisplay displayOf(const Frame& frame, const hs::HistogramResult& result)
{
    HistogramSnapshot snapshot;
    snapshot.frame = frame;
    snapshot.result = result;
    return toDisplay(snapshot);
}

}  // namespace

namespace {

// Contrast-limited adaptive equalization through OpenCV on the CPU, each colour channel on its
// own (alpha untouched); the global method is the engine's exact GPU path.
bool claheInto(const Frame& frame, unsigned char* out, std::size_t stride, double clipLimit, QString& error)
{
    const int depth = frame.type() == hs::SampleType::U8 ? CV_8U : CV_16U;
    const cv::Mat in(int(frame.height()), int(frame.width()), CV_MAKETYPE(depth, frame.channels()),
                     const_cast<unsigned char*>(frame.data()), frame.strideBytes());
    cv::Mat result(in.rows, in.cols, in.type(), out, stride);
    try {
        auto clahe = cv::createCLAHE(clipLimit, cv::Size(8, 8));
        std::vector<cv::Mat> planes;
        cv::split(in, planes);
        const int colour = frame.channels() == 2 ? 1 : std::min(frame.channels(), 3);
        for (int c = 0; c < colour; ++c)
            clahe->apply(planes[std::size_t(c)], planes[std::size_t(c)]);
        cv::merge(planes, result);
    } catch (const cv::Exception& e) {
        error = QString::fromStdString(e.msg).trimmed();
        return false;
    }
    return true;
}

}  // namespace

EqualizeOutcome EqualizeDialog::run(const Frame& frame, bool useGpu, EqualizeMethod method, double clipLimit)
{
    EqualizeOutcome outcome;
    if (frame.type() != hs::SampleType::U8 && frame.type() != hs::SampleType::U16) {
        outcome.error = QStringLiteral("Equalization needs an 8- or 16-bit image; this one has %1 samples")
                            .arg(QString::fromStdString(std::string(hs::sampleTypeName(frame.type()))));
        return outcome;
    }
    hs::HistogramEngine engine(hs::EngineOptions{useGpu});
    outcome.backend = engine.hasGpu() ? QString::fromStdString(engine.deviceInfo()->name) : QStringLiteral("CPU");
    const std::size_t stride = std::size_t(frame.width()) * frame.channels() * hs::sampleSize(frame.type());
    auto pixels = std::make_shared<std::vector<unsigned char>>(stride * std::size_t(frame.height()));
    hs::EqualizeResult result;
    // Colour channels are equalized each on its own; alpha is left alone.
    std::array<bool, hs::kMaxChannels> channels{true, frame.channels() != 2, true, false};
    if (method == EqualizeMethod::Clahe) {
        if (!claheInto(frame, pixels->data(), stride, clipLimit, outcome.error))
            return outcome;
        hs::HistogramRequest before = hs::makeRequest(frame.view(), hs::defaultBinning(frame.type()));
        for (int c = 0; c < hs::kMaxChannels; ++c)
            before.binning[c].active = channels[c];
        engine.compute(before, outcome.before);
        outcome.backend += QStringLiteral(" (CLAHE by OpenCV on the CPU)");
    } else {
        const hs::Status status = engine.equalize(frame.view(), pixels->data(), stride, result, channels);
        if (!status) {
            outcome.error = QString::fromStdString(status.message);
            return outcome;
        }
        outcome.luts = result.luts;
        outcome.before = result.histogram;
        outcome.engineMs = result.timings.totalMs();
    }
    outcome.equalized = Frame(std::shared_ptr<const void>(pixels, pixels->data()), pixels->data(), frame.type(), frame.width(),
                              frame.height(), frame.channels(), stride, frame.channelOrder());
    hs::ChannelBinning binning = hs::defaultBinning(frame.type());
    hs::HistogramRequest after = hs::makeRequest(outcome.equalized.view(), binning);
    for (int c = 0; c < hs::kMaxChannels; ++c)
        after.binning[c].active = channels[c];
    engine.compute(after, outcome.after);
    return outcome;
}

EqualizeDialog::EqualizeDialog(const Frame& frame, bool useGpu, QWidget* parent)
    : QDialog(parent), m_frame(frame), m_useGpu(useGpu)
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
    m_before->setImage(frameImage(previewFrame(frame)));
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_save, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save equalized image"), QString(),
                                                          tr("PNG (*.png);;TIFF (*.tif *.tiff)"));
        if (path.isEmpty() || !m_outcome)
            return;
        // Encoding and writing happen off the GUI thread.
        m_status->setText(tr("Saving %1...").arg(path));
        auto* watcher = new QFutureWatcher<Error>(this);
        connect(watcher, &QFutureWatcher<Error>::finished, this, [this, watcher, path] {
            const Error error = watcher->result();
            m_status->setText(error.isError() ? error.message() : tr("Saved %1").arg(path));
            watcher->deleteLater();
        });
        watcher->setFuture(QtConcurrent::run([path, frame = m_outcome->equalized] { return saveFrame(path, frame); }));
    });
    connect(&m_watcher, &QFutureWatcher<EqualizeOutcome>::finished, this, [this] { present(m_watcher.result()); });
    connect(m_method, &QComboBox::currentIndexChanged, this, [this] { start(); });
    start();
    resize(1200, 700);
}

void EqualizeDialog::setMethod(EqualizeMethod method) { m_method->setCurrentIndex(int(method)); }

void EqualizeDialog::start()
{
    if (m_watcher.isRunning()) {
        // One at a time: the finished result starts the next one with the current method.
        connect(&m_watcher, &QFutureWatcher<EqualizeOutcome>::finished, this, [this] { start(); },
                Qt::SingleShotConnection);
        return;
    }
    m_save->setEnabled(false);
    m_status->setText(tr("Equalizing..."));
    const auto method = EqualizeMethod(m_method->currentIndex());
    m_watcher.setFuture(QtConcurrent::run([frame = m_frame, useGpu = m_useGpu, method] { return run(frame, useGpu, method); }));
}

void EqualizeDialog::present(const EqualizeOutcome& outcome)
{
    m_outcome = std::make_unique<EqualizeOutcome>(outcome);
    if (!outcome.error.isEmpty()) {
        m_status->setText(outcome.error);
        emit equalized();
        return;
    }
    m_after->setImage(frameImage(previewFrame(outcome.equalized)));
    m_beforeHistogram->setDisplay(displayOf(m_frame, outcome.before));
    m_afterHistogram->setDisplay(displayOf(outcome.equalized, outcome.after));
    QVector<QVector<double>> curves;
    QVector<QColor> colors;
    int index = 0;
    for (const hs::ChannelHistogram& h : outcome.before.channels) {
        if (outcome.luts.empty())
            break;  // CLAHE has one curve per tile, not one per image
        const auto& lut = outcome.luts[std::size_t(index++)];
        curves.append(QVector<double>(lut.begin(), lut.end()));
        colors.append(channelColor(channelName(m_frame.channelOrder(), h.channel)));
    }
    m_curve->setCurves(curves, colors, m_frame.type() == hs::SampleType::U8 ? 255 : 65535);
    m_status->setText(outcome.luts.empty()
                          ? tr("Equalized with %1").arg(outcome.backend)
                          : tr("Equalized on %1 in %2 ms (histogram, CDF, LUT and apply)").arg(outcome.backend).arg(outcome.engineMs, 0, 'f', 3));
    m_save->setEnabled(true);
    emit equalized();
}

bool EqualizeDialog::save(const QString& path)
{
    if (!m_outcome || m_outcome->equalized.isNull())
        return false;
    const Error error = saveFrame(path, m_outcome->equalized);
    if (error.isError()) {
        m_status->setText(error.message());
        return false;
    }
    m_status->setText(tr("Saved %1").arg(path));
    return true;
}
