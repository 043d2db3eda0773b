#include "app/gui/MainWindow.h"

#include "widgets/BarChart.h"
#include "app/gui/ComparePanel.h"
#include "app/gui/EqualizeDialog.h"
#include "app/gui/FrameImage.h"
#include "app/core/PixelProbe.h"
#include "widgets/HistogramPanel.h"
#include "widgets/HistogramView.h"
#include "io/ImageLoader.h"
#include "widgets/ImageCanvas.h"
#include "app/gui/ProbePanel.h"
#include "app/gui/ScopePanel.h"
#include "app/gui/Scopes.h"
#include "app/gui/SettingsPanel.h"
#include "app/gui/TimelinePanel.h"
#include "app/gui/TimelineScan.h"
#include "app/gui/SnapshotPresenter.h"
#include "widgets/TablePanel.h"
#include "io/VideoReader.h"

#include <QAction>
#include <QCloseEvent>
#include <QShowEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMimeData>
#include <QSettings>
#include <QSizePolicy>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

MainWindow::MainWindow(QWidget* parent) : MainWindow(GpuAvailability::detect(), parent) {}

MainWindow::MainWindow(const GpuAvailability& gpu, QWidget* parent) : QMainWindow(parent), m_gpu(gpu)
{
    setWindowTitle(QStringLiteral("HistoScope"));
    setAcceptDrops(true);
    QSettings store;
    QStringList settingNotices = m_settings.load(store);
    // A GPU strategy saved on a machine with a device: here it would count nothing at all.
    const QString fallback = fallBackWithoutGpu(m_settings.counting, m_gpu);
    if (!fallback.isEmpty()) {
        settingNotices << fallback;
        m_settingNotices << fallback;
    }

    m_imageView = new ImageCanvas;
    m_histogramPanel = new HistogramPanel;   // the plot or the table of the bins, by mode
    m_histogramView = m_histogramPanel->view();
    m_settingsPanel = new SettingsPanel;
    m_probe = new ProbePanel;
    m_settingsPanel->setGpuAvailability(m_gpu);
    m_settingsPanel->setSettings(m_settings);
    m_statistics = new TablePanel;
    m_timing = new TablePanel;
    // Its values are short but for the backend's description (why it counts on the CPU): the
    // one column takes the panel's width and a long value wraps onto more lines, never cut.
    m_timing->table()->setWordWrap(true);
    m_timing->setCellToolTips(true);
    m_timing->table()->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_timing->table()->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_comparisonChart = new BarChart;
    m_compare = new ComparePanel;
    // One line, never taller: the full message is in the tooltip and the status bar. It may
    // not widen the window either (the text is clipped instead).
    m_error = new QLabel;
    m_error->setObjectName("errorBanner");
    m_error->setWordWrap(false);
    m_error->setTextFormat(Qt::PlainText);
    m_error->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    m_error->setStyleSheet("QLabel { background: #7a1f1f; color: white; padding: 2px 6px; }");
    m_error->hide();
    m_notice = new QLabel;
    m_notice->setObjectName("noticeBanner");
    m_notice->setTextFormat(Qt::PlainText);
    m_notice->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    m_notice->setStyleSheet("QLabel { background: #6b5a12; color: white; padding: 2px 6px; }");
    m_notice->hide();

    // The image is the centre; everything else is a dock that can be moved, closed, and
    // reopened from the View menu, and whose layout is saved with the window. The banners float
    // over the top of the image, in the same cell: one appearing never moves or rescales it.
    auto* central = new QWidget;
    auto* layout = new QGridLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    auto* banners = new QWidget;
    banners->setObjectName("banners");
    auto* stack = new QVBoxLayout(banners);
    stack->setContentsMargins(0, 0, 0, 0);
    stack->setSpacing(0);
    stack->addWidget(m_error);
    stack->addWidget(m_notice);
    layout->addWidget(m_imageView, 0, 0);
    layout->addWidget(banners, 0, 0, Qt::AlignTop);
    banners->raise();
    setCentralWidget(central);
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks | QMainWindow::AllowNestedDocks);
    setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
    QDockWidget* settingsDock = addDock(m_settingsPanel, tr("Settings"), QStringLiteral("settingsDock"), Qt::LeftDockWidgetArea);
    QDockWidget* probeDock = addDock(m_probe, tr("Probe"), QStringLiteral("probeDock"), Qt::LeftDockWidgetArea);
    splitDockWidget(settingsDock, probeDock, Qt::Vertical);
    QDockWidget* histogramDock = addDock(m_histogramPanel, tr("Histogram"), QStringLiteral("histogramDock"), Qt::RightDockWidgetArea);
    QDockWidget* statisticsDock = addDock(m_statistics, tr("Statistics"), QStringLiteral("statisticsDock"), Qt::RightDockWidgetArea);
    QDockWidget* timingDock = addDock(m_timing, tr("Timing"), QStringLiteral("timingDock"), Qt::RightDockWidgetArea);
    QDockWidget* strategiesDock = addDock(m_comparisonChart, tr("Strategies"), QStringLiteral("strategiesDock"), Qt::RightDockWidgetArea);
    QDockWidget* compareDock = addDock(m_compare, tr("Compare"), QStringLiteral("compareDock"), Qt::RightDockWidgetArea);
    splitDockWidget(histogramDock, statisticsDock, Qt::Vertical);
    tabifyDockWidget(statisticsDock, timingDock);
    tabifyDockWidget(timingDock, strategiesDock);
    tabifyDockWidget(strategiesDock, compareDock);
    statisticsDock->raise();
    m_timeline = new TimelinePanel;
    m_timelineDock = addDock(m_timeline, tr("Timeline"), QStringLiteral("timelineDock"), Qt::BottomDockWidgetArea);
    m_timelineDock->hide();   // shown when a video or a live source opens
    m_scan = new TimelineScan(m_timeline, this);
    // Scopes (waveform, parade, vectorscope) are added as tabs of their own dock: addScopePanel.
    m_scopeTabs = new QTabWidget;
    m_scopeTabs->setDocumentMode(true);
    m_scopesDock = addDock(m_scopeTabs, tr("Scopes"), QStringLiteral("scopesDock"), Qt::RightDockWidgetArea);
    // A tab beside the statistics, not behind the histogram: a colourist watches the histogram
    // and a scope together, as in Resolve's scope panel.
    tabifyDockWidget(compareDock, m_scopesDock);
    m_scopesDock->toggleViewAction()->setEnabled(false);
    // The window's scopes (waveform, parade, vectorscope, 2-D histogram): tabs of that dock,
    // behind the statistics; each is counted only while it shows (Scopes).
    m_scopes = new Scopes(m_settings, this);
    for (ScopePanel* panel : m_scopes->panels())
        addScopePanel(panel->title(), panel);
    m_scopeTabs->setCurrentIndex(m_settings.scopes.tab);
    connect(m_scopeTabs, &QTabWidget::currentChanged, m_scopes, &Scopes::setCurrentTab);
    histogramDock->raise();
    statisticsDock->raise();
    resizeDocks({settingsDock, histogramDock}, {240, 470}, Qt::Horizontal);
    resizeDocks({histogramDock, statisticsDock}, {330, 300}, Qt::Vertical);
    resizeDocks({m_timelineDock}, {130}, Qt::Vertical);

    m_backend = new QLabel;
    m_frameLabel = new QLabel;
    m_hover = new QLabel;
    statusBar()->addWidget(m_backend);
    statusBar()->addWidget(m_frameLabel);
    statusBar()->addPermanentWidget(m_hover);
    if (!settingNotices.isEmpty()) {
        // Once the window is shown: a message shown before would not hide the status line's
        // labels, and be drawn over them.
        QTimer::singleShot(0, this, [this, text = settingNotices.join(QStringLiteral("; "))] { statusBar()->showMessage(text, 15000); });
    }
    m_histogramView->setLogCounts(m_settings.display.logCounts);
    m_histogramView->setCumulative(m_settings.display.cumulative);
    m_histogramView->setHiddenSeries(m_settings.display.hiddenSeries);
    m_histogramPanel->setMode(HistogramPanel::Mode(m_settings.display.mode));
    buildMenus();

    // The controllers live on this thread and re-emit their workers' answers here, in order.
    connect(&m_media, &MediaController::frameAvailable, this, &MainWindow::takeFrame);
    connect(&m_media, &MediaController::failed, this,
            [this](const Error& error) { showError(ErrorCause::Media, error.message()); });
    connect(&m_media, &MediaController::endOfStream, this, &MainWindow::reachedEnd);
    connect(&m_media, &MediaController::lengthFound, this, &MainWindow::lengthFound);
    connect(&m_media, &MediaController::seekPastEnd, this, [this](qint64 requested, qint64 frames) {
        statusBar()->showMessage(tr("Frame %1 is past the end of %2: it has %3 frame(s), 0..%4; the last is shown")
                                     .arg(requested).arg(sourceName()).arg(frames).arg(frames - 1),
                                 10000);
    });
    connect(&m_media, &MediaController::warning, this, [this](const QString& w) {
        // Kept on screen while this file is open, not only as a passing status message.
        m_pendingWarnings << w;
        m_sourceWarnings << w;
        refreshNotice();
    });
    connect(&m_media, &MediaController::opened, this, &MainWindow::sourceOpened);
    connect(&m_media, &MediaController::playingChanged, this,
            [this](bool playing) { m_playAction->setText(playing ? tr("Pause") : tr("Play")); });
    connect(&m_exporter, &HistogramExporter::finished, this, &MainWindow::reportExport);
    connect(&m_histograms, &HistogramController::resultReady, this, &MainWindow::showSnapshot);
    connect(&m_histograms, &HistogramController::comparisonReady, this, &MainWindow::showComparison);
    connect(&m_histograms, &HistogramController::backendChanged, this, [this](const QString& d) { m_backend->setText(d); });
    connect(&m_histograms, &HistogramController::deviceNotice, this, &MainWindow::showDeviceNotice);
    connect(&m_equalization, &EqualizationService::deviceNotice, this, &MainWindow::showDeviceNotice);
    connect(m_imageView, &ImageCanvas::roiChanged, this, [this](const QRect& r) {
        m_probe->setRoi(r);
        restartTrends();   // the statistics over time were of another region
        resubmit();
    });
    connect(m_compare, &ComparePanel::pinRequested, this, &MainWindow::pinReference);
    connect(m_compare, &ComparePanel::clearRequested, this, &MainWindow::clearReference);
    connect(m_compare, &ComparePanel::matchRequested, this, &MainWindow::matchToReference);
    connect(&m_reference, &ReferenceComparison::distancesReady, this, [this](const HistogramDistances& d) {
        m_compare->showDistances(d);
        emit distancesShown(d);
    });
    connect(m_timeline, &TimelinePanel::seekRequested, this, &MainWindow::seekTo);
    connect(m_timeline, &TimelinePanel::playToggled, this, [this] { m_media.isPlaying() ? m_media.pause() : m_media.play(); });
    connect(m_timeline, &TimelinePanel::scanRequested, this, &MainWindow::toggleScan);
    connect(m_scan, &TimelineScan::lengthFound, this, &MainWindow::lengthFound);
    connect(m_scan, &TimelineScan::finished, this, &MainWindow::scanFinished);
    // The probe reads at most 5 × 5 pixels of the frame this thread already holds: cheap, never waits.
    m_probe->setLuma(m_settings.display.luma);
    connect(m_imageView, &ImageCanvas::hoveredPixel, this, [this](const QPoint& p) { m_probe->probeAt(m_frame, p); });
    connect(m_imageView, &ImageCanvas::hoverLeft, m_probe, &ProbePanel::clearProbe);
    connect(m_probe, &ProbePanel::roiEdited, m_imageView, &ImageCanvas::setRoi);
    connect(m_histogramView, &HistogramView::hovered, m_hover, &QLabel::setText);
    connect(m_histogramView, &HistogramView::hiddenSeriesChanged, this, [this](const QStringList& hidden) {
        // Display only: nothing is counted again.
        m_settings.display.hiddenSeries = hidden;
        m_settingsPanel->setSettings(m_settings);
        QSettings store;
        m_settings.save(store);
    });
    static_assert(int(HistogramPanel::Mode::Separate) == int(HistogramMode::Separate) && int(HistogramPanel::Mode::Table) == int(HistogramMode::Table));
    connect(m_histogramPanel, &HistogramPanel::modeChanged, this, [this](HistogramPanel::Mode mode) {
        m_settings.display.mode = HistogramMode(mode);   // display only, as the legend
        QSettings store;
        m_settings.save(store);
    });
    // The scopes first: the frame the window then submits again is counted with the new settings.
    connect(m_settingsPanel, &SettingsPanel::settingsChanged, m_scopes, &Scopes::setSettings);
    connect(m_settingsPanel, &SettingsPanel::settingsChanged, this, [this](const HistogramSettings& s) { setSettings(s); });
    connect(m_scopesDock, &QDockWidget::visibilityChanged, m_scopes, &Scopes::setInFront);
    connect(this, &MainWindow::frameSubmitted, m_scopes, &Scopes::submit);
    connect(&m_media, &MediaController::playingChanged, m_scopes, &Scopes::setPlaying);
    connect(m_scopes, &Scopes::deviceNotice, this, &MainWindow::showDeviceNotice);
    connect(m_scopes, &Scopes::optionsChanged, this, [this](const ScopeOptions& options) {
        m_settings.scopes = options;   // the scopes' own options: saved with the settings
        QSettings store;
        m_settings.save(store);
    });
    connect(&m_counters, &FrameCounters::refreshDue, this, &MainWindow::updateCounters);
    connect(&m_media, &MediaController::playingChanged, this, [this](bool playing) {
        m_timeline->setPlaying(playing);
        m_counters.setPlaying(playing);
        updateCounters();
    });
    updateActions();
    refreshNotice();   // a saved setting that cannot apply here
    m_geometry.restore();
}

