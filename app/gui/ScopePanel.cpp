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
#include <QVBoxLayout>

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
    return grid;
}

ScopeDisplay scopeDisplay(const ScopeSnapshot& snapshot, ScopeKind kind, bool rgbWaveform)
{
    ScopeDisplay display;
    display.generation = snapshot.generation;
    display.bt709 = snapshot.settings.bt709;
    switch (kind) {
    case ScopeKind::Waveform: {
        display.kind = ScopeDisplay::Kind::Waveform;
        const bool rgb = rgbWaveform && !snapshot.parade.isEmpty();
        for (const ScopePlane& plane : rgb ? snapshot.parade : snapshot.waveform)
            display.grids << scopeGrid(plane);
        display.codeMax = rgb ? snapshot.codeMax : snapshot.lumaCodeMax;
        break;
    }
    case ScopeKind::Parade:
        display.kind = ScopeDisplay::Kind::Parade;
        for (const ScopePlane& plane : snapshot.parade)
            display.grids << scopeGrid(plane);
        display.codeMax = snapshot.codeMax;
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
        display.codeMax = snapshot.codeMax;
        break;
    }
    return display;
}

// ---- ScopePanel ------------------------------------------------------------------------------

QString scopeRateText(bool playing, double measuredPerSecond, double computeMs)
{
    if (playing && measuredPerSecond > 0)
        return QObject::tr(" · %1 scopes/s").arg(measuredPerSecond, 0, 'f', 1);
    if (computeMs > 0)
        return QObject::tr(" (up to %1 scopes/s)").arg(1000.0 / computeMs, 0, 'f', computeMs > 100 ? 1 : 0);
    return {};
}

namespace {

QDoubleSpinBox* gainSpin(QWidget* parent)
{
    auto* gain = new QDoubleSpinBox(parent);
    gain->setRange(0.25, 64);
    gain->setSingleStep(0.5);
    gain->setDecimals(2);
    gain->setValue(1.0);
    gain->setPrefix(QStringLiteral("gain ×"));
    gain->setToolTip(QObject::tr("Brightness: the count that reaches full intensity is the largest count divided by the gain"));
    return gain;
}

}  // namespace

ScopePanel::ScopePanel(ScopeKind kind, QWidget* parent) : QWidget(parent), m_kind(kind)
{
    setObjectName(QStringLiteral("scopePanel%1").arg(title().remove(' ').remove('-')));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(2);
    auto* controls = new QHBoxLayout;
    controls->setSpacing(6);
    ScopeView* view = nullptr;

    switch (kind) {
    case ScopeKind::Waveform:
    case ScopeKind::Parade: {
        m_waveform = new WaveformView;
        view = m_waveform;
        if (kind == ScopeKind::Waveform) {
            m_mode = new QComboBox;
            m_mode->addItem(tr("Luma"));
            m_mode->addItem(tr("RGB overlay"));
            m_mode->setToolTip(tr("Luma (by the Settings' coefficients), or R, G and B blended additively"));
            controls->addWidget(m_mode);
            connect(m_mode, &QComboBox::currentIndexChanged, this, [this] {
                refresh();
                emit requestChanged();
            });
        }
        m_scale = new QComboBox;
        m_scale->addItem(tr("Code values"));
        m_scale->addItem(tr("Percent"));
        controls->addWidget(m_scale);
        connect(m_scale, &QComboBox::currentIndexChanged, this, [this](int i) {
            m_waveform->setScale(i == 1 ? WaveformView::Scale::Percent : WaveformView::Scale::CodeValues);
        });
        addIntensityControls(controls, view, true, tr("Log"));
        break;
    }
    case ScopeKind::Vectorscope:
        m_vectorscope = new VectorscopeView;
        view = m_vectorscope;
        addIntensityControls(controls, view, true, tr("Log"));
        m_skin = new QCheckBox(tr("Skin-tone line"));
        m_skin->setChecked(m_vectorscope->skinToneLine());
        controls->addWidget(m_skin);
        connect(m_skin, &QCheckBox::toggled, m_vectorscope, &VectorscopeView::setSkinToneLine);
        break;
    case ScopeKind::Histogram2D:
        m_histogram = new Histogram2DView;
        view = m_histogram;
        m_mode = new QComboBox;
        for (ScopePair p : {ScopePair::HueSaturation, ScopePair::RedGreen, ScopePair::RedBlue, ScopePair::GreenBlue})
            m_mode->addItem(p == ScopePair::HueSaturation ? tr("Hue – saturation") : scopePairName(p), int(p));
        controls->addWidget(m_mode);
        connect(m_mode, &QComboBox::currentIndexChanged, this, &ScopePanel::requestChanged);
        addIntensityControls(controls, view, false, tr("Log colour scale"));
        break;
    }
    controls->addStretch(1);
    layout->addLayout(controls);
    layout->addWidget(view, 1);

    // One footer line: the hover readout takes the place of the status while there is one, so
    // that neither has to share the width, and neither may widen the dock (long text is cut;
    // the status's full text is its tooltip).
    m_status = new QLabel(tr("Open an image or a video"));
    m_hover = new QLabel;
    m_hover->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_hover->hide();
    for (QLabel* label : {m_status, m_hover})
        label->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    connect(view, &ScopeView::hovered, this, [this](const QString& readout) {
        m_hover->setText(readout);
        m_hover->setVisible(!readout.isEmpty());
        m_status->setVisible(readout.isEmpty());
    });
    auto* footer = new QHBoxLayout;
    footer->addWidget(m_status, 1);
    footer->addWidget(m_hover, 1);
    layout->addLayout(footer);
}

void ScopePanel::addIntensityControls(QHBoxLayout* controls, ScopeView* view, bool withGain, const QString& logText)
{
    if (withGain) {
        m_gain = gainSpin(this);
        controls->addWidget(m_gain);
        connect(m_gain, &QDoubleSpinBox::valueChanged, view, &ScopeView::setGain);
    }
    m_log = new QCheckBox(logText);
    m_log->setChecked(view->logIntensity());
    controls->addWidget(m_log);
    connect(m_log, &QCheckBox::toggled, view, &ScopeView::setLogIntensity);
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
    refresh();
}

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
    QString text;
    if (s.error.isError()) {
        text = s.error.message();
    } else {
        text = QStringLiteral("%1 · %2×%3 · %4 ms").arg(s.backend).arg(s.width).arg(s.height).arg(s.computeMs, 0, 'f', 1);
        text += scopeRateText(m_playing, s.scopesPerSecond, s.computeMs);
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
