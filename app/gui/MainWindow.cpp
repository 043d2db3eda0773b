#include "app/gui/MainWindow.h"

#include "widgets/BarChart.h"
#include "app/gui/EqualizeDialog.h"
#include "app/gui/FrameImage.h"
#include "app/core/RecordCodec.h"
#include "widgets/HistogramView.h"
#include "io/ImageLoader.h"
#include "widgets/ImageCanvas.h"
#include "app/gui/SettingsPanel.h"
#include "app/gui/SnapshotPresenter.h"
#include "widgets/TablePanel.h"
#include "io/VideoReader.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>
#include <QInputDialog>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QMenuBar>
#include <QMimeData>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QVBoxLayout>

namespace {

}  // namespace

namespace {

// File writers that run off the GUI thread; they take values, never the window.
QString writeCsv(const QString& path, const SnapshotPtr& snapshot, const QString& source, qint64 frame)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text))
        return path + ": " + file.errorString();
    const auto channels = orderedChannels(*snapshot);
    int bins = 0;
    for (const auto& c : channels)
        bins = std::max(bins, int(c.histogram->counts.size()));
    QTextStream out(&file);
    out << RecordCodec::csvHeader(bins);
    for (const auto& [name, h] : channels)
        out << RecordCodec::csvLine({source, frame, name, *h});
    return {};
}

QString writeJson(const QString& path, const SnapshotPtr& snapshot, const QString& source, qint64 frame)
{
    QJsonArray records;
    for (const auto& [name, h] : orderedChannels(*snapshot))
        records.append(RecordCodec::recordJson({source, frame, name, *h}));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return path + ": " + file.errorString();
    file.write(QJsonDocument(records).toJson());
    return {};
}

QString writeImage(const QString& path, const QImage& image)
{
    return image.save(path) ? QString() : path + QObject::tr(": the plot could not be saved");
}

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent)
{
    setWindowTitle(QStringLiteral("HistoScope"));
    setAcceptDrops(true);
    QSettings store;
    const QStringList settingNotices = m_settings.load(store);
    m_recent = store.value("recentFiles").toStringList();

    m_imageView = new ImageCanvas;
    m_histogramView = new HistogramView;
    m_settingsPanel = new SettingsPanel;
    m_settingsPanel->setSettings(m_settings);
    m_statistics = new TablePanel;
    m_timing = new TablePanel;
    m_comparisonChart = new BarChart;
    m_error = new QLabel;
    m_error->setObjectName("errorBanner");
    m_error->setWordWrap(true);
    m_error->setStyleSheet("QLabel { background: #7a1f1f; color: white; padding: 6px; }");
    m_error->hide();

    auto* tabs = new QTabWidget;
    tabs->addTab(m_statistics, tr("Statistics"));
    tabs->addTab(m_timing, tr("Timing"));
    tabs->addTab(m_comparisonChart, tr("Strategies"));
    auto* right = new QSplitter(Qt::Vertical);
    right->addWidget(m_histogramView);
    right->addWidget(tabs);
    right->setStretchFactor(0, 3);
    right->setStretchFactor(1, 2);
    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(m_imageView);
    split->addWidget(right);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* central = new QWidget;
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_error);
    layout->addWidget(split);
    setCentralWidget(central);
    auto* dock = new QDockWidget(tr("Settings"), this);
    dock->setObjectName("settingsDock");
    dock->setWidget(m_settingsPanel);
    addDockWidget(Qt::LeftDockWidgetArea, dock);

    m_backend = new QLabel;
    m_frameLabel = new QLabel;
    m_hover = new QLabel;
    statusBar()->addWidget(m_backend);
    statusBar()->addWidget(m_frameLabel);
    statusBar()->addPermanentWidget(m_hover);
    if (!settingNotices.isEmpty())
        statusBar()->showMessage(settingNotices.join(QStringLiteral("; ")), 15000);
    m_histogramView->setLogCounts(m_settings.display.logCounts);
    m_histogramView->setCumulative(m_settings.display.cumulative);
    buildMenus();

    connect(&m_media, &MediaController::frameAvailable, this, &MainWindow::takeFrame, Qt::QueuedConnection);
    connect(&m_media, &MediaController::failed, this, &MainWindow::showError, Qt::QueuedConnection);
    connect(&m_media, &MediaController::warning, this, [this](const QString& w) { statusBar()->showMessage(w, 8000); },
            Qt::QueuedConnection);
    connect(&m_media, &MediaController::opened, this,
            [this](const QString& source, qint64 frames, double fps, bool live) {
                m_source = source;
                m_fps = fps;
                m_error->hide();
                setWindowTitle(QStringLiteral("HistoScope - %1").arg(QFileInfo(source).fileName().isEmpty() ? source : QFileInfo(source).fileName()));
                m_frameLabel->setText(live ? tr("live") : tr("%1 frame(s)").arg(frames));
                if (!live)
                    addRecent(source);
            },
            Qt::QueuedConnection);
    connect(&m_media, &MediaController::playingChanged, this,
            [this](bool playing) { m_playAction->setText(playing ? tr("Pause") : tr("Play")); }, Qt::QueuedConnection);
    connect(&m_histograms, &HistogramController::resultReady, this, &MainWindow::showSnapshot, Qt::QueuedConnection);
    connect(&m_histograms, &HistogramController::comparisonReady, this, &MainWindow::showComparison, Qt::QueuedConnection);
    connect(&m_histograms, &HistogramController::backendChanged, this, [this](const QString& d) { m_backend->setText(d); },
            Qt::QueuedConnection);
    connect(m_imageView, &ImageCanvas::roiChanged, this, [this] { resubmit(); });
    connect(m_histogramView, &HistogramView::hovered, m_hover, &QLabel::setText);
    connect(m_settingsPanel, &SettingsPanel::settingsChanged, this, [this](const HistogramSettings& s) { setSettings(s); });
    resize(1400, 860);
}