QDockWidget* MainWindow::addDock(QWidget* widget, const QString& title, const QString& name, Qt::DockWidgetArea area)
{
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(name);
    dock->setWidget(widget);
    addDockWidget(area, dock);
    m_docks.append(dock);
    return dock;
}

void MainWindow::addScopePanel(const QString& title, QWidget* panel)
{
    m_scopeTabs->addTab(panel, title);
    m_scopesDock->toggleViewAction()->setEnabled(true);
    m_scopesDock->show();
    m_scopesDock->raise();
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
    m_recent = new RecentFiles(file->addMenu(tr("Open &Recent")), this);
    connect(m_recent, &RecentFiles::openRequested, this, &MainWindow::openPath);
    file->addSeparator();
    m_exportActions << file->addAction(tr("Export Histogram as &CSV..."), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export CSV"), QString(), tr("CSV (*.csv)"));
        if (!path.isEmpty())
            exportCsv(path);
    });
    m_exportActions << file->addAction(tr("Export Histogram as &JSON..."), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export JSON"), QString(), tr("JSON (*.json)"));
        if (!path.isEmpty())
            exportJson(path);
    });
    m_exportActions << file->addAction(tr("Export &Plot as PNG..."), this, [this] {
        const QSize size = HistogramExporter::askPlotSize(this);
        if (size.isEmpty())
            return;
        const QString path = QFileDialog::getSaveFileName(this, tr("Export plot"), QString(), tr("PNG (*.png)"));
        if (!path.isEmpty())
            exportPlot(path, size);
    });
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* play = menuBar()->addMenu(tr("&Playback"));
    m_playAction = play->addAction(tr("Play"), QKeySequence(Qt::Key_Space), this, [this] {
        m_media.isPlaying() ? m_media.pause() : m_media.play();
    });
    play->addAction(tr("&Step"), QKeySequence(Qt::Key_Period), this, [this] { m_media.step(); });
    play->addAction(tr("&Rewind"), QKeySequence(Qt::Key_Home), this, [this] { seekTo(0); });

    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addAction(tr("&Fit Image"), this, [this] { m_imageView->fitToWindow(); });
    view->addAction(tr("&Clear Region"), this, [this] { m_imageView->setRoi(QRect()); });
    view->addSeparator();
    // Every dock, closed or not, comes back from here.
    for (QDockWidget* dock : m_docks)
        view->addAction(dock->toggleViewAction());
    view->addSeparator();
    view->addAction(tr("&Reset Layout"), this, [this] { m_geometry.resetLayout(); });

    QMenu* tools = menuBar()->addMenu(tr("&Tools"));
    tools->addAction(tr("&Compare Strategies"), QKeySequence(Qt::CTRL | Qt::Key_K), this, &MainWindow::compareStrategies);
    tools->addAction(tr("&Equalize..."), QKeySequence(Qt::CTRL | Qt::Key_E), this, &MainWindow::equalize);
    tools->addSeparator();
    m_pinAction = tools->addAction(tr("&Pin as Reference"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P), this, &MainWindow::pinReference);
    m_clearReferenceAction = tools->addAction(tr("C&lear Reference"), this, &MainWindow::clearReference);
    m_matchAction = tools->addAction(tr("&Match to Reference..."), this, &MainWindow::matchToReference);
}

