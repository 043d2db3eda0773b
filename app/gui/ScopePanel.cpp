#include "app/gui/ScopePanel.h"

#include "widgets/Histogram2DView.h"
#include "widgets/ScopeView.h"
#include "widgets/VectorscopeView.h"
#include "widgets/WaveformView.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QLayout>
#include <QToolBar>
#include <QVBoxLayout>

#include <vector>

ScopeGrid scopeGrid(const ScopePlane& plane)
{
    ScopeGrid grid;
    grid.name = plane.name;
    switch (plane.tint) {
    case ScopePlane::Tint::Red: grid.color = QColor(255, 64, 64); break;
    case ScopePlane::Tint::Green: grid.color = QColor(64, 255, 64); break;
    case ScopePlane::Tint::Blue: grid.color = QColor(80, 120, 255); break;
    case ScopePlane::Tint::Luma:
    case ScopePlane::Tint::None: grid.color = QColor(230, 230, 230); break;
    }
    grid.xName = plane.xName;
    grid.yName = plane.yName;
    grid.xBins = plane.xBins;
    grid.yBins = plane.yBins;
    grid.xLo = plane.xLo;
    grid.xHi = plane.xHi;
    grid.yLo = plane.yLo;
    grid.yHi = plane.yHi;
    grid.counts = plane.counts;   // shared, not copied
    if (plane.aboveY > 0 || plane.belowY > 0) {
        grid.over = plane.aboveByX;
        grid.under = plane.belowByX;
    }
    grid.clipAtEnds = plane.clipAtEnds;
    return grid;
}

ScopeDisplay scopeDisplay(const ScopeSnapshot& snapshot, ScopeKind kind, bool rgbWaveform)
{
    ScopeDisplay display;
    display.generation = snapshot.generation;
    display.bt709 = snapshot.settings.bt709;
    display.floatValues = snapshot.floatValues;
    display.exposure = snapshot.floatValues ? snapshot.settings.exposure : 0.0;
    display.codeMax = snapshot.codeMax;
    switch (kind) {
    case ScopeKind::Waveform: {
        display.kind = ScopeDisplay::Kind::Waveform;
        const bool rgb = rgbWaveform && !snapshot.parade.isEmpty();
        for (const ScopePlane& plane : rgb ? snapshot.parade : snapshot.waveform)
            display.grids << scopeGrid(plane);
        break;
    }
    case ScopeKind::Parade:
        display.kind = ScopeDisplay::Kind::Parade;
        for (const ScopePlane& plane : snapshot.parade)
            display.grids << scopeGrid(plane);
        break;
    case ScopeKind::Vectorscope:
        display.kind = ScopeDisplay::Kind::Vectorscope;
        if (snapshot.vectorscope)
            display.grids << scopeGrid(*snapshot.vectorscope);
        display.codeMax = snapshot.lumaCodeMax;
        break;
    case ScopeKind::Histogram2D:
        display.kind = ScopeDisplay::Kind::Histogram2D;
        if (snapshot.histogram2d)
            display.grids << scopeGrid(*snapshot.histogram2d);
        break;
    }
    return display;
}

QString scopeRateText(bool playing, double measuredPerSecond, double computeMs)
{
    if (playing && measuredPerSecond > 0)
        return QObject::tr(" · %1 scopes/s").arg(measuredPerSecond, 0, 'f', 1);
    if (computeMs > 0)
        return QObject::tr(" (up to %1 scopes/s)").arg(1000.0 / computeMs, 0, 'f', computeMs > 100 ? 1 : 0);
    return {};
}

namespace {

QString share(double part, double whole)
{
    const double percent = 100.0 * part / whole;
    return percent >= 0.1 ? QStringLiteral("%1 %").arg(percent, 0, 'f', 1) : QStringLiteral("< 0.1 %");
}

QString number(double v) { return QString::number(v, 'g', 4); }

}  // namespace

