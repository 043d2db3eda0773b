// Linked instead of the CUDA target in a CUDA-less build.
#include "CudaBackendFactory.h"

namespace hs::detail {

int cudaDeviceCountOrZero() { return 0; }

std::unique_ptr<Backend> makeCudaBackend(const EngineOptions&, std::string& why)
{
    why = "HistoScope was built without CUDA: counting on the CPU";
    return nullptr;
}

}  // namespace hs::detail