void MainWindow::updateActions()
{
    for (QAction* action : m_exportActions)
        action->setEnabled(m_snapshot != nullptr);
    m_pinAction->setEnabled(m_snapshot != nullptr);
    m_clearReferenceAction->setEnabled(m_reference.reference() != nullptr);
    m_matchAction->setEnabled(m_reference.reference() != nullptr && !m_frame.isNull());
    m_compare->setCanPin(m_snapshot != nullptr);
}

void MainWindow::openPath(const QString& path)
{
    m_media.open(path);
}

void MainWindow::openLive(const QString& source)
{
    m_media.openLive(source);
}

void MainWindow::showDeviceNotice(const QString& message)
{
    if (!m_deviceNotices.contains(message))
        m_deviceNotices << message;
    refreshNotice();
    statusBar()->showMessage(message, 30000);
    emit deviceNoticeShown(message);
}

void MainWindow::refreshNotice()
{
    QStringList all = m_settingNotices + m_deviceNotices + m_sourceWarnings;
    for (const QString& n : m_snapshotNotices)
        if (!m_deviceNotices.contains(n))   // a snapshot counted across the fault carries it too
            all << n;
    m_notice->setVisible(!all.isEmpty());
    m_notice->setText(all.join(QStringLiteral("; ")));
    m_notice->setToolTip(all.join('\n'));
}