QString scopeClipText(const ScopeSnapshot& snapshot, ScopeKind kind, bool rgbWaveform)
{
    QVector<const ScopePlane*> planes;
    switch (kind) {
    case ScopeKind::Waveform:
        for (const ScopePlane& p : rgbWaveform && !snapshot.parade.isEmpty() ? snapshot.parade : snapshot.waveform)
            planes << &p;
        break;
    case ScopeKind::Parade:
        for (const ScopePlane& p : snapshot.parade)
            planes << &p;
        break;
    case ScopeKind::Vectorscope:
    case ScopeKind::Histogram2D: {
        const std::optional<ScopePlane>& p = kind == ScopeKind::Vectorscope ? snapshot.vectorscope : snapshot.histogram2d;
        if (!p || p->total == 0 || p->inRange == p->total)
            return {};
        return QObject::tr("%1 of the pixels lie beyond the axes (not drawn)").arg(share(double(p->total - p->inRange), double(p->total)));
    }
    }
    // Summed over the planes (R, G and B share one axis): shares of their samples.
    double total = 0, top = 0, bottom = 0, above = 0, below = 0, nan = 0;
    for (const ScopePlane* p : planes) {
        total += double(p->total);
        if (p->clipAtEnds) {
            top += p->topBin;
            bottom += p->bottomBin;
        }
        above += double(p->aboveY);
        below += double(p->belowY);
        nan += double(p->nanY);
    }
    if (planes.isEmpty() || total <= 0 || planes.front()->yBins <= 0)
        return {};
    const ScopePlane& first = *planes.front();
    const double bin = (first.yHi - first.yLo) / first.yBins;
    QStringList parts;
    // The end bins of a code axis: exactly the end codes when a bin is one code wide.
    if (top > 0)
        parts << (bin == 1 ? QObject::tr("%1 at %2") : QObject::tr("%1 ≥ %2")).arg(share(top, total), number(first.yHi - bin));
    if (bottom > 0)
        parts << (bin == 1 ? QObject::tr("%1 at %2").arg(share(bottom, total), number(first.yLo))
                           : QObject::tr("%1 < %2").arg(share(bottom, total), number(first.yLo + bin)));
    if (above > 0)
        parts << QObject::tr("%1 above %2").arg(share(above, total), number(first.yHi));
    if (below > 0)
        parts << QObject::tr("%1 below %2").arg(share(below, total), number(first.yLo));
    if (nan > 0)
        parts << QObject::tr("%1 NaN").arg(share(nan, total));
    if (parts.isEmpty())
        return {};
    return QObject::tr("clipped (red marks): %1").arg(parts.join(QStringLiteral(", ")));
}

// ---- ScopePanel ------------------------------------------------------------------------------

namespace {

QDoubleSpinBox* gainSpin(QWidget* parent)
{
    auto* gain = new QDoubleSpinBox(parent);
    gain->setRange(ScopeOptions::kMinGain, ScopeOptions::kMaxGain);
    gain->setSingleStep(0.25);
    gain->setDecimals(2);
    gain->setValue(1.0);
    gain->setPrefix(QStringLiteral("gain ×"));
    gain->setToolTip(QObject::tr("Brightness of the trace, as a scope's intensity knob: each cell glows by its count "
                                 "relative to the typical populated cell, times the gain; a cell of one pixel is always lit"));
    return gain;
}

}  // namespace

