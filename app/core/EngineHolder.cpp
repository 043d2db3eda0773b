#include "app/core/EngineHolder.h"

QString engineDescription(const hs::HistogramEngine& engine)
{
    return engine.hasGpu() ? QStringLiteral("GPU: %1").arg(QString::fromStdString(engine.deviceInfo()->name))
                           : QStringLiteral("CPU (%1)").arg(QString::fromStdString(engine.notice()));
}

QString engineDescription(const hs::Histogram2DEngine& engine)
{
    return engine.hasGpu() ? QStringLiteral("GPU") : QStringLiteral("CPU");
}