void MainWindow::sourceOpened(const QString& source, qint64 frames, double fps, bool live, quint64 command)
{
    // A new source: whatever is still being counted for the previous one is not shown.
    m_histograms.invalidate();
    m_scopes->invalidate();
    m_sourceWarnings = std::exchange(m_pendingWarnings, {});
    refreshNotice();
    m_source = source;
    m_multiFrame = live || frames > 1;
    m_live = live;
    m_declaredFrames = live ? -1 : frames;
    m_frameCount = m_declaredFrames;
    m_frameCountKnown = false;
    m_counters.reset(fps, live);
    m_snapshot.reset();
    m_reference.setCurrent({});
    if (m_frameSource == command) {
        resubmit();   // its first frame was taken before this signal came: count it again
    } else {
        m_frame = {};
        m_preview = {};
        m_frameIndex = -1;
    }
    updateActions();
    clearError(ErrorCause::Media);
    clearError(ErrorCause::Histogram);
    clearError(ErrorCause::Tool);
    clearError(ErrorCause::Export);
    const QString name = QFileInfo(source).fileName().isEmpty() ? source : QFileInfo(source).fileName();
    setWindowTitle(QStringLiteral("HistoScope - %1").arg(name));
    m_frameLabel->setText(live ? tr("live") : tr("%1 frame(s)").arg(frames));
    m_scan->cancel();
    m_seeks.dropWaiting();
    m_timeline->setSource(live ? -1 : frames, fps, live);
    m_timelineDock->setVisible(m_multiFrame);
    if (!live)
        m_recent->add(source);
}