ScopePanel::ScopePanel(ScopeKind kind, QWidget* parent) : QWidget(parent), m_kind(kind)
{
    setObjectName(QStringLiteral("scopePanel%1").arg(title().remove(' ').remove('-')));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(2);
    // A tool bar: when the dock is too narrow for every control, the last ones move into its
    // overflow menu instead of widening the dock.
    auto* controls = m_controls = new QToolBar;
    controls->setMovable(false);
    controls->setFloatable(false);

    switch (kind) {
    case ScopeKind::Waveform:
    case ScopeKind::Parade: {
        m_waveform = new WaveformView;
        m_view = m_waveform;
        if (kind == ScopeKind::Waveform) {
            m_mode = new QComboBox;
            m_mode->addItem(tr("Luma"));
            m_mode->addItem(tr("RGB overlay"));
            m_mode->setToolTip(tr("Luma (by the Settings' coefficients), or R, G and B blended additively"));
            controls->addWidget(m_mode);
            connect(m_mode, &QComboBox::currentIndexChanged, this, [this] {
                refresh();
                edited();
            });
        }
        m_graticule = new QComboBox;
        m_graticule->addItem(tr("Codes"));
        m_graticule->addItem(tr("Codes, legal"));
        m_graticule->addItem(tr("0–100 %"));
        m_graticule->addItem(tr("IRE, legal"));
        m_graticule->setToolTip(tr("The graticule: code values (float units for float frames) or 0–100 % of full scale, "
                                   "over the full code range or video's legal range (16–235 in 8 bits: 0 % at 16 and "
                                   "100 % at 235, IRE-style)"));
        controls->addWidget(m_graticule);
        connect(m_graticule, &QComboBox::currentIndexChanged, this, [this] {
            applyGraticule();
            edited();
        });
        addIntensityControls(controls, m_view, true, tr("Log"));
        addFloatControls(controls);
        break;
    }
    case ScopeKind::Vectorscope:
        m_vectorscope = new VectorscopeView;
        m_view = m_vectorscope;
        m_targets = new QComboBox;
        m_targets->addItem(tr("75 %"));
        m_targets->addItem(tr("100 %"));
        m_targets->setToolTip(tr("Colour targets of 75 % or 100 % colour bars"));
        controls->addWidget(m_targets);
        connect(m_targets, &QComboBox::currentIndexChanged, this, [this](int i) {
            m_vectorscope->setTargetAmplitude(i == 1 ? 1.0 : 0.75);
            edited();
        });
        m_trace = new QComboBox;
        m_trace->addItem(tr("Classic"));
        m_trace->addItem(tr("Pixel colours"));
        m_trace->setToolTip(tr("The trace: a phosphor tint, or each point in the colour of its chroma"));
        controls->addWidget(m_trace);
        connect(m_trace, &QComboBox::currentIndexChanged, this, [this](int i) {
            m_vectorscope->setTrace(i == 1 ? VectorscopeView::Trace::PixelColours : VectorscopeView::Trace::Classic);
            edited();
        });
        addIntensityControls(controls, m_view, true, tr("Log"));
        m_skin = new QCheckBox(tr("Skin line"));
        m_skin->setToolTip(tr("The skin-tone line, where faces of every complexion fall"));
        m_skin->setChecked(m_vectorscope->skinToneLine());
        controls->addWidget(m_skin);
        connect(m_skin, &QCheckBox::toggled, this, [this](bool on) {
            m_vectorscope->setSkinToneLine(on);
            edited();
        });
        addFloatControls(controls);
        break;
    case ScopeKind::Histogram2D:
        m_histogram = new Histogram2DView;
        m_view = m_histogram;
        m_mode = new QComboBox;
        for (ScopePair p : {ScopePair::HueSaturation, ScopePair::RedGreen, ScopePair::RedBlue, ScopePair::GreenBlue})
            m_mode->addItem(p == ScopePair::HueSaturation ? tr("Hue – saturation") : scopePairName(p), int(p));
        controls->addWidget(m_mode);
        connect(m_mode, &QComboBox::currentIndexChanged, this, &ScopePanel::edited);
        addIntensityControls(controls, m_view, false, tr("Log colour scale"));
        addFloatControls(controls);
        break;
    }
    layout->addWidget(controls);
    layout->addWidget(m_view, 1);

    // One footer line: the hover readout takes the place of the status while there is one, so
    // that neither has to share the width, and neither may widen the dock (long text is cut;
    // the status's full text is its tooltip).
    m_status = new QLabel(tr("Open an image or a video"));
    m_hover = new QLabel;
    m_hover->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_hover->hide();
    for (QLabel* label : {m_status, m_hover})
        label->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    connect(m_view, &ScopeView::hovered, this, [this](const QString& readout) {
        m_hover->setText(readout);
        m_hover->setVisible(!readout.isEmpty());
        m_status->setVisible(readout.isEmpty());
    });
    auto* footer = new QHBoxLayout;
    footer->addWidget(m_status, 1);
    footer->addWidget(m_hover, 1);
    layout->addLayout(footer);
}

void ScopePanel::addIntensityControls(QToolBar* controls, ScopeView* view, bool withGain, const QString& logText)
{
    if (withGain) {
        m_gain = gainSpin(this);
        controls->addWidget(m_gain);
        connect(m_gain, &QDoubleSpinBox::valueChanged, this, [this, view](double gain) {
            view->setGain(gain);
            edited();
        });
    }
    m_log = new QCheckBox(logText);
    m_log->setChecked(view->logIntensity());
    controls->addWidget(m_log);
    connect(m_log, &QCheckBox::toggled, this, [this, view](bool on) {
        view->setLogIntensity(on);
        edited();
    });
}

