#include "app/gui/Scopes.h"

#include "app/gui/ScopePanel.h"

namespace {

bool bt709Of(const HistogramSettings& s) { return s.display.luma != LumaCoefficients::Bt601; }

// The options that change what is counted, not only how it is shown.
bool sameCount(const ScopeOptions& a, const ScopeOptions& b)
{
    return a.pair == b.pair && a.rgbWaveform == b.rgbWaveform && a.exposure == b.exposure && a.floatAxis == b.floatAxis;
}

}  // namespace

Scopes::Scopes(const HistogramSettings& settings, QObject* parent)
    : QObject(parent), m_options(settings.scopes), m_bt709(bt709Of(settings)), m_useGpu(settings.counting.useGpu)
{
    for (ScopeKind kind : {ScopeKind::Waveform, ScopeKind::Parade, ScopeKind::Vectorscope, ScopeKind::Histogram2D}) {
        auto* panel = new ScopePanel(kind);
        m_panels << panel;
        panel->setOptions(m_options);
        connect(panel, &ScopePanel::optionsEdited, this, [this, panel] { panelEdited(panel); });
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
    settings.pair = m_options.pair;
    settings.exposure = m_options.exposure;
    settings.floatAxis = m_options.floatAxis;
    m_controller.submit(frame, roi, settings, frameIndex);
    for (ScopePanel* p : m_panels)
        if ((m_counted & p->neededKinds()) == p->neededKinds())
            p->setCounting();
}

void Scopes::setSettings(const HistogramSettings& s)
{
    if (bt709Of(s) == m_bt709 && s.counting.useGpu == m_useGpu)
        return;
    m_bt709 = bt709Of(s);
    m_useGpu = s.counting.useGpu;
    resubmit();
}

void Scopes::setOptions(const ScopeOptions& options)
{
    if (options == m_options)
        return;
    const bool recount = !sameCount(options, m_options);
    m_options = options;
    for (ScopePanel* p : m_panels)
        p->setOptions(m_options);
    if (recount)
        resubmit();
    emit optionsChanged(m_options);
}

void Scopes::panelEdited(ScopePanel* panel)
{
    ScopeOptions options = m_options;
    panel->writeOptions(options);
    setOptions(options);
}

void Scopes::setCurrentTab(int index)
{
    if (index < 0 || index >= ScopeOptions::kTabs || index == m_options.tab)
        return;
    m_options.tab = index;
    emit optionsChanged(m_options);
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
    for (ScopePanel* p : m_panels)
        p->setSourceChanged();
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