QString MainWindow::sourceName() const
{
    const QString name = QFileInfo(m_source).fileName();
    return name.isEmpty() ? m_source : name;
}

// "68 frames (its header declares 444)", as the end and a seek past it say.
QString MainWindow::lengthText() const
{
    QString text = tr("%1 frame(s)").arg(m_frameCount);
    if (m_frameCountKnown && m_declaredFrames > 0 && m_declaredFrames != m_frameCount)
        text += tr(" (its header declares %1)").arg(m_declaredFrames);
    return text;
}

// The real end of the open file, from the decoder or a pass over the file: the timeline, its
// counter and the seek range follow it.
void MainWindow::lengthFound(qint64 frames)
{
    if (m_live || frames <= 0 || (m_frameCountKnown && frames == m_frameCount))
        return;
    m_frameCount = frames;
    m_frameCountKnown = true;
    m_timeline->setFrameCount(frames);
    if (m_declaredFrames != frames)
        statusBar()->showMessage(tr("%1 has %2").arg(sourceName(), lengthText()), 10000);
}

void MainWindow::reachedEnd()
{
    updateCounters();
    if (!m_multiFrame || m_live)
        return;
    m_timeline->setAtEnd(true);
    if (m_deviceNotices.contains(statusBar()->currentMessage()))
        return;   // a GPU fault survived outranks it (the timeline's counter says "end")
    statusBar()->showMessage(tr("End of %1: frame %2 is the last of its %3. Play starts again from the first")
                                 .arg(sourceName())
                                 .arg(m_frameCount - 1)
                                 .arg(lengthText()),
                             15000);
}