// Exposure and the float axis: shown for float frames only (an integer frame has neither).
void ScopePanel::addFloatControls(QToolBar* controls)
{
    m_exposure = new QDoubleSpinBox(this);
    m_exposure->setRange(-ScopeOptions::kMaxExposure, ScopeOptions::kMaxExposure);
    m_exposure->setSingleStep(0.5);
    m_exposure->setDecimals(1);
    m_exposure->setSuffix(tr(" EV"));
    m_exposure->setToolTip(tr("Exposure of float (HDR) frames, in stops: values are shown multiplied by 2^EV"));
    m_exposureAction = controls->addWidget(m_exposure);
    m_exposureAction->setVisible(false);
    connect(m_exposure, &QDoubleSpinBox::valueChanged, this, &ScopePanel::edited);
    if (m_kind == ScopeKind::Waveform || m_kind == ScopeKind::Parade) {
        m_floatAxis = new QComboBox(this);
        m_floatAxis->addItem(tr("Fit the data"));
        m_floatAxis->addItem(tr("0–1"));
        m_floatAxis->setToolTip(tr("Float frames: an axis that holds every sample, or the display range 0–1, where "
                                   "exposure brings HDR values into view and what lies above is clipped"));
        m_floatAxisAction = controls->addWidget(m_floatAxis);
        m_floatAxisAction->setVisible(false);
        connect(m_floatAxis, &QComboBox::currentIndexChanged, this, &ScopePanel::edited);
    }
}

void ScopePanel::applyGraticule()
{
    if (!m_waveform || !m_graticule)
        return;
    const int i = m_graticule->currentIndex();
    m_waveform->setScale(i >= 2 ? WaveformView::Scale::Percent : WaveformView::Scale::CodeValues);
    m_waveform->setRange(i % 2 == 1 ? WaveformView::Range::Legal : WaveformView::Range::Full);
}

void ScopePanel::edited() { emit optionsEdited(); }

void ScopePanel::setOptions(const ScopeOptions& o)
{
    const bool rgbBefore = rgbWaveform();
    std::vector<QSignalBlocker> blockers;
    for (QObject* w : std::initializer_list<QObject*>{m_mode, m_graticule, m_targets, m_trace, m_gain, m_log, m_skin, m_exposure, m_floatAxis})
        if (w)
            blockers.emplace_back(w);
    const ScopeIntensity* intensity = nullptr;
    const ScopeGraticule* graticule = nullptr;
    switch (m_kind) {
    case ScopeKind::Waveform:
        intensity = &o.waveform;
        graticule = &o.waveformGraticule;
        m_mode->setCurrentIndex(o.rgbWaveform ? 1 : 0);
        break;
    case ScopeKind::Parade:
        intensity = &o.parade;
        graticule = &o.paradeGraticule;
        break;
    case ScopeKind::Vectorscope:
        intensity = &o.vectorscope;
        m_targets->setCurrentIndex(o.targets == ScopeTargets::Bars100 ? 1 : 0);
        m_vectorscope->setTargetAmplitude(o.targets == ScopeTargets::Bars100 ? 1.0 : 0.75);
        m_trace->setCurrentIndex(o.trace == ScopeTrace::PixelColours ? 1 : 0);
        m_vectorscope->setTrace(o.trace == ScopeTrace::PixelColours ? VectorscopeView::Trace::PixelColours : VectorscopeView::Trace::Classic);
        m_skin->setChecked(o.skinToneLine);
        m_vectorscope->setSkinToneLine(o.skinToneLine);
        break;
    case ScopeKind::Histogram2D:
        m_mode->setCurrentIndex(std::max(0, m_mode->findData(int(o.pair))));
        m_log->setChecked(o.histogram2dLog);
        m_view->setLogIntensity(o.histogram2dLog);
        break;
    }
    if (intensity) {
        m_gain->setValue(intensity->gain);
        m_view->setGain(m_gain->value());
        m_log->setChecked(intensity->log);
        m_view->setLogIntensity(intensity->log);
    }
    if (graticule) {
        m_graticule->setCurrentIndex((graticule->scale == ScopeScale::Percent ? 2 : 0) + (graticule->range == ScopeRange::Legal ? 1 : 0));
        applyGraticule();
    }
    m_exposure->setValue(o.exposure);
    if (m_floatAxis)
        m_floatAxis->setCurrentIndex(o.floatAxis == ScopeFloatAxis::Unit ? 1 : 0);
    blockers.clear();
    if (rgbWaveform() != rgbBefore)
        refresh();   // luma or the parade's planes: the same snapshot shown another way
}

