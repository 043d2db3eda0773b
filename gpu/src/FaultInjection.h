// The test hook of EngineDiagnostics.h (injectDeviceLost): which working call of the process
// faults. Process-wide on purpose: a batch or an app holds several engines on several threads,
// and the tests pick the call, not the engine.
#pragma once

namespace hs::detail {

// Counts one working call; true when the hook says this one faults.
bool takeInjectedFault();

}  // namespace hs::detail
