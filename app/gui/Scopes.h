// The window's scopes: one ScopePanel per kind (waveform, RGB parade, vectorscope, 2-D
// histogram), fed from one ScopeController. Scopes follows the frames the window submits
// (every frame, every new region) and asks only for the kinds a visible panel shows; it keeps
// the panels' options (ScopeOptions) and tells the window when they change, so that they are
// saved with the settings. It knows nothing of the window, which adds the panels to its Scopes
// dock and wires the slots below.
#pragma once

#include "app/core/HistogramSettings.h"
#include "app/core/ScopeController.h"

#include <QObject>

class ScopePanel;

class Scopes : public QObject {
    Q_OBJECT

public:
    // Creates the four panels (unparented until the window adds them), counting as `settings`
    // say and showing as `settings.scopes` say.
    explicit Scopes(const HistogramSettings& settings, QObject* parent = nullptr);
    ~Scopes() override;

    ScopeController* controller() { return &m_controller; }
    ScopePanel* panel(ScopeKind kind) const;
    QList<ScopePanel*> panels() const { return m_panels; }
    const ScopeOptions& options() const { return m_options; }
    // Count every kind whatever is visible (tests, screenshots); off: only the visible panels'.
    void setCountAll(bool on);
    ScopeSnapshotPtr lastSnapshot() const { return m_snapshot; }
    ScopeKinds neededKinds() const;

    // A frame (or a new region) sent to be counted: the frame at native depth, the region
    // (none: the whole frame) and its index in the source.
    void submit(const Frame& frame, std::optional<hs::Rect> roi, qint64 frameIndex);
    // Only the luma coefficients and the GPU switch matter to the scopes (their own options
    // come from the panels: setOptions).
    void setSettings(const HistogramSettings& settings);
    // Every panel's options; counts again when what is counted changed.
    void setOptions(const ScopeOptions& options);
    // The Scopes dock's current tab (remembered in the options).
    void setCurrentTab(int index);
    // Whether the Scopes dock is the current tab of its group. A tabbed dock behind another
    // stays "visible" (moved out of view); inside the dock, a panel shows when it is the current tab.
    void setInFront(bool inFront);
    void setPlaying(bool playing);
    // A new source: scopes still being counted for the previous one are not shown, and its last
    // frame is not counted again.
    void invalidate();

signals:
    void snapshotShown(quint64 generation);
    void deviceNotice(const QString& message);   // the scopes' worker survived a GPU fault
    void optionsChanged(const ScopeOptions& options);

private:
    void resubmit();
    void show(ScopeSnapshotPtr snapshot);
    void panelEdited(ScopePanel* panel);

    ScopeController m_controller;
    QList<ScopePanel*> m_panels;
    ScopeOptions m_options;
    bool m_countAll = false;
    bool m_inFront = false;
    bool m_bt709 = true;
    bool m_useGpu = true;
    Frame m_frame;                    // the last frame submitted, counted again when a panel shows
    std::optional<hs::Rect> m_roi;
    qint64 m_frameIndex = -1;
    ScopeKinds m_counted = 0;         // the kinds the last submission asked for
    ScopeSnapshotPtr m_snapshot;
};
