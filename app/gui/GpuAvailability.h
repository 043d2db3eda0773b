// Whether this process can count on a GPU, asked once when the window starts: a GPU strategy or
// "Use the GPU" saved on a machine with a device must not break a later session on one
// without. A plain value, so a test can stand for either machine.
#pragma once

#include "app/core/HistogramSettings.h"

#include <QString>

struct GpuAvailability {
    bool present = false;
    QString reason;   // why there is none, in the user's words; empty when present

    // The CUDA devices this process sees (a driver query, no engine is built).
    static GpuAvailability detect();
};

// A GPU strategy loaded from the settings of a process without a GPU becomes `auto`; returns the
// notice that says so, or nothing when nothing changed. "Use the GPU" is kept as stored: it is
// only not offered here, and a machine with a device uses it again.
QString fallBackWithoutGpu(CountSettings& counting, const GpuAvailability& gpu);