void MainWindow::setSettings(const HistogramSettings& settings)
{
    if (settings.counting != m_settings.counting || settings.display.luma != m_settings.display.luma)
        restartTrends();   // counted another way: the statistics over time start again
    if (settings.counting.strategy != m_settings.counting.strategy && !m_settingNotices.isEmpty()) {
        m_settingNotices.clear();   // the user chose a strategy here: the saved one's notice is done
        refreshNotice();
    }
    m_settings = settings;
    m_settings.scopes = m_scopes->options();   // kept by the scope panels, not the settings panel
    if (m_settingsPanel->settings() != settings)
        m_settingsPanel->setSettings(settings);
    m_histogramView->setLogCounts(settings.display.logCounts);
    m_histogramView->setCumulative(settings.display.cumulative);
    m_histogramView->setHiddenSeries(settings.display.hiddenSeries);
    m_probe->setLuma(settings.display.luma);
    m_histogramPanel->setMode(HistogramPanel::Mode(settings.display.mode));
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
    m_preview = latest->preview;
    m_frameSource = latest->command;
    m_frameIndex = latest->index;
    m_frameSerial = m_counters.nextSerial();
    // Frames come in order with the end: one other than the last means it is no longer there (a
    // snapshot still being counted for an earlier frame does not).
    if (m_timeline->isAtEnd() && latest->index != m_frameCount - 1)
        m_timeline->setAtEnd(false);
    m_settingsPanel->setDataKind(rangeKindOf(m_frame.type()), ValueRange{m_frame.nominalLo(), m_frame.nominalHi()});
    m_settingsPanel->setImageChannels(m_frame.channels());
    {
        // A new size clears the region (roiChanged); the frame is submitted once, below.
        const QSignalBlocker quiet(m_imageView);
        m_imageView->setImage(frameImage(latest->preview));
    }
    m_probe->setFrameSize(QSize(int(m_frame.width()), int(m_frame.height())));
    m_probe->setRoi(m_imageView->roi());
    resubmit();
}

void MainWindow::resubmit()
{
    if (m_frame.isNull())
        return;
    const std::optional<hs::Rect> region = roi();
    m_histograms.submit(m_frame, m_settings, region, m_frameIndex, m_frameSerial);
    emit frameSubmitted(m_frame, region, m_frameIndex);
}

