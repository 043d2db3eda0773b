// Whether a device's context is still the one an engine was built in, for every engine of the
// process. A sticky CUDA error (a kernel that faulted) ruins the context for every engine on
// that device, not only for the one that saw it: the first engine built after the fault resets
// the context (cudaDeviceReset) once, under an exclusive lock, and every engine of the old
// context then answers DeviceLost without touching its stale handles, so its holder rebuilds it.
// Working calls hold the context shared, so no reset runs under a call in flight.
#pragma once

#include "../src/Try.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <shared_mutex>

namespace hs::detail {

class DeviceHealth {
public:
    explicit DeviceHealth(int device);

    // Runs one working call with the context held; DeviceLost, without running it, when the
    // context was reset since this engine was built. A DeviceLost answer marks the device faulted.
    Status call(const std::function<Status()>& work);
    // Held through a backend's destruction: no reset between a stamp's check and its free.
    std::shared_lock<std::shared_mutex> hold() const;

    // Before a new engine's first CUDA call: resets the device's context if it faulted.
    static Status recoverIfFaulted(int device);
    // Whether this process has reset the device after a fault. CUDA may refuse the device for the
    // rest of the process then (the H200 answers cudaErrorDevicesUnavailable): a new engine says so.
    static bool wasReset(int device);

private:
    int m_device;
    std::uint64_t m_generation;
};

// The context an allocation, stream or event was made in: its owner frees it only there (a
// reset context took it with it).
struct ContextStamp {
    int device = -1;
    std::uint64_t generation = 0;
    static ContextStamp current();   // the calling thread's current device, now
    bool live() const;
};

// A release whose result has no caller to go to (a destructor's cudaFree, cudaStreamDestroy,
// cudaEventDestroy): reported on stderr, once per process for each `what`, and never thrown.
void reportRelease(cudaError_t error, const char* what);

}  // namespace hs::detail
