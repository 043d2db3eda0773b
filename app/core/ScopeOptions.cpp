#include "app/core/ScopeOptions.h"

#include <cmath>
#include <initializer_list>
#include <utility>

QString scopePairName(ScopePair pair)
{
    switch (pair) {
    case ScopePair::HueSaturation: return QStringLiteral("H–S");
    case ScopePair::RedGreen: return QStringLiteral("R–G");
    case ScopePair::RedBlue: return QStringLiteral("R–B");
    case ScopePair::GreenBlue: return QStringLiteral("G–B");
    }
    return {};
}

namespace {

// The names the settings file holds for each choice: a renumbered enum never changes a file.
template <typename E>
using Names = std::initializer_list<std::pair<E, const char*>>;

const Names<ScopePair> kPairs{{ScopePair::HueSaturation, "hue-saturation"},
                              {ScopePair::RedGreen, "red-green"},
                              {ScopePair::RedBlue, "red-blue"},
                              {ScopePair::GreenBlue, "green-blue"}};
const Names<ScopeScale> kScales{{ScopeScale::CodeValues, "codes"}, {ScopeScale::Percent, "percent"}};
const Names<ScopeRange> kRanges{{ScopeRange::Full, "full"}, {ScopeRange::Legal, "legal"}};
const Names<ScopeTargets> kTargets{{ScopeTargets::Bars75, "75"}, {ScopeTargets::Bars100, "100"}};
const Names<ScopeTrace> kTraces{{ScopeTrace::Classic, "classic"}, {ScopeTrace::PixelColours, "pixel-colours"}};
const Names<ScopeFloatAxis> kFloatAxes{{ScopeFloatAxis::Fit, "fit"}, {ScopeFloatAxis::Unit, "unit"}};
const Names<int> kTabNames{{0, "waveform"}, {1, "parade"}, {2, "vectorscope"}, {3, "histogram2d"}};

template <typename E>
QString nameOf(const Names<E>& names, E value)
{
    for (const auto& [v, name] : names)
        if (v == value)
            return QString::fromLatin1(name);
    return QString::fromLatin1(names.begin()->second);
}

template <typename E>
QString validNames(const Names<E>& names)
{
    QStringList list;
    for (const auto& entry : names)
        list << QString::fromLatin1(entry.second);
    return list.join(QStringLiteral(", "));
}

// Reads the name stored under `key` into `value`; an unknown name leaves the default and says so.
template <typename E>
void readName(QSettings& s, const QString& key, const Names<E>& names, E& value, QStringList& notices)
{
    if (!s.contains(key))
        return;
    const QString stored = s.value(key).toString().trimmed();
    for (const auto& [v, name] : names)
        if (stored.compare(QLatin1String(name), Qt::CaseInsensitive) == 0) {
            value = v;
            return;
        }
    notices << QStringLiteral("Saved scope setting %1 '%2' ignored (valid: %3)").arg(key, stored, validNames(names));
}

void readNumber(QSettings& s, const QString& key, double lo, double hi, double& value, QStringList& notices)
{
    if (!s.contains(key))
        return;
    bool ok = false;
    const double v = s.value(key).toDouble(&ok);
    if (ok && std::isfinite(v) && v >= lo && v <= hi)
        value = v;
    else
        notices << QStringLiteral("Saved scope setting %1 ignored: %2 is outside %3..%4").arg(key, s.value(key).toString()).arg(lo).arg(hi);
}

void readBool(QSettings& s, const QString& key, bool& value)
{
    if (s.contains(key))
        value = s.value(key).toBool();
}

void readIntensity(QSettings& s, const QString& group, ScopeIntensity& value, QStringList& notices)
{
    readNumber(s, group + QStringLiteral("/gain"), ScopeOptions::kMinGain, ScopeOptions::kMaxGain, value.gain, notices);
    readBool(s, group + QStringLiteral("/log"), value.log);
}

void writeIntensity(QSettings& s, const QString& group, const ScopeIntensity& value)
{
    s.setValue(group + QStringLiteral("/gain"), value.gain);
    s.setValue(group + QStringLiteral("/log"), value.log);
}

void readGraticule(QSettings& s, const QString& group, ScopeGraticule& value, QStringList& notices)
{
    readName(s, group + QStringLiteral("/scale"), kScales, value.scale, notices);
    readName(s, group + QStringLiteral("/range"), kRanges, value.range, notices);
}

void writeGraticule(QSettings& s, const QString& group, const ScopeGraticule& value)
{
    s.setValue(group + QStringLiteral("/scale"), nameOf(kScales, value.scale));
    s.setValue(group + QStringLiteral("/range"), nameOf(kRanges, value.range));
}

}  // namespace

QStringList ScopeOptions::load(QSettings& s)
{
    *this = ScopeOptions{};
    QStringList notices;
    s.beginGroup(QStringLiteral("scopes"));
    readIntensity(s, QStringLiteral("waveform"), waveform, notices);
    readIntensity(s, QStringLiteral("parade"), parade, notices);
    readIntensity(s, QStringLiteral("vectorscope"), vectorscope, notices);
    readBool(s, QStringLiteral("histogram2d/log"), histogram2dLog);
    readGraticule(s, QStringLiteral("waveform"), waveformGraticule, notices);
    readGraticule(s, QStringLiteral("parade"), paradeGraticule, notices);
    readBool(s, QStringLiteral("waveform/rgb"), rgbWaveform);
    readName(s, QStringLiteral("vectorscope/targets"), kTargets, targets, notices);
    readName(s, QStringLiteral("vectorscope/trace"), kTraces, trace, notices);
    readBool(s, QStringLiteral("vectorscope/skinTone"), skinToneLine);
    readName(s, QStringLiteral("histogram2d/pair"), kPairs, pair, notices);
    readNumber(s, QStringLiteral("exposure"), -kMaxExposure, kMaxExposure, exposure, notices);
    readName(s, QStringLiteral("floatAxis"), kFloatAxes, floatAxis, notices);
    readName(s, QStringLiteral("tab"), kTabNames, tab, notices);
    s.endGroup();
    return notices;
}

void ScopeOptions::save(QSettings& s) const
{
    s.beginGroup(QStringLiteral("scopes"));
    writeIntensity(s, QStringLiteral("waveform"), waveform);
    writeIntensity(s, QStringLiteral("parade"), parade);
    writeIntensity(s, QStringLiteral("vectorscope"), vectorscope);
    s.setValue(QStringLiteral("histogram2d/log"), histogram2dLog);
    writeGraticule(s, QStringLiteral("waveform"), waveformGraticule);
    writeGraticule(s, QStringLiteral("parade"), paradeGraticule);
    s.setValue(QStringLiteral("waveform/rgb"), rgbWaveform);
    s.setValue(QStringLiteral("vectorscope/targets"), nameOf(kTargets, targets));
    s.setValue(QStringLiteral("vectorscope/trace"), nameOf(kTraces, trace));
    s.setValue(QStringLiteral("vectorscope/skinTone"), skinToneLine);
    s.setValue(QStringLiteral("histogram2d/pair"), nameOf(kPairs, pair));
    s.setValue(QStringLiteral("exposure"), exposure);
    s.setValue(QStringLiteral("floatAxis"), nameOf(kFloatAxes, floatAxis));
    s.setValue(QStringLiteral("tab"), nameOf(kTabNames, tab));
    s.endGroup();
}
