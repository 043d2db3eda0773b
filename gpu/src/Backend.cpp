// The defaults of the backend interface, for a backend without device memory (the CPU one).
// They live in the engine core, beside the backends that inherit them, so any link order works.
#include "Backend.h"

namespace hs {

namespace detail {

Status Backend::allocateDevice(std::size_t, std::shared_ptr<void>&)
{
    return Status::error(ErrorCode::NoDevice, "no CUDA device: device memory is unavailable");
}

Status Backend::copyToDevice(const void*, std::size_t, void*)
{
    return Status::error(ErrorCode::NoDevice, "no CUDA device: device memory is unavailable");
}

Status Backend::copyToHost(const void*, std::size_t, void*)
{
    return Status::error(ErrorCode::NoDevice, "no CUDA device: device memory is unavailable");
}

Status Backend::readProbe(const void*, std::size_t, double&)
{
    return Status::error(ErrorCode::NoDevice, "no CUDA device: the read probe needs one");
}

Status Backend::injectFault()
{
    return Status::error(ErrorCode::DeviceLost, "the device faulted (injected by the test hook)");
}

}  // namespace detail

}  // namespace hs
