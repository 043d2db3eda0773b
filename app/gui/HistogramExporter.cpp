#include "app/gui/HistogramExporter.h"

#include "app/core/RecordCodec.h"
#include "app/gui/SnapshotPresenter.h"
#include "io/AtomicFile.h"
#include "widgets/HistogramView.h"

#include <QBuffer>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QFutureWatcher>
#include <QImage>
#include <QSettings>
#include <QSpinBox>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

namespace {

// What an export says about one channel: the counts, the samples' type, and the region and frame
// they came from.
HistogramRecord exportRecord(const HistogramSnapshot& snapshot, const QString& source, qint64 frame,
                             const QString& channel, const hs::ChannelHistogram& histogram)
{
    return HistogramRecord{source, frame, channel, histogram, snapshot.frame.type(), snapshot.roi};
}

Error writeCsv(const QString& path, const SnapshotPtr& snapshot, const QString& source, qint64 frame)
{
    const auto channels = orderedChannels(*snapshot);
    int bins = 0;
    for (const auto& c : channels)
        bins = std::max(bins, int(c.histogram->counts.size()));
    // Every statistic the Statistics panel shows, by the one definition (docs/SCHEMA.md).
    QByteArray text = RecordCodec::csvHeader(bins);
    for (const auto& [name, h] : channels)
        text += RecordCodec::csvLine(exportRecord(*snapshot, source, frame, name, *h));
    return writeFileAtomically(path, text);
}

Error writeJson(const QString& path, const SnapshotPtr& snapshot, const QString& source, qint64 frame)
{
    // An array of the records, one a line, each with its keys in docs/SCHEMA.md's order, as the
    // command line writes them (QJsonDocument would sort the keys).
    QByteArray text = "[\n";
    for (const auto& [name, h] : orderedChannels(*snapshot)) {
        if (text.size() > 2)
            text += ",\n";
        text += "  " + RecordCodec::jsonText(exportRecord(*snapshot, source, frame, name, *h));
    }
    return writeFileAtomically(path, text + "\n]\n");
}

// The path with `suffix` appended when it has no extension of its own.
QString withSuffix(const QString& path, const QString& suffix)
{
    return QFileInfo(path).suffix().isEmpty() ? path + '.' + suffix : path;
}

}  // namespace

HistogramExporter::HistogramExporter(QObject* parent) : QObject(parent) {}

void HistogramExporter::exportCsv(const QString& path, const SnapshotPtr& snapshot, const QString& source, qint64 frame)
{
    const QString target = withSuffix(path, QStringLiteral("csv"));
    start(target, [=] { return writeCsv(target, snapshot, source, frame); });
}

void HistogramExporter::exportJson(const QString& path, const SnapshotPtr& snapshot, const QString& source, qint64 frame)
{
    const QString target = withSuffix(path, QStringLiteral("json"));
    start(target, [=] { return writeJson(target, snapshot, source, frame); });
}

void HistogramExporter::exportPlot(const QString& path, HistogramView* view, QSize size, const SnapshotPtr& snapshot,
                                   const QString& source, qint64 frame)
{
    if (size.isEmpty())
        size = view->size();
    size = size.boundedTo(QSize(16384, 16384)).expandedTo(QSize(200, 120));
    const QString target = withSuffix(path, QStringLiteral("png"));
    const QString title = plotTitle(source, frame, snapshot ? snapshot->roi : std::nullopt);
    // Painting happens here (widgets belong to this thread), at the size asked for, axes, legend
    // and title included; encoding and writing do not.
    start(target, [target, image = view->render(size, title)] { return writeImage(target, image, "PNG"); });
}

QString HistogramExporter::plotTitle(const QString& source, qint64 frame, const std::optional<hs::Rect>& region)
{
    // A file by its name (the folder is in the PNG's own path), a live source as it was given.
    const QString name = QFileInfo(source).fileName().isEmpty() ? source : QFileInfo(source).fileName();
    QStringList parts{name};
    if (frame >= 0)
        parts << tr("frame %1").arg(frame);
    parts << (region ? tr("region %1 × %2 at (%3, %4)").arg(region->width).arg(region->height).arg(region->x).arg(region->y)
                     : tr("whole frame"));
    return parts.join(QStringLiteral(" — "));
}

void HistogramExporter::start(const QString& path, std::function<Error()> write)
{
    // A one-shot job on the thread pool: it always answers, with the write's Error.
    auto* watcher = new QFutureWatcher<Error>(this);
    connect(watcher, &QFutureWatcher<Error>::finished, this, [this, watcher, path] {
        const Error error = watcher->result();
        watcher->deleteLater();
        emit finished(path, error);
    });
    watcher->setFuture(QtConcurrent::run(std::move(write)));
}

Error HistogramExporter::writeImage(const QString& path, const QImage& image, const char* format)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    if (image.isNull() || !buffer.open(QIODevice::WriteOnly) || !image.save(&buffer, format))
        return Error::make(ErrorKind::WriteFailed, path, tr("the image could not be encoded as %1").arg(QString::fromLatin1(format)));
    return writeFileAtomically(path, bytes);
}

QSize HistogramExporter::askPlotSize(QWidget* parent)
{
    QSettings store;
    const QSize last = store.value("export/plotSize", QSize(1200, 600)).toSize();
    QDialog dialog(parent);
    dialog.setWindowTitle(tr("Plot size"));
    auto* form = new QFormLayout(&dialog);
    auto* width = new QSpinBox;
    auto* height = new QSpinBox;
    width->setRange(200, 16384);
    height->setRange(120, 16384);
    width->setSuffix(tr(" px"));
    height->setSuffix(tr(" px"));
    width->setValue(last.width());
    height->setValue(last.height());
    form->addRow(tr("Width"), width);
    form->addRow(tr("Height"), height);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    if (dialog.exec() != QDialog::Accepted)
        return {};
    const QSize size(width->value(), height->value());
    store.setValue("export/plotSize", size);
    return size;
}
