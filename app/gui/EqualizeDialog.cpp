#include "app/gui/EqualizeDialog.h"

#include "widgets/CurveView.h"
#include "widgets/HistogramView.h"
#include "widgets/ImageCanvas.h"
#include "widgets/TablePanel.h"
#include "app/gui/FrameImage.h"
#include "app/gui/SnapshotPresenter.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QVBoxLayout>

namespace {

HistogramDisplay displayOf(const Frame& frame, const hs::HistogramResult& result)
{
    HistogramSnapshot snapshot;
    snapshot.frame = frame;
    snapshot.result = result;
    return toDisplay(snapshot);
}

void setItemEnabled(QComboBox* box, int index, bool enabled)
{
    if (auto* model = qobject_cast<QStandardItemModel*>(box->model()))
        if (QStandardItem* item = model->item(index))
            item->setEnabled(enabled);
}

// "10.04 % (26318)": a share of the pixels, never shown as 0 when some are counted (or as 100
// when some are not), with the true count.
QString shareText(quint64 count, quint64 total)
{
    if (total == 0)
        return QStringLiteral("–");
    const double percent = 100.0 * double(count) / double(total);
    const QString share = count > 0 && percent < 0.01         ? QStringLiteral("< 0.01 %")
                          : count < total && percent > 99.99 ? QStringLiteral("> 99.99 %")
                                                             : QString::number(percent, 'f', 2) + QStringLiteral(" %");
    return QStringLiteral("%1 (%2)").arg(share).arg(count);
}

// The extension a save dialog's filter names first: "TIFF (*.tif *.tiff)" -> "tif".
QString suffixOfFilter(const QString& filter)
{
    static const QRegularExpression pattern(QStringLiteral("\\*\\.(\\w+)"));
    const QRegularExpressionMatch m = pattern.match(filter);
    return m.hasMatch() ? m.captured(1) : QString();
}

const QString kPngFilter = QStringLiteral("PNG (*.png)");
const QString kTiffFilter = QStringLiteral("TIFF (*.tif *.tiff)");

}  // namespace

