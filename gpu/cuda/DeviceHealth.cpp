#include "DeviceHealth.h"

#include "CudaCheck.h"

#include <array>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <set>
#include <string>

namespace hs::detail {

namespace {

constexpr int kMaxDevices = 64;

struct ContextState {
    mutable std::shared_mutex mutex;
    std::atomic<std::uint64_t> generation{1};
    std::atomic<bool> faulted{false};
    std::atomic<bool> reset{false};
};

ContextState* state(int device)
{
    static std::array<ContextState, kMaxDevices> states;
    return device >= 0 && device < kMaxDevices ? &states[std::size_t(device)] : nullptr;
}

}  // namespace

DeviceHealth::DeviceHealth(int device)
    : m_device(device), m_generation(state(device) ? state(device)->generation.load() : 0)
{
}

Status DeviceHealth::call(const std::function<Status()>& work)
{
    ContextState* s = state(m_device);
    if (!s)
        return work();
    std::shared_lock lock(s->mutex);
    if (s->generation.load() != m_generation)
        return Status::error(ErrorCode::DeviceLost,
                             "the GPU was reset after a fault, and this engine's buffers went with it");
    Status result = work();
    if (result.code == ErrorCode::DeviceLost)
        s->faulted = true;
    return result;
}

std::shared_lock<std::shared_mutex> DeviceHealth::hold() const
{
    ContextState* s = state(m_device);
    return s ? std::shared_lock(s->mutex) : std::shared_lock<std::shared_mutex>();
}

Status DeviceHealth::recoverIfFaulted(int device)
{
    ContextState* s = state(device);
    if (!s || !s->faulted.load())
        return Status::success();
    std::unique_lock lock(s->mutex);
    if (!s->faulted.load())
        return Status::success();   // another engine reset it while this one waited
    HS_CUDA_TRY(cudaSetDevice(device));
    // Destroys the faulted primary context; the next call makes a fresh one. Every owner stamped
    // with the old generation now skips its free.
    const cudaError_t reset = cudaDeviceReset();
    ++s->generation;
    s->faulted = false;
    s->reset = true;
    return cudaStatus(reset, "cudaDeviceReset after a GPU fault");
}

bool DeviceHealth::wasReset(int device)
{
    const ContextState* s = state(device);
    return s && s->reset.load();
}

ContextStamp ContextStamp::current()
{
    ContextStamp stamp;
    if (cudaGetDevice(&stamp.device) != cudaSuccess) {
        cudaGetLastError();
        stamp.device = -1;
    }
    if (ContextState* s = state(stamp.device))
        stamp.generation = s->generation.load();
    return stamp;
}

bool ContextStamp::live() const
{
    const ContextState* s = state(device);
    return s && s->generation.load() == generation;
}

void reportRelease(cudaError_t error, const char* what)
{
    if (error == cudaSuccess)
        return;
    cudaGetLastError();
    static std::mutex mutex;
    static std::set<std::string> said;
    std::lock_guard lock(mutex);
    if (said.insert(what).second)
        std::fprintf(stderr, "histoscope: %s failed: %s (%s); later failures of it are not repeated\n", what,
                     cudaGetErrorName(error), cudaGetErrorString(error));
}

}  // namespace hs::detail