void MainWindow::showSnapshot(SnapshotPtr snapshot)
{
    // The controller passes on only snapshots newer than the last one and of the current source.
    m_snapshotNotices = snapshot->notices;
    refreshNotice();
    // A frame is shown once, with its counts or with why it could not be counted.
    m_counters.frameShown(snapshot->frameSerial);
    if (snapshot->error.isError()) {
        // Nothing was counted for these settings (no channel selected): show no stale histogram.
        if (snapshot->error.kind == ErrorKind::InvalidInput) {
            m_histogramView->setDisplay({});
            m_statistics->setContent({});
        }
        showError(ErrorCause::Histogram, snapshot->error.message());
        return;
    }
    clearError(ErrorCause::Histogram);
    m_snapshot = snapshot;
    updateActions();
    showDisplay();
    m_statistics->setContent(statisticsTable(*snapshot));
    m_reference.setCurrent(snapshot);
    if (m_multiFrame) {
        const HistogramDisplay& d = m_histogramView->display();
        m_timeline->setMeanAxis(frameTrendMeanName(*snapshot), d.lo, d.integerValues ? d.hi - 1 : d.hi);
        if (const auto trend = frameTrendOf(*snapshot))
            m_timeline->addTrends({*trend});
        m_timeline->setCurrentFrame(snapshot->frameIndex);
    }
    updateCounters();
    emit snapshotShown(snapshot->generation);
}

void MainWindow::showDisplay()
{
    if (!m_snapshot)
        return;
    HistogramDisplay display = toDisplay(*m_snapshot);
    if (const SnapshotPtr reference = m_reference.reference())
        addReference(display, *reference, tr("reference: %1").arg(m_reference.name()));
    m_histogramView->setDisplay(display);
}

void MainWindow::pinReference()
{
    if (!m_snapshot)
        return;
    const QString name = QFileInfo(m_source).fileName().isEmpty() ? m_source : QFileInfo(m_source).fileName();
    m_reference.pin(m_snapshot, m_multiFrame ? tr("%1, frame %2").arg(name).arg(m_snapshot->frameIndex) : name);
    m_compare->setReference(m_reference.description());
    if (auto* dock = qobject_cast<QDockWidget*>(m_compare->parentWidget())) {
        dock->show();
        dock->raise();
    }
    updateActions();
    showDisplay();
}

void MainWindow::clearReference()
{
    m_reference.clear();
    m_compare->setReference({});
    updateActions();
    showDisplay();
}