EqualizeDialog::EqualizeDialog(const Frame& frame, const QString& source, bool useGpu, EqualizationService* service,
                               const Frame& preview, std::optional<hs::Rect> roi, const Frame& reference, QWidget* parent)
    : QDialog(parent), m_service(service), m_frame(frame), m_reference(reference), m_source(source), m_roi(roi),
      m_useGpu(useGpu)
{
    setWindowTitle(tr("Histogram equalization"));
    m_before = new ImageCanvas;
    m_after = new ImageCanvas;
    m_beforeHistogram = new HistogramView;
    m_afterHistogram = new HistogramView;
    m_curve = new CurveView;
    m_status = new QLabel(tr("Equalizing..."));
    m_status->setObjectName("equalizeStatus");
    m_status->setWordWrap(true);
    m_range = new TablePanel;
    m_range->setObjectName("equalizeRange");
    m_range->setToolTip(tr("Shares of the pixels, with their counts. \"At 0 / at the top\": samples of the result at the "
                           "ends of the range. Luminance only: \"Cr, Cb kept: below 0 / above the top\" is where keeping Cr and Cb "
                           "would have pushed a channel out of the range, to be clipped; mixing with black or white keeps it in."));
    m_log = new QCheckBox(tr("Log counts"));
    m_log->setObjectName("equalizeLog");
    m_log->setToolTip(tr("Draw both histograms with logarithmic counts, so small bins next to a tall one show"));

    m_method = new QComboBox;
    m_method->setObjectName("equalizeMethod");
    m_method->addItem(tr("Global (exact, on the GPU when present)"), int(EqualizeMethod::Global));
    m_method->addItem(tr("CLAHE (adaptive, OpenCV on the CPU)"), int(EqualizeMethod::Clahe));
    m_method->addItem(tr("Match the pinned reference"), int(EqualizeMethod::Match));
    setItemEnabled(m_method, 2, !m_reference.isNull());
    m_method->setItemData(2, m_reference.isNull() ? tr("Pin a reference first (Compare > Pin as Reference)")
                                                  : tr("Exact CDF matching to the reference's histogram, through a LUT applied on the GPU when present"),
                          Qt::ToolTipRole);
    m_channels = new QComboBox;
    m_channels->setObjectName("equalizeChannels");
    m_channels->addItem(tr("Luminance only (keeps colours)"), int(EqualizeChannels::Luminance));
    m_channels->addItem(tr("Each channel on its own"), int(EqualizeChannels::PerChannel));
    m_channels->setToolTip(tr("Luminance: Y of YCrCb (BT.601) is equalized; each pixel reaches its new Y mixed with black "
                              "(darker) or white (brighter), so hues do not shift and no channel is clipped.\n"
                              "Each channel: R, G and B are equalized independently (colours shift)."));
    const bool colour = frame.channels() >= 3;
    m_channels->setCurrentIndex(colour ? 0 : 1);
    m_channels->setEnabled(colour);
    m_clip = new QDoubleSpinBox;
    m_clip->setObjectName("claheClip");
    m_clip->setRange(0.1, 100);
    m_clip->setSingleStep(0.5);
    m_clip->setValue(2.0);
    m_clip->setToolTip(tr("Contrast limit: how much a tile's histogram may exceed the uniform level before it is clipped"));
    m_tiles = new QSpinBox;
    m_tiles->setObjectName("claheTiles");
    m_tiles->setRange(1, 64);
    m_tiles->setValue(8);
    m_tiles->setSuffix(tr(" across and down"));
    m_tiles->setToolTip(tr("The image is cut into this many tiles across and down"));
    m_region = new QComboBox;
    m_region->setObjectName("equalizeRegion");
    m_region->addItem(tr("Whole image (region ignored)"), int(EqualizeRegion::WholeImage));
    m_region->addItem(tr("Only inside the region"), int(EqualizeRegion::InsideRegion));
    m_region->addItem(tr("LUT from the region, applied to the whole image"), int(EqualizeRegion::LutFromRegion));
    m_region->setEnabled(m_roi.has_value());
    if (m_roi)
        m_region->setToolTip(tr("Region x %1, y %2, %3 × %4").arg(m_roi->x).arg(m_roi->y).arg(m_roi->width).arg(m_roi->height));
    else
        m_region->setToolTip(tr("Draw a region on the image first"));

    auto* controls = new QFormLayout;
    controls->addRow(tr("Method"), m_method);
    controls->addRow(tr("Channels"), m_channels);
    controls->addRow(tr("CLAHE clip limit"), m_clip);
    controls->addRow(tr("CLAHE tiles"), m_tiles);
    controls->addRow(tr("Region"), m_region);
    controls->addRow(QString(), m_log);
    auto* controlBox = new QWidget;
    controlBox->setLayout(controls);
    auto* rangeBox = new QWidget;
    auto* rangeLayout = new QVBoxLayout(rangeBox);
    rangeLayout->setContentsMargins(0, 0, 0, 0);
    rangeLayout->setSpacing(2);
    rangeLayout->addWidget(new QLabel(tr("The result at the ends of the range (shares of the pixels, and counts)")));
    rangeLayout->addWidget(m_range);
    // A header and four rows, whole: the numbers are the point.
    m_range->setFixedHeight(6 * (fontMetrics().height() + 6) + 4);

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
    grid->addWidget(controlBox, 2, 2, Qt::AlignTop);
    grid->addWidget(rangeBox, 3, 0, 1, 2);
    grid->addWidget(m_status, 3, 2, Qt::AlignTop);
    grid->addWidget(buttons, 4, 2);
    grid->setRowStretch(1, 3);
    grid->setRowStretch(2, 2);
    if (!preview.isNull())
        m_before->setImage(frameImage(preview));
    if (m_roi) {
        const QRect r(int(m_roi->x), int(m_roi->y), int(m_roi->width), int(m_roi->height));
        m_before->setRoi(r);
    }
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_save, &QPushButton::clicked, this, [this] {
        // The source's format is chosen first when it is one of these; either keeps 16 bits.
        const QString own = QFileInfo(m_source).suffix().toLower();
        QString filter = own == QLatin1String("tif") || own == QLatin1String("tiff") ? kTiffFilter : kPngFilter;
        const QString path = QFileDialog::getSaveFileName(this, tr("Save equalized image"), QString(),
                                                          kPngFilter + QStringLiteral(";;") + kTiffFilter, &filter);
        if (!path.isEmpty())
            save(path, filter);
    });
    connect(m_log, &QCheckBox::toggled, this, [this](bool on) {
        m_beforeHistogram->setLogCounts(on);
        m_afterHistogram->setLogCounts(on);
    });
    connect(m_service, &EqualizationService::equalized, this, [this](EqualizationPtr outcome) {
        if (outcome->id == m_request)
            present(std::move(outcome));   // answers to requests this dialog replaced are not shown
    });
    connect(m_service, &EqualizationService::saved, this, [this](quint64 id, const QString& path, const Error& error) {
        if (id != m_saveRequest)
            return;
        m_savedPath = error.isError() ? QString() : path;
        m_status->setText(error.isError() ? tr("Not saved: %1").arg(error.message()) : tr("Saved %1").arg(path));
        emit saved(error);
    });
    for (QComboBox* box : {m_method, m_channels, m_region})
        connect(box, &QComboBox::currentIndexChanged, this, [this] { start(); });
    connect(m_clip, &QDoubleSpinBox::valueChanged, this, [this] { start(); });
    connect(m_tiles, &QSpinBox::valueChanged, this, [this] { start(); });
    start();
    resize(1200, 800);
}

