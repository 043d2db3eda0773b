// The desktop app: open (menu, drag and drop, recent files, command line), view with zoom, pan
// and a region of interest, live playback, equalization, strategy comparison and export.
#pragma once

#include "app/core/HistogramController.h"
#include "app/core/HistogramSettings.h"
#include "app/core/MediaController.h"

#include <QMainWindow>

#include <functional>

class BarChart;
class HistogramView;
class ImageCanvas;
class QLabel;
class QMenu;
class SettingsPanel;
class TablePanel;

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    void openPath(const QString& path);
    void openLive(const QString& source);
    void compareStrategies();
    void equalize();
    bool exportCsv(const QString& path);
    bool exportJson(const QString& path);
    bool exportPlot(const QString& path);
    void setSettings(const HistogramSettings& settings);

    // For tests and screenshots.
    HistogramView* histogramView() const { return m_histogramView; }
    ImageCanvas* imageView() const { return m_imageView; }
    TablePanel* statisticsPanel() const { return m_statistics; }
    TablePanel* timingPanel() const { return m_timing; }
    SettingsPanel* settingsPanel() const { return m_settingsPanel; }
    BarChart* comparisonChart() const { return m_comparisonChart; }
    QString errorText() const;
    QString backendText() const;
    SnapshotPtr lastSnapshot() const { return m_snapshot; }
    MediaController* media() { return &m_media; }
    HistogramController* histograms() { return &m_histograms; }
    QStringList recentFiles() const { return m_recent; }

signals:
    void snapshotShown(quint64 generation);
    void comparisonShown();
    void errorShown(const QString& message);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void closeEvent(QCloseEvent* event) override;

private:
    void buildMenus();
    // Runs file writing off the GUI thread; a non-empty result is an error message to show.
    void runInBackground(std::function<QString()> job);
    qint64 exportedFrameIndex() const;
    bool reportWrite(const QString& error);  // shows a non-empty error; true when there was none
    void takeFrame();
    void resubmit();
    void showSnapshot(SnapshotPtr snapshot);
    void showComparison(ComparisonPtr comparison);
    void showError(const QString& message);
    void addRecent(const QString& path);
    void rebuildRecentMenu();
    std::optional<hs::Rect> roi() const;

    HistogramSettings m_settings;
    MediaController m_media;
    HistogramController m_histograms;
    ImageCanvas* m_imageView = nullptr;
    HistogramView* m_histogramView = nullptr;
    SettingsPanel* m_settingsPanel = nullptr;
    TablePanel* m_statistics = nullptr;
    TablePanel* m_timing = nullptr;
    BarChart* m_comparisonChart = nullptr;
    QLabel* m_error = nullptr;
    QLabel* m_backend = nullptr;
    QLabel* m_frameLabel = nullptr;
    QLabel* m_hover = nullptr;
    QMenu* m_recentMenu = nullptr;
    QAction* m_playAction = nullptr;
    QStringList m_recent;
    Frame m_frame;
    qint64 m_frameIndex = -1;
    QString m_source;
    double m_fps = 0;
    SnapshotPtr m_snapshot;
    quint64 m_shownGeneration = 0;
};
