// One scope of the window: a ScopePanel per kind (waveform, RGB parade, vectorscope, 2-D
// histogram) with its controls, a tab of the "Scopes" dock; Scopes (app/gui/Scopes.h) feeds
// them and keeps their options (ScopeOptions, remembered between runs). A snapshot is laid out
// here as the plain ScopeDisplay the widgets paint. Only colours are assigned here; the counts
// were converted on the worker thread.
#pragma once

#include "app/core/ScopeOptions.h"
#include "app/core/ScopeTypes.h"

#include "widgets/ScopeDisplay.h"

#include <QWidget>

class Histogram2DView;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QAction;
class QLabel;
class QToolBar;
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
// What a kind's planes clip, for its status line: the share of pixels at the code range's ends
// (integer frames) or beyond a float axis; empty when nothing is.
QString scopeClipText(const ScopeSnapshot& snapshot, ScopeKind kind, bool rgbWaveform = false);

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

    // This panel's part of `options` (and the shared exposure and float axis) onto its controls
    // and view; optionsEdited is not emitted.
    void setOptions(const ScopeOptions& options);
    // This panel's part of the options, and the shared ones, as its controls hold them.
    void writeOptions(ScopeOptions& options) const;

    void showSnapshot(const ScopeSnapshotPtr& snapshot);
    // A count of this panel's kind has been asked for: until it arrives, a panel with nothing of
    // the current source to show says it is counting.
    void setCounting();
    // A new source: what the panel shows is of the previous one until its next snapshot.
    void setSourceChanged();
    // Whether the source plays, which decides the rate the status shows (scopeRateText).
    void setPlaying(bool playing);
    ScopeDisplay display() const { return m_display; }

    // Controls and views, for tests and screenshots (null where the kind has none).
    WaveformView* waveformView() const { return m_waveform; }
    VectorscopeView* vectorscopeView() const { return m_vectorscope; }
    Histogram2DView* histogramView() const { return m_histogram; }
    QComboBox* modeBox() const { return m_mode; }          // waveform: luma / RGB; 2-D: the pair
    QComboBox* graticuleBox() const { return m_graticule; } // code values or %, full or legal range
    QComboBox* targetsBox() const { return m_targets; }    // vectorscope: 75 % / 100 %
    QComboBox* traceBox() const { return m_trace; }        // vectorscope: tint / pixel colours
    QDoubleSpinBox* gainBox() const { return m_gain; }
    QCheckBox* logBox() const { return m_log; }
    QCheckBox* skinToneBox() const { return m_skin; }
    QDoubleSpinBox* exposureBox() const { return m_exposure; }   // float frames only
    QComboBox* floatAxisBox() const { return m_floatAxis; }      // float frames only
    QLabel* statusLabel() const { return m_status; }

signals:
    void optionsEdited();   // the user changed an option of this panel (Scopes keeps them)
    void becameVisible();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void refresh();
    void edited();
    // What the panel shows is of the current source and of what its controls ask for.
    bool showsCurrentRequest() const;
    // Gain (where the kind has one) and the log checkbox, driving `view`.
    void addIntensityControls(QToolBar* controls, ScopeView* view, bool withGain, const QString& logText);
    void addFloatControls(QToolBar* controls);
    void applyGraticule();

    ScopeKind m_kind;
    ScopeDisplay m_display;
    std::shared_ptr<const ScopeSnapshot> m_snapshot;
    bool m_current = false;   // m_snapshot is of the current source
    bool m_playing = false;
    WaveformView* m_waveform = nullptr;
    VectorscopeView* m_vectorscope = nullptr;
    Histogram2DView* m_histogram = nullptr;
    ScopeView* m_view = nullptr;
    QComboBox* m_mode = nullptr;
    QComboBox* m_graticule = nullptr;
    QComboBox* m_targets = nullptr;
    QComboBox* m_trace = nullptr;
    QDoubleSpinBox* m_gain = nullptr;
    QCheckBox* m_log = nullptr;
    QCheckBox* m_skin = nullptr;
    QDoubleSpinBox* m_exposure = nullptr;
    QComboBox* m_floatAxis = nullptr;
    QToolBar* m_controls = nullptr;
    QAction* m_exposureAction = nullptr;   // a tool bar's widgets show and hide through their actions
    QAction* m_floatAxisAction = nullptr;
    QLabel* m_status = nullptr;
    QLabel* m_hover = nullptr;
};
