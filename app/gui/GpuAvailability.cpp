#include "app/gui/GpuAvailability.h"

#include "histoscope/HistogramEngine.h"

#include <QCoreApplication>

GpuAvailability GpuAvailability::detect()
{
    if (!hs::HistogramEngine::builtWithCuda())
        return {false, QCoreApplication::translate("GpuAvailability", "this build of HistoScope has no CUDA support")};
    if (hs::HistogramEngine::cudaDeviceCount() == 0)
        return {false, QCoreApplication::translate("GpuAvailability", "no CUDA device was found")};
    return {true, {}};
}

QString fallBackWithoutGpu(CountSettings& counting, const GpuAvailability& gpu)
{
    if (gpu.present || !hs::isGpuStrategy(counting.strategy))
        return {};
    const QString saved = strategyDisplayName(counting.strategy);
    counting.strategy = hs::Strategy::Auto;
    return QCoreApplication::translate("GpuAvailability", "Saved strategy \"%1\" needs a GPU, and %2: counting with \"auto\"")
        .arg(saved, gpu.reason);
}
