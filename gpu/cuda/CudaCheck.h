// Every CUDA call goes through here so its error travels upward as a Status.
#pragma once

#include "../src/Try.h"
#include "histoscope/HistogramTypes.h"

#include <cuda_runtime.h>

#include <string>

namespace hs::detail {

// The errors after which the context is ruined for every later call of the process (CUDA's
// "sticky" errors: a kernel that faulted, a lost or reset context). Each becomes DeviceLost.
inline bool contextLost(cudaError_t error)
{
    switch (error) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorLaunchTimeout:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorECCUncorrectable:
    case cudaErrorContextIsDestroyed:
    case cudaErrorDeviceUninitialized:
    case cudaErrorExternalDevice:
        return true;
    default:
        return false;
    }
}

inline Status cudaStatus(cudaError_t error, const char* what)
{
    if (error == cudaSuccess)
        return Status::success();
    // Reported here, so reset: a later launch check must not find this error again and blame
    // itself (a sticky error stays whatever is done).
    cudaGetLastError();
    const ErrorCode code = error == cudaErrorMemoryAllocation ? ErrorCode::OutOfMemory
        : contextLost(error)                                 ? ErrorCode::DeviceLost
                                                             : ErrorCode::CudaError;
    const std::string prefix = code == ErrorCode::DeviceLost ? "the GPU faulted: " : "";
    return Status::error(code, prefix + what + ": " + cudaGetErrorName(error) + " (" + cudaGetErrorString(error) + ")");
}

}  // namespace hs::detail

// Returns the failing call's Status from the enclosing function.
#define HS_CUDA_TRY(call)                                                                   \
    do {                                                                                    \
        if (::hs::Status hs_status_ = ::hs::detail::cudaStatus((call), #call); !hs_status_) \
            return hs_status_;                                                              \
    } while (0)
