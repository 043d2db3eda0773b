// The desktop app: open (menu, drag and drop, recent files, command line), view with zoom, pan
// and a region of interest, live playback, equalization, strategy comparison and export.
// The window runs on the GUI thread and never waits: decoding (MediaController), counting
// (HistogramController), equalization (EqualizationService) and export writes run elsewhere
// and answer through signals. The window builds the docks and menus and wires its parts, each
// a class of its own: exports (HistogramExporter), the pinned reference (ReferenceComparison),
// seeks (SeekQueue), the timeline's pass (TimelineScan), frame counts and rates
// (FrameCounters), recent files (RecentFiles), its geometry (WindowGeometry) and the scopes
// (Scopes).
#pragma once

#include "app/core/EqualizationService.h"
#include "app/core/HistogramDistances.h"
#include "app/core/HistogramController.h"
#include "app/core/HistogramSettings.h"
#include "app/core/LiveCounters.h"
#include "app/core/MediaController.h"
#include "app/gui/FrameCounters.h"
#include "app/gui/GpuAvailability.h"
#include "app/gui/HistogramExporter.h"
#include "app/gui/RecentFiles.h"
#include "app/gui/ReferenceComparison.h"
#include "app/gui/SeekQueue.h"
#include "app/gui/WindowGeometry.h"

#include <QMainWindow>

class BarChart;
class HistogramPanel;
class HistogramView;
class ImageCanvas;
class QAction;
class QDockWidget;
class QTabWidget;
class QLabel;
class ComparePanel;
class ProbePanel;
class Scopes;
class SettingsPanel;
class TimelinePanel;
class TimelineScan;
class TablePanel;

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    // Asks once whether this process has a GPU (GpuAvailability::detect).
    explicit MainWindow(QWidget* parent = nullptr);
    // As a process with (or without) a GPU would: a GPU strategy saved elsewhere falls back to
    // `auto` with a notice, and the GPU's choices are not offered without one.
    explicit MainWindow(const GpuAvailability& gpu, QWidget* parent = nullptr);
    ~MainWindow() override;

    void openPath(const QString& path);
    void openLive(const QString& source);
    void compareStrategies();
    void equalize();
    // Each writes off the GUI thread and answers with exportFinished (the path gains the
    // format's extension when it has none). False, and nothing written, when nothing is open.
    bool exportCsv(const QString& path);
    bool exportJson(const QString& path);
    // The plot at `size` (the view's size when empty), axes and legend included.
    bool exportPlot(const QString& path, QSize size = {});
    void setSettings(const HistogramSettings& settings);

    // The place for scopes (waveform, parade, vectorscope, 2-D histograms): each panel becomes a
    // tab of the "Scopes" dock (object name "scopesDock"), which is shown and listed in the View
    // menu once it has one. A panel follows the frames through frameSubmitted.
    void addScopePanel(const QString& title, QWidget* panel);
    QDockWidget* scopesDock() const { return m_scopesDock; }
    QList<QDockWidget*> docks() const { return m_docks; }
    Scopes* scopes() const { return m_scopes; }

    // For tests and screenshots.
    HistogramView* histogramView() const { return m_histogramView; }
    HistogramPanel* histogramPanel() const { return m_histogramPanel; }
    ImageCanvas* imageView() const { return m_imageView; }
    TablePanel* statisticsPanel() const { return m_statistics; }
    TablePanel* timingPanel() const { return m_timing; }
    SettingsPanel* settingsPanel() const { return m_settingsPanel; }
    ProbePanel* probePanel() const { return m_probe; }
    TimelinePanel* timelinePanel() const { return m_timeline; }
    // Asks the source for `frame`; while a seek is decoding only the newest request waits. Past
    // the file's end, once known, the last frame is shown and the status line says so.
    void seekTo(qint64 frame);
    // The open file's length as known now: its header's estimate until reading or a pass over
    // it reached its end (frameCountKnown).
    qint64 frameCount() const { return m_frameCount; }
    bool frameCountKnown() const { return m_frameCountKnown; }
    void toggleScan();   // starts (or stops) the background pass over the open file
    // Compare: the histogram shown now becomes the reference, overlaid dashed and measured
    // against every later one (compareHist distances, off this thread); matching remaps the
    // current image to the reference's histogram (the equalization dialog, Match).
    void pinReference();
    void clearReference();
    void matchToReference();
    SnapshotPtr reference() const { return m_reference.reference(); }
    ComparePanel* comparePanel() const { return m_compare; }
    BarChart* comparisonChart() const { return m_comparisonChart; }
    // Both float over the top of the image: showing one never moves or resizes the image.
    QLabel* errorBanner() const { return m_error; }
    QLabel* noticeBanner() const { return m_notice; }
    QString errorText() const;
    QString backendText() const;
    SnapshotPtr lastSnapshot() const { return m_snapshot; }
    MediaController* media() { return &m_media; }
    HistogramController* histograms() { return &m_histograms; }
    EqualizationService* equalization() { return &m_equalization; }
    QStringList deviceNotices() const { return m_deviceNotices; }
    // A worker survived a GPU fault: the status line says so, and the notice strip keeps it.
    void showDeviceNotice(const QString& message);
    QList<QAction*> exportActions() const { return m_exportActions; }
    QStringList recentFiles() const { return m_recent->files(); }
    // The current source's rates and frame counts, as the Timing panel and status line show them.
    LiveCounters liveCounters() const { return m_counters.counters(); }