void ScopePanel::writeOptions(ScopeOptions& o) const
{
    auto graticuleOf = [this] {
        const int i = m_graticule->currentIndex();
        return ScopeGraticule{i >= 2 ? ScopeScale::Percent : ScopeScale::CodeValues, i % 2 == 1 ? ScopeRange::Legal : ScopeRange::Full};
    };
    switch (m_kind) {
    case ScopeKind::Waveform:
        o.waveform = {m_gain->value(), m_log->isChecked()};
        o.waveformGraticule = graticuleOf();
        o.rgbWaveform = rgbWaveform();
        break;
    case ScopeKind::Parade:
        o.parade = {m_gain->value(), m_log->isChecked()};
        o.paradeGraticule = graticuleOf();
        break;
    case ScopeKind::Vectorscope:
        o.vectorscope = {m_gain->value(), m_log->isChecked()};
        o.targets = m_targets->currentIndex() == 1 ? ScopeTargets::Bars100 : ScopeTargets::Bars75;
        o.trace = m_trace->currentIndex() == 1 ? ScopeTrace::PixelColours : ScopeTrace::Classic;
        o.skinToneLine = m_skin->isChecked();
        break;
    case ScopeKind::Histogram2D:
        o.pair = pair();
        o.histogram2dLog = m_log->isChecked();
        break;
    }
    o.exposure = m_exposure->value();
    if (m_floatAxis)
        o.floatAxis = m_floatAxis->currentIndex() == 1 ? ScopeFloatAxis::Unit : ScopeFloatAxis::Fit;
}

QString ScopePanel::title() const
{
    switch (m_kind) {
    case ScopeKind::Waveform: return tr("Waveform");
    case ScopeKind::Parade: return tr("RGB Parade");
    case ScopeKind::Vectorscope: return tr("Vectorscope");
    case ScopeKind::Histogram2D: return tr("2-D Histogram");
    }
    return {};
}

bool ScopePanel::rgbWaveform() const { return m_kind == ScopeKind::Waveform && m_mode && m_mode->currentIndex() == 1; }

ScopePair ScopePanel::pair() const
{
    return m_kind == ScopeKind::Histogram2D ? ScopePair(m_mode->currentData().toInt()) : ScopePair::HueSaturation;
}

ScopeKinds ScopePanel::neededKinds() const
{
    if (rgbWaveform())
        return scopeBit(ScopeKind::Parade);
    return scopeBit(m_kind);
}

void ScopePanel::showSnapshot(const ScopeSnapshotPtr& shown)
{
    const ScopeSnapshot& snapshot = *shown;
    // Only a snapshot that holds this panel's kind replaces what it shows.
    const ScopeKinds needed = neededKinds();
    if ((snapshot.settings.kinds & needed) != needed)
        return;
    if (m_kind == ScopeKind::Histogram2D && snapshot.settings.pair != pair())
        return;
    m_snapshot = shown;
    m_current = true;
    refresh();
}

bool ScopePanel::showsCurrentRequest() const
{
    if (!m_snapshot || !m_current)
        return false;
    const ScopeKinds needed = neededKinds();
    return (m_snapshot->settings.kinds & needed) == needed
        && (m_kind != ScopeKind::Histogram2D || m_snapshot->settings.pair == pair());
}

void ScopePanel::setCounting()
{
    if (showsCurrentRequest())
        return;   // the picture of this source stays until the new count replaces it
    const QString text = tr("Counting the %1…").arg(title().toLower());
    m_status->setText(text);
    m_status->setToolTip(text);
}

void ScopePanel::setSourceChanged() { m_current = false; }

void ScopePanel::refresh()
{
    if (!m_snapshot)
        return;
    const ScopeSnapshot& s = *m_snapshot;
    m_display = scopeDisplay(s, m_kind, rgbWaveform());
    if (m_waveform)
        m_waveform->setDisplay(m_display);
    if (m_vectorscope)
        m_vectorscope->setDisplay(m_display);
    if (m_histogram)
        m_histogram->setDisplay(m_display);
    if (m_exposureAction->isVisible() != s.floatValues) {
        m_exposureAction->setVisible(s.floatValues);
        if (m_floatAxisAction)
            m_floatAxisAction->setVisible(s.floatValues);
        m_controls->layout()->activate();   // laid out now: a grab straight after shows them
    }
    QString text;
    if (s.error.isError()) {
        text = s.error.message();
    } else {
        text = QStringLiteral("%1 · %2×%3 · %4 ms").arg(s.backend).arg(s.width).arg(s.height).arg(s.computeMs, 0, 'f', 1);
        text += scopeRateText(m_playing, s.scopesPerSecond, s.computeMs);
        const QString clipped = scopeClipText(s, m_kind, rgbWaveform());
        if (!clipped.isEmpty())
            text += QStringLiteral(" · ") + clipped;
        if (!s.notices.isEmpty() && m_display.isEmpty())
            text += QStringLiteral(" · ") + s.notices.join(QLatin1Char(' '));
    }
    m_status->setText(text);
    m_status->setToolTip(text);
}

void ScopePanel::setPlaying(bool playing)
{
    if (playing == m_playing)
        return;
    m_playing = playing;
    refresh();
}

void ScopePanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    emit becameVisible();
}