MainWindow::~MainWindow() = default;

void MainWindow::buildMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open..."), QKeySequence::Open, this, [this] {
        const QString filter = tr("Images and video (%1);;NumPy arrays (*.npy);;All files (*)")
                                   .arg((ImageLoader::nameFilters() + VideoReader::nameFilters()).join(' '));
        const QString path = QFileDialog::getOpenFileName(this, tr("Open"), QString(), filter);
        if (!path.isEmpty())
            openPath(path);
    });
    file->addAction(tr("Open &Camera or Pipeline..."), this, [this] {
        bool ok = false;
        const QString source = QInputDialog::getText(this, tr("Live source"),
                                                     tr("Camera index, device path (/dev/video0) or GStreamer pipeline:"),
                                                     QLineEdit::Normal, QStringLiteral("0"), &ok);
        if (ok && !source.isEmpty())
            openLive(source);
    });
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    rebuildRecentMenu();
    file->addSeparator();
    file->addAction(tr("Export Histogram as &CSV..."), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export CSV"), QString(), tr("CSV (*.csv)"));
        if (!path.isEmpty() && m_snapshot)
            runInBackground([=, snapshot = m_snapshot, source = m_source, frame = exportedFrameIndex()] {
                return writeCsv(path, snapshot, source, frame);
            });
    });
    file->addAction(tr("Export Histogram as &JSON..."), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export JSON"), QString(), tr("JSON (*.json)"));
        if (!path.isEmpty() && m_snapshot)
            runInBackground([=, snapshot = m_snapshot, source = m_source, frame = exportedFrameIndex()] {
                return writeJson(path, snapshot, source, frame);
            });
    });
    file->addAction(tr("Export &Plot as PNG..."), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export plot"), QString(), tr("PNG (*.png)"));
        if (!path.isEmpty())
            runInBackground([path, image = m_histogramView->grab().toImage()] { return writeImage(path, image); });
    });
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* play = menuBar()->addMenu(tr("&Playback"));
    m_playAction = play->addAction(tr("Play"), QKeySequence(Qt::Key_Space), this, [this] {
        m_media.isPlaying() ? m_media.pause() : m_media.play();
    });
    play->addAction(tr("&Step"), QKeySequence(Qt::Key_Period), this, [this] { m_media.step(); });
    play->addAction(tr("&Rewind"), QKeySequence(Qt::Key_Home), this, [this] { m_media.seek(0); });

    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addAction(tr("&Fit Image"), this, [this] { m_imageView->fitToWindow(); });
    view->addAction(tr("&Clear Region"), this, [this] { m_imageView->setRoi(QRect()); });

    QMenu* tools = menuBar()->addMenu(tr("&Tools"));
    tools->addAction(tr("&Compare Strategies"), QKeySequence(Qt::CTRL | Qt::Key_K), this, &MainWindow::compareStrategies);
    tools->addAction(tr("&Equalize..."), QKeySequence(Qt::CTRL | Qt::Key_E), this, &MainWindow::equalize);
}

void MainWindow::openPath(const QString& path)
{
    m_media.open(path);
}

void MainWindow::openLive(const QString& source)
{
    m_media.openLive(source);
}

void MainWindow::setSettings(const HistogramSettings& settings)
{
    m_settings = settings;
    if (m_settingsPanel->settings() != settings)
        m_settingsPanel->setSettings(settings);
    m_histogramView->setLogCounts(settings.display.logCounts);
    m_histogramView->setCumulative(settings.display.cumulative);
    QSettings store;
    m_settings.save(store);
    resubmit();
}

std::optional<hs::Rect> MainWindow::roi() const
{
    const QRect r = m_imageView->roi();
    if (r.isEmpty())
        return std::nullopt;
    return hs::Rect{r.x(), r.y(), r.width(), r.height()};
}

void MainWindow::takeFrame()
{
    std::optional<MediaFrame> latest = m_media.takeLatest();
    if (!latest)
        return;
    m_frame = latest->frame;
    m_frameIndex = latest->index;
    m_imageView->setImage(frameImage(latest->preview));
    resubmit();
}

