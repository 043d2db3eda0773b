// The seam between the always-built engine and the optional CUDA target.
#pragma once

#include "Backend.h"

#include <memory>

namespace hs::detail {

int cudaDeviceCountOrZero();
// Null with `why` set when no usable device is present.
std::unique_ptr<Backend> makeCudaBackend(const EngineOptions& options, std::string& why);

}  // namespace hs::detail
