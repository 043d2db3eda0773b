// Engines of the Python module, one per thread and device, as the engine's thread contract asks
// (gpu/include/histoscope/HistogramEngine.h): a thread's first call builds its engine, later calls
// of that thread reuse it, and no engine is ever used by two threads.
#pragma once

#include "histoscope/Histogram2D.h"
#include "histoscope/HistogramEngine.h"

namespace hs::python {

// Which engine: a GPU engine on `device` (0 and up; it falls back to the CPU when the device is
// missing, and says so in its notice), or kCpuOnly for one that never touches a GPU.
inline constexpr int kCpuOnly = -1;

HistogramEngine& engineFor(int device);
Histogram2DEngine& engine2DFor(int device);
// After ErrorCode::DeviceLost the engine stays lost: this thread's next call builds a new one.
void forgetEngines(int device);
// This thread's engines go now: at interpreter exit, before the CUDA runtime is torn down.
void releaseThreadEngines();

// Raises the Python exception for a failed status: ValueError for a request the engine refuses
// (InvalidArgument, UnsupportedStrategy), RuntimeError for the engine's and the device's faults,
// with the engine's own message. Does nothing for success.
void raiseOnError(const Status& status, int device);

}  // namespace hs::python