void MainWindow::resubmit()
{
    if (m_frame.isNull())
        return;
    m_histograms.submit(m_frame, m_settings, roi());
}

void MainWindow::showSnapshot(SnapshotPtr snapshot)
{
    if (snapshot->generation < m_shownGeneration)
        return;  // an older request finished after a newer one was shown
    m_shownGeneration = snapshot->generation;
    if (!snapshot->error.isEmpty()) {
        showError(snapshot->error);
        return;
    }
    m_snapshot = snapshot;
    m_histogramView->setDisplay(toDisplay(*snapshot));
    m_statistics->setContent(statisticsTable(*snapshot));
    m_timing->setContent(timingTable(*snapshot, m_histograms.backendDescription(), m_media.droppedFrames(), m_fps));
    m_frameLabel->setText(tr("frame %1  %2x%3 %4  dropped %5")
                              .arg(m_frameIndex)
                              .arg(snapshot->frame.width())
                              .arg(snapshot->frame.height())
                              .arg(QString::fromStdString(std::string(hs::sampleTypeName(snapshot->frame.type()))))
                              .arg(m_media.droppedFrames()));
    emit snapshotShown(snapshot->generation);
}

void MainWindow::compareStrategies()
{
    if (m_frame.isNull()) {
        showError(tr("Open an image first: strategies are compared on the current frame"));
        return;
    }
    m_histograms.compareStrategies(m_frame, m_settings, roi());
}

void MainWindow::showComparison(ComparisonPtr comparison)
{
    QVector<Bar> bars;
    for (const StrategyTiming& t : comparison->timings) {
        Bar bar;
        bar.label = QString::fromStdString(std::string(hs::strategyName(t.strategy)));
        bar.value = t.milliseconds;
        bar.note = !t.error.isEmpty() ? t.error
                   : t.exact          ? tr("exact")
                                      : tr("MISMATCH with the reference");
        if (t.strategy == hs::Strategy::Auto && t.error.isEmpty())
            bar.note += tr(", ran %1").arg(QString::fromStdString(std::string(hs::strategyName(t.ran))));
        bar.color = !t.error.isEmpty() || !t.exact ? QColor(200, 60, 60) : t.strategy == hs::Strategy::Cub ? QColor(118, 185, 0) : QColor(70, 130, 180);
        bars.append(bar);
    }
    m_comparisonChart->setBars(bars, QStringLiteral("ms"));
    if (auto* tabs = qobject_cast<QTabWidget*>(m_comparisonChart->parentWidget()->parentWidget()))
        tabs->setCurrentWidget(m_comparisonChart);
    emit comparisonShown();
}

void MainWindow::equalize()
{
    if (m_frame.isNull()) {
        showError(tr("Open an image first"));
        return;
    }
    auto* dialog = new EqualizeDialog(m_frame, m_settings.counting.useGpu, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
}

void MainWindow::showError(const QString& message)
{
    m_error->setText(message);
    m_error->show();
    statusBar()->showMessage(message, 10000);
    emit errorShown(message);
}

QString MainWindow::errorText() const { return m_error->isVisible() ? m_error->text() : QString(); }
QString MainWindow::backendText() const { return m_backend->text(); }

void MainWindow::runInBackground(std::function<QString()> job)
{
    auto* watcher = new QFutureWatcher<QString>(this);
    connect(watcher, &QFutureWatcher<QString>::finished, this, [this, watcher] {
        if (reportWrite(watcher->result()))
            statusBar()->showMessage(tr("Saved"), 4000);
        watcher->deleteLater();
    });
    watcher->setFuture(QtConcurrent::run(std::move(job)));
}

qint64 MainWindow::exportedFrameIndex() const { return m_frameIndex > 0 ? m_frameIndex : -1; }

bool MainWindow::reportWrite(const QString& error)
{
    if (!error.isEmpty())
        showError(error);
    return error.isEmpty();
}

bool MainWindow::exportCsv(const QString& path)
{
    return m_snapshot && reportWrite(writeCsv(path, m_snapshot, m_source, exportedFrameIndex()));
}

bool MainWindow::exportJson(const QString& path)
{
    return m_snapshot && reportWrite(writeJson(path, m_snapshot, m_source, exportedFrameIndex()));
}

bool MainWindow::exportPlot(const QString& path)
{
    return reportWrite(writeImage(path, m_histogramView->grab().toImage()));
}

void MainWindow::addRecent(const QString& path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    m_recent.removeAll(absolute);
    m_recent.prepend(absolute);
    while (m_recent.size() > 10)
        m_recent.removeLast();
    QSettings store;
    store.setValue("recentFiles", m_recent);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    for (const QString& path : m_recent)
        m_recentMenu->addAction(QFileInfo(path).fileName(), this, [this, path] { openPath(path); })->setToolTip(path);
    m_recentMenu->setEnabled(!m_recent.isEmpty());
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile())
        openPath(urls.first().toLocalFile());
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    m_media.close();
    QMainWindow::closeEvent(event);
}