void EqualizeDialog::setMethod(EqualizeMethod method) { m_method->setCurrentIndex(m_method->findData(int(method))); }
void EqualizeDialog::setChannels(EqualizeChannels channels) { m_channels->setCurrentIndex(m_channels->findData(int(channels))); }
void EqualizeDialog::setRegion(EqualizeRegion region) { m_region->setCurrentIndex(m_region->findData(int(region))); }

void EqualizeDialog::setClahe(double clipLimit, int tiles)
{
    m_updating = true;
    m_clip->setValue(clipLimit);
    m_tiles->setValue(tiles);
    m_updating = false;
    start();
}

QString EqualizeDialog::statusText() const { return m_status->text(); }

EqualizeRequest EqualizeDialog::request() const
{
    EqualizeRequest request;
    request.frame = m_frame;
    request.source = m_source;
    request.method = EqualizeMethod(m_method->currentData().toInt());
    request.channels = EqualizeChannels(m_channels->currentData().toInt());
    request.clipLimit = m_clip->value();
    request.tiles = m_tiles->value();
    request.roi = m_roi;
    request.region = m_roi ? EqualizeRegion(m_region->currentData().toInt()) : EqualizeRegion::WholeImage;
    request.reference = m_reference;
    request.useGpu = m_useGpu;
    return request;
}

void EqualizeDialog::updateControls()
{
    const auto method = EqualizeMethod(m_method->currentData().toInt());
    m_clip->setEnabled(method == EqualizeMethod::Clahe);
    m_tiles->setEnabled(method == EqualizeMethod::Clahe);
    // CLAHE has a curve per tile, none to take from a region and apply elsewhere.
    setItemEnabled(m_region, 2, method != EqualizeMethod::Clahe);
    if (method == EqualizeMethod::Clahe && m_region->currentIndex() == 2) {
        const QSignalBlocker quiet(m_region);
        m_region->setCurrentIndex(1);
    }
}

void EqualizeDialog::start()
{
    if (m_updating)
        return;
    updateControls();
    m_save->setEnabled(false);
    m_status->setText(tr("Equalizing..."));
    m_request = m_service->equalize(request());
}

void EqualizeDialog::save(const QString& path, const QString& filter)
{
    if (!m_outcome || m_outcome->equalized.isNull()) {
        const Error error = Error::make(ErrorKind::InvalidInput, path, tr("nothing to save yet"));
        m_status->setText(tr("Not saved: %1").arg(error.message()));
        emit saved(error);
        return;
    }
    const QString target = equalizedSavePath(path, suffixOfFilter(filter), m_source, m_outcome->equalized.type());
    m_status->setText(tr("Saving %1...").arg(target));
    m_saveRequest = m_service->save(target, m_outcome->equalized);
}

