// Frame index -> "hh:mm:ss:ff" at a source's rate (non-drop-frame: a 29.97 fps source counts
// frames 0..29 in each of its nominal seconds, as editors show it).
#pragma once

#include <QString>

#include <cmath>

inline QString timecode(qint64 frameIndex, double fps)
{
    if (frameIndex < 0)
        return QStringLiteral("--:--:--:--");
    const qint64 perSecond = fps > 0 ? std::max<qint64>(1, qint64(std::llround(fps))) : 1;
    const qint64 ff = frameIndex % perSecond;
    const qint64 totalSeconds = frameIndex / perSecond;
    return QStringLiteral("%1:%2:%3:%4")
        .arg(totalSeconds / 3600, 2, 10, QLatin1Char('0'))
        .arg((totalSeconds / 60) % 60, 2, 10, QLatin1Char('0'))
        .arg(totalSeconds % 60, 2, 10, QLatin1Char('0'))
        .arg(ff, perSecond > 100 ? 3 : 2, 10, QLatin1Char('0'));
}
