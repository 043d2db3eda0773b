// The scopes in the window: one ScopePanel per kind (waveform, RGB parade, vectorscope, 2-D
// histogram) with its controls, each a tab of the "Scopes" dock, and Scopes, which feeds them.
// Scopes follows MainWindow::frameSubmitted (every frame, every new region) into its own
// ScopeController, asking only for the kinds a visible panel shows, and lays each snapshot out
// as the plain ScopeDisplay the widgets paint. Only colours are assigned here; the counts were
// converted on the worker thread.
#pragma once

#include "app/core/ScopeController.h"

#include "widgets/ScopeDisplay.h"

#include <QWidget>

class Histogram2DView;
class MainWindow;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QHBoxLayout;
class QLabel;
class ScopeView;
class VectorscopeView;
class WaveformView;

// The display of one kind from a snapshot (empty when the snapshot has none).
// `rgbWaveform`: the waveform overlays R, G and B (the parade's planes) instead of luma.
ScopeDisplay scopeDisplay(const ScopeSnapshot& snapshot, ScopeKind kind, bool rgbWaveform = false);
ScopeGrid scopeGrid(const ScopePlane& plane);
// The rate after a scope's timing: while the source plays, the rate measured over the last
// second; else what one count's time allows ("up to N scopes/s"), since a rate measured across
// a still image's occasional recounts says nothing (the Timing panel's rule for its rates).
QString scopeRateText(bool playing, double measuredPerSecond, double computeMs);

class ScopePanel : public QWidget {
    Q_OBJECT

public:
    explicit ScopePanel(ScopeKind kind, QWidget* parent = nullptr);

    ScopeKind kind() const { return m_kind; }
    QString title() const;
    // The kinds this panel needs counted (an RGB waveform needs the parade).
    ScopeKinds neededKinds() const;
    ScopePair pair() const;
    bool rgbWaveform() const;

    void showSnapshot(const ScopeSnapshotPtr& snapshot);
    // Whether the source plays, which decides the rate the status shows (scopeRateText).
    void setPlaying(bool playing);
    ScopeDisplay display() const { return m_display; }

    // Controls and views, for tests and screenshots (null where the kind has none).
    WaveformView* waveformView() const { return m_waveform; }
    VectorscopeView* vectorscopeView() const { return m_vectorscope; }
    Histogram2DView* histogramView() const { return m_histogram; }
    QComboBox* modeBox() const { return m_mode; }     // waveform: luma / RGB; 2-D: the pair
    QComboBox* scaleBox() const { return m_scale; }
    QDoubleSpinBox* gainBox() const { return m_gain; }
    QCheckBox* logBox() const { return m_log; }
    QCheckBox* skinToneBox() const { return m_skin; }
    QLabel* statusLabel() const { return m_status; }

signals:
    void requestChanged();   // what must be counted changed (mode, pair): count again
    void becameVisible();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void refresh();
    // Gain (where the kind has one) and the log checkbox, driving `view`.
    void addIntensityControls(QHBoxLayout* controls, ScopeView* view, bool withGain, const QString& logText);

    ScopeKind m_kind;
    ScopeDisplay m_display;
    std::shared_ptr<const ScopeSnapshot> m_snapshot;
    bool m_playing = false;
    WaveformView* m_waveform = nullptr;
    VectorscopeView* m_vectorscope = nullptr;
    Histogram2DView* m_histogram = nullptr;
    QComboBox* m_mode = nullptr;
    QComboBox* m_scale = nullptr;
    QDoubleSpinBox* m_gain = nullptr;
    QCheckBox* m_log = nullptr;
    QCheckBox* m_skin = nullptr;
    QLabel* m_status = nullptr;
    QLabel* m_hover = nullptr;
};

class Scopes : public QObject {
    Q_OBJECT

public:
    // Creates the four panels, adds them to `window` (addScopePanel) and follows its frames.
    explicit Scopes(MainWindow* window);
    ~Scopes() override;

    ScopeController* controller() { return &m_controller; }
    ScopePanel* panel(ScopeKind kind) const;
    QList<ScopePanel*> panels() const { return m_panels; }
    // Count every kind whatever is visible (tests, screenshots); off: only the visible panels'.
    void setCountAll(bool on);
    ScopeSnapshotPtr lastSnapshot() const { return m_snapshot; }
    ScopeKinds neededKinds() const;

signals:
    void snapshotShown(quint64 generation);

private:
    void submit(const Frame& frame, std::optional<hs::Rect> roi, qint64 frameIndex);
    void resubmit();
    void show(ScopeSnapshotPtr snapshot);

    MainWindow* m_window;
    ScopeController m_controller;
    QList<ScopePanel*> m_panels;
    bool m_countAll = false;
    bool m_dockInFront = false;       // the Scopes dock is the current tab of its group (shown)
    bool m_bt709 = true;
    bool m_useGpu = true;
    Frame m_frame;                    // the last frame submitted, counted again when a panel shows
    std::optional<hs::Rect> m_roi;
    qint64 m_frameIndex = -1;
    ScopeKinds m_counted = 0;         // the kinds the last submission asked for
    ScopeSnapshotPtr m_snapshot;
};