void MainWindow::matchToReference()
{
    const SnapshotPtr reference = m_reference.reference();
    if (!reference || m_frame.isNull())
        return;
    auto* dialog = new EqualizeDialog(m_frame, m_source, m_settings.counting.useGpu, &m_equalization, m_preview, roi(),
                                      reference->frame, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setMethod(EqualizeMethod::Match);
    dialog->show();
}

void MainWindow::seekTo(qint64 frame)
{
    if (m_frameCountKnown && frame >= m_frameCount) {
        statusBar()->showMessage(tr("Frame %1 is past the end of %2: it has %3; the last is shown")
                                     .arg(frame).arg(sourceName(), lengthText()),
                                 10000);
        frame = m_frameCount - 1;
    }
    m_seeks.seekTo(frame);
}

void MainWindow::toggleScan()
{
    if (m_scan->isRunning())
        m_scan->stop();
    else if (!m_source.isEmpty() && !m_live)
        m_scan->start(m_source, m_settings, roi());
}

void MainWindow::restartTrends()
{
    const bool scanning = m_scan->isRunning();
    m_scan->cancel();
    m_timeline->clearTrends();
    if (scanning)
        toggleScan();   // scan again with the new region or settings
}

void MainWindow::updateCounters()
{
    const LiveCounters c = m_counters.sample();
    if (!m_snapshot)
        return;
    m_timing->setContent(timingTable(*m_snapshot, m_snapshot->backend, c));
    m_frameLabel->setText(m_counters.statusText(*m_snapshot, c, m_multiFrame));
    emit countersUpdated();
}

void MainWindow::compareStrategies()
{
    if (m_frame.isNull()) {
        showError(ErrorCause::Tool, tr("Open an image first: strategies are compared on the current frame"));
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
        bar.note = t.error.isError() ? t.error.message()
                   : t.exact         ? tr("exact")
                                     : tr("MISMATCH with the reference");
        if (t.strategy == hs::Strategy::Auto && !t.error.isError())
            bar.note += tr(", ran %1").arg(QString::fromStdString(std::string(hs::strategyName(t.ran))));
        bar.color = t.error.isError() || !t.exact ? QColor(200, 60, 60)
                    : t.strategy == hs::Strategy::Cub ? QColor(118, 185, 0)
                                                      : QColor(70, 130, 180);
        bars.append(bar);
    }
    m_comparisonChart->setBars(bars, QStringLiteral("ms"));
    // What the chart leaves out, and why: the GPU strategies are not timed on a CPU engine.
    QStringList skipped;
    for (hs::Strategy s : hs::gpuStrategies())
        if (std::none_of(comparison->timings.begin(), comparison->timings.end(),
                         [s](const StrategyTiming& t) { return t.strategy == s; }))
            skipped << strategyDisplayName(s);
    const QString why = !m_gpu.present                 ? m_gpu.reason
                        : !m_settings.counting.useGpu ? tr("\"Use the GPU\" is off")
                                                      : tr("the engine counts on the CPU: %1").arg(comparison->backend);
    m_comparisonChart->setFootnote(skipped.isEmpty() ? QString()
                                                     : tr("Not compared: %1 (%2 GPU strategies). They need a CUDA GPU, and %3.")
                                                           .arg(skipped.join(QStringLiteral(", ")))
                                                           .arg(skipped.size())
                                                           .arg(why));
    if (comparison->error.isError())
        showError(ErrorCause::Tool, comparison->error.message());
    if (auto* dock = qobject_cast<QDockWidget*>(m_comparisonChart->parentWidget())) {
        dock->show();
        dock->raise();
    }
    emit comparisonShown();
}

void MainWindow::equalize()
{
    if (m_frame.isNull()) {
        showError(ErrorCause::Tool, tr("Open an image first"));
        return;
    }
    const SnapshotPtr reference = m_reference.reference();
    auto* dialog = new EqualizeDialog(m_frame, m_source, m_settings.counting.useGpu, &m_equalization, m_preview, roi(),
                                      reference ? reference->frame : Frame(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
}

void MainWindow::showError(ErrorCause cause, const QString& message)
{
    m_errorMessage = message;
    m_errorCause = cause;
    m_error->setText(message.section('\n', 0, 0));
    m_error->setToolTip(message);
    m_error->show();
    statusBar()->showMessage(message, 10000);
    emit errorShown(message);
}

void MainWindow::clearError(ErrorCause cause)
{
    if (m_error->isHidden() || m_errorCause != cause)
        return;
    m_error->hide();
    m_errorMessage.clear();
    statusBar()->clearMessage();
}

QString MainWindow::errorText() const { return m_error->isHidden() ? QString() : m_errorMessage; }
QString MainWindow::backendText() const { return m_backend->text(); }

void MainWindow::reportExport(const QString& path, const Error& error)
{
    if (error.isError()) {
        showError(ErrorCause::Export, error.message());
    } else {
        clearError(ErrorCause::Export);
        statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
    }
    emit exportFinished(path, error);
}

qint64 MainWindow::exportedFrameIndex() const
{
    return m_snapshot && m_multiFrame ? m_snapshot->frameIndex : -1;
}

bool MainWindow::exportCsv(const QString& path)
{
    if (!m_snapshot)
        return false;
    m_exporter.exportCsv(path, m_snapshot, m_source, exportedFrameIndex());
    return true;
}

bool MainWindow::exportJson(const QString& path)
{
    if (!m_snapshot)
        return false;
    m_exporter.exportJson(path, m_snapshot, m_source, exportedFrameIndex());
    return true;
}

bool MainWindow::exportPlot(const QString& path, QSize size)
{
    if (!m_snapshot)
        return false;
    m_exporter.exportPlot(path, m_histogramView, size, m_snapshot, m_source, exportedFrameIndex());
    return true;
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

void MainWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    m_geometry.shown();
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    m_geometry.save();
    m_media.close();
    QMainWindow::closeEvent(event);
}