signals:
    // Each frame (or region change) the window sends to be counted, on the GUI thread: the
    // frame at native depth (pixels shared, read-only), the region (none: the whole frame) and
    // its index in the source.
    void frameSubmitted(const Frame& frame, std::optional<hs::Rect> roi, qint64 frameIndex);
    void snapshotShown(quint64 generation);
    void comparisonShown();
    void errorShown(const QString& message);
    // A worker survived a GPU fault: told in the status line and kept in the notice strip.
    void deviceNoticeShown(const QString& message);
    void exportFinished(const QString& path, const Error& error);
    void countersUpdated();   // the Timing panel and the status line were refreshed
    void scanFinished(const Error& error);   // the timeline's background pass ended
    void distancesShown(const HistogramDistances& distances);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    // What an error on the banner is about: it clears when that cause is gone.
    enum class ErrorCause { Media, Histogram, Tool, Export };

    QDockWidget* addDock(QWidget* widget, const QString& title, const QString& name, Qt::DockWidgetArea area);
    void buildMenus();
    void reportExport(const QString& path, const Error& error);
    qint64 exportedFrameIndex() const;
    void takeFrame();
    void updateCounters();
    void showDisplay();
    void restartTrends();
    void resubmit();
    void sourceOpened(const QString& source, qint64 frames, double fps, bool live, quint64 command);
    void lengthFound(qint64 frames);
    void reachedEnd();
    QString sourceName() const;
    QString lengthText() const;
    void showSnapshot(SnapshotPtr snapshot);
    void showComparison(ComparisonPtr comparison);
    void showError(ErrorCause cause, const QString& message);
    void clearError(ErrorCause cause);
    void updateActions();
    std::optional<hs::Rect> roi() const;

    GpuAvailability m_gpu;
    HistogramSettings m_settings;
    MediaController m_media;
    HistogramController m_histograms;
    EqualizationService m_equalization;
    HistogramExporter m_exporter;
    ReferenceComparison m_reference;
    SeekQueue m_seeks{&m_media};
    FrameCounters m_counters{&m_media, &m_histograms};
    WindowGeometry m_geometry{this};
    ImageCanvas* m_imageView = nullptr;
    HistogramPanel* m_histogramPanel = nullptr;
    HistogramView* m_histogramView = nullptr;
    SettingsPanel* m_settingsPanel = nullptr;
    ProbePanel* m_probe = nullptr;
    ComparePanel* m_compare = nullptr;
    QAction* m_pinAction = nullptr;
    QAction* m_clearReferenceAction = nullptr;
    QAction* m_matchAction = nullptr;
    TimelinePanel* m_timeline = nullptr;
    QDockWidget* m_timelineDock = nullptr;
    TimelineScan* m_scan = nullptr;
    TablePanel* m_statistics = nullptr;
    TablePanel* m_timing = nullptr;
    BarChart* m_comparisonChart = nullptr;
    QList<QDockWidget*> m_docks;
    QDockWidget* m_scopesDock = nullptr;
    QTabWidget* m_scopeTabs = nullptr;
    Scopes* m_scopes = nullptr;
    RecentFiles* m_recent = nullptr;
    QLabel* m_error = nullptr;
    QLabel* m_notice = nullptr;   // source warnings, settings that could not apply, samples outside the range
    QStringList m_sourceWarnings;    // the open source's (a truncated file filled in by its decoder)
    QStringList m_pendingWarnings;   // a source's warnings arrive before it is reported open
    QStringList m_snapshotNotices;   // the shown snapshot's
    QStringList m_deviceNotices;     // GPU faults survived, for as long as the window lives
    QStringList m_settingNotices;    // a saved choice that cannot apply here, until the strategy is changed
    void refreshNotice();
    QString m_errorMessage;
    ErrorCause m_errorCause = ErrorCause::Media;
    QLabel* m_backend = nullptr;
    QLabel* m_frameLabel = nullptr;
    QLabel* m_hover = nullptr;
    QAction* m_playAction = nullptr;
    QList<QAction*> m_exportActions;
    Frame m_frame;
    Frame m_preview;
    quint64 m_frameSource = 0;   // the open command the current frame came from
    qint64 m_frameIndex = -1;
    QString m_source;
    bool m_multiFrame = false;   // a video, a stack or a live source: records carry the frame
    bool m_live = false;
    qint64 m_declaredFrames = 0;     // the open file's frame count as its header declares it
    qint64 m_frameCount = 0;         // as known now: the header's, then the real one
    bool m_frameCountKnown = false;  // the end was reached: m_frameCount is the real length
    quint64 m_frameSerial = 0;   // the current frame's (FrameCounters::nextSerial)
    SnapshotPtr m_snapshot;
};
