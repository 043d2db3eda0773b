#include "app/gui/Scopes.h"

#include "app/gui/ScopePanel.h"

namespace {

bool bt709Of(const HistogramSettings& s) { return s.display.luma != LumaCoefficients::Bt601; }

}  // namespace

Scopes::Scopes(const HistogramSettings& settings, QObject* parent)
    : QObject(parent), m_bt709(bt709Of(settings)), m_useGpu(settings.counting.useGpu)
{
    for (ScopeKind kind : {ScopeKind::Waveform, ScopeKind::Parade, ScopeKind::Vectorscope, ScopeKind::Histogram2D}) {
        auto* panel = new ScopePanel(kind);
        m_panels << panel;
        connect(panel, &ScopePanel::requestChanged, this, &Scopes::resubmit);
        // A panel that shows needs its kind: count the last frame again if it was not asked for.
        connect(panel, &ScopePanel::becameVisible, this, [this, panel] {
            if (m_inFront && (m_counted & panel->neededKinds()) != panel->neededKinds())
                resubmit();
        });
    }
    connect(&m_controller, &ScopeController::resultReady, this, &Scopes::show);
    connect(&m_controller, &ScopeController::deviceNotice, this, &Scopes::deviceNotice);
}

Scopes::~Scopes() = default;

ScopePanel* Scopes::panel(ScopeKind kind) const
{
    for (ScopePanel* p : m_panels)
        if (p->kind() == kind)
            return p;
    return nullptr;
}

void Scopes::setCountAll(bool on)
{
    m_countAll = on;
    resubmit();
}

ScopeKinds Scopes::neededKinds() const
{
    ScopeKinds kinds = 0;
    for (ScopePanel* p : m_panels)
        if (m_countAll || (m_inFront && p->isVisible()))
            kinds |= p->neededKinds();
    return kinds;
}

void Scopes::submit(const Frame& frame, std::optional<hs::Rect> roi, qint64 frameIndex)
{
    m_frame = frame;
    m_roi = roi;
    m_frameIndex = frameIndex;
    m_counted = neededKinds();
    if (m_counted == 0 || frame.isNull())
        return;   // no scope is visible: nothing to count until one shows
    ScopeSettings settings;
    settings.kinds = m_counted;
    settings.bt709 = m_bt709;
    settings.useGpu = m_useGpu;
    settings.pair = panel(ScopeKind::Histogram2D)->pair();
    m_controller.submit(frame, roi, settings, frameIndex);
}

void Scopes::setSettings(const HistogramSettings& s)
{
    if (bt709Of(s) == m_bt709 && s.counting.useGpu == m_useGpu)
        return;
    m_bt709 = bt709Of(s);
    m_useGpu = s.counting.useGpu;
    resubmit();
}

void Scopes::setInFront(bool inFront)
{
    m_inFront = inFront;
    if (inFront && (m_counted & neededKinds()) != neededKinds())
        resubmit();
}

void Scopes::setPlaying(bool playing)
{
    for (ScopePanel* p : m_panels)
        p->setPlaying(playing);
}

void Scopes::invalidate()
{
    m_controller.invalidate();
    m_frame = {};
}

void Scopes::resubmit()
{
    if (!m_frame.isNull())
        submit(m_frame, m_roi, m_frameIndex);
}

void Scopes::show(ScopeSnapshotPtr snapshot)
{
    m_snapshot = snapshot;
    for (ScopePanel* p : m_panels)
        p->showSnapshot(snapshot);
    emit snapshotShown(snapshot->generation);
}
