// Linked instead of the CUDA 2-D backend in a CUDA-less build.
#include "Histogram2DBackend.h"

namespace hs::detail {

std::unique_ptr<Backend2D> makeCuda2DBackend(const EngineOptions&, std::string& why)
{
    why = "HistoScope was built without CUDA: counting on the CPU";
    return nullptr;
}

}  // namespace hs::detail