void EqualizeDialog::present(EqualizationPtr outcome)
{
    m_outcome = std::move(outcome);
    const Equalization& e = *m_outcome;
    if (!e.inputPreview.isNull())
        m_before->setImage(frameImage(e.inputPreview));
    if (e.error.isError()) {
        m_status->setText(e.error.message());
        m_curve->setCurves({}, {}, 1);
        m_curve->setNote({});
        m_range->setContent({});
        emit equalized();
        return;
    }
    m_after->setImage(frameImage(e.equalizedPreview));
    m_beforeHistogram->setDisplay(displayOf(m_frame, e.before));
    m_afterHistogram->setDisplay(displayOf(e.equalized, e.after));
    QVector<QVector<double>> curves;
    QVector<QColor> colors;
    for (std::size_t i = 0; i < e.luts.size(); ++i) {
        curves.append(QVector<double>(e.luts[i].begin(), e.luts[i].end()));
        const QString name = i < std::size_t(e.lutNames.size()) ? e.lutNames[qsizetype(i)] : QString();
        colors.append(name == QStringLiteral("Y") ? QColor(235, 235, 235) : channelColor(name));
    }
    const int top = m_frame.type() == hs::SampleType::U8 ? 255 : 65535;
    m_curve->setCurves(curves, colors, top);
    const QString units = e.lutNames.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(e.lutNames.join(QStringLiteral(", ")));
    m_curve->setAxisTitles(tr("input level%1").arg(units), tr("output level%1").arg(units));
    // CLAHE has one curve per tile, blended between neighbours, not one for the image.
    m_curve->setNote(e.method == EqualizeMethod::Clahe
                         ? tr("CLAHE has no single curve: each of its %1 × %1 tiles has its own, blended between neighbouring tiles")
                               .arg(m_tiles->value())
                         : QString());
    showRange(e, top);
    const QString what = e.channels == EqualizeChannels::Luminance ? tr("luminance only") : tr("each channel");
    const QString where = e.region == EqualizeRegion::InsideRegion    ? tr(", inside the region")
                          : e.region == EqualizeRegion::LutFromRegion ? tr(", LUT from the region on the whole image")
                                                                      : QString();
    switch (e.method) {
    case EqualizeMethod::Clahe:
        m_status->setText(tr("CLAHE (%1%2) with %3").arg(what, where, e.backend));
        break;
    case EqualizeMethod::Match:
        m_status->setText(tr("Matched to the reference (%1%2) on %3 in %4 ms").arg(what, where, e.backend).arg(e.engineMs, 0, 'f', 3));
        break;
    case EqualizeMethod::Global:
        m_status->setText(tr("Equalized on %1 in %2 ms (%3%4)").arg(e.backend).arg(e.engineMs, 0, 'f', 3).arg(what, where));
        break;
    }
    if (e.channels == EqualizeChannels::Luminance && e.wouldClip > 0)
        m_status->setText(m_status->text()
                          + tr(". No channel clipped: the hue kept by mixing with black or white, where keeping Cr and Cb "
                               "would have clipped %1 of the pixels")
                                .arg(shareText(e.wouldClip, e.pixels)));
    m_save->setEnabled(true);
    emit equalized();
}

void EqualizeDialog::showRange(const Equalization& e, int top)
{
    TableContent t;
    const bool luminance = e.channels == EqualizeChannels::Luminance;
    if (luminance)
        t.rowLabels << tr("Cr, Cb kept: below 0") << tr("Cr, Cb kept: above %1").arg(top);
    t.rowLabels << tr("at 0") << tr("at %1").arg(top);
    t.cells.resize(t.rowLabels.size());
    for (const ChannelRangeCounts& c : e.range) {
        t.columns << c.channel;
        int row = 0;
        if (luminance) {
            t.cells[row++] << shareText(c.below, e.pixels);
            t.cells[row++] << shareText(c.above, e.pixels);
        }
        t.cells[row++] << shareText(c.atLowest, e.pixels);
        t.cells[row++] << shareText(c.atHighest, e.pixels);
    }
    m_range->setContent(e.range.isEmpty() ? TableContent{} : t);
}
