// RAII owners for device memory, pinned host memory, streams and events. Buffers only grow,
// so frames of a steady size reuse them with no allocation on the hot path.
#pragma once

#include "CudaCheck.h"
#include "DeviceHealth.h"

#include <cstddef>
#include <utility>

namespace hs::detail {

template <cudaError_t (*Alloc)(void**, std::size_t), cudaError_t (*Free)(void*)>
class GrowingBuffer {
public:
    GrowingBuffer() = default;
    ~GrowingBuffer() { release(); }
    GrowingBuffer(const GrowingBuffer&) = delete;
    GrowingBuffer& operator=(const GrowingBuffer&) = delete;

    Status reserve(std::size_t bytes)
    {
        if (bytes <= m_capacity)
            return Status::success();
        release();
        HS_CUDA_TRY(Alloc(&m_ptr, bytes));
        m_capacity = bytes;
        m_stamp = ContextStamp::current();
        return Status::success();
    }
    template <typename T = void>
    T* get() const { return static_cast<T*>(m_ptr); }
    std::size_t capacity() const { return m_capacity; }

private:
    void release()
    {
        if (m_ptr && m_stamp.live())   // a reset context freed it already
            reportRelease(Free(m_ptr), "freeing a device or pinned buffer");
        m_ptr = nullptr;
        m_capacity = 0;
    }
    void* m_ptr = nullptr;
    std::size_t m_capacity = 0;
    ContextStamp m_stamp;
};

inline cudaError_t deviceAlloc(void** p, std::size_t bytes) { return cudaMalloc(p, bytes); }
inline cudaError_t pinnedAlloc(void** p, std::size_t bytes) { return cudaMallocHost(p, bytes); }

using DeviceBuffer = GrowingBuffer<deviceAlloc, cudaFree>;
using PinnedBuffer = GrowingBuffer<pinnedAlloc, cudaFreeHost>;

class CudaStream {
public:
    CudaStream() = default;
    ~CudaStream()
    {
        if (m_stream && m_stamp.live())
            reportRelease(cudaStreamDestroy(m_stream), "cudaStreamDestroy");
    }
    CudaStream(const CudaStream&) = delete;
    CudaStream& operator=(const CudaStream&) = delete;
    Status create()
    {
        m_stamp = ContextStamp::current();
        return cudaStatus(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking), "cudaStreamCreate");
    }
    cudaStream_t get() const { return m_stream; }

private:
    cudaStream_t m_stream = nullptr;
    ContextStamp m_stamp;
};

class CudaEvent {
public:
    CudaEvent() = default;
    ~CudaEvent()
    {
        if (m_event && m_stamp.live())
            reportRelease(cudaEventDestroy(m_event), "cudaEventDestroy");
    }
    CudaEvent(CudaEvent&& other) noexcept : m_event(std::exchange(other.m_event, nullptr)), m_stamp(other.m_stamp) {}
    CudaEvent(const CudaEvent&) = delete;
    CudaEvent& operator=(const CudaEvent&) = delete;
    Status create()
    {
        m_stamp = ContextStamp::current();
        return cudaStatus(cudaEventCreate(&m_event), "cudaEventCreate");
    }
    cudaEvent_t get() const { return m_event; }

private:
    cudaEvent_t m_event = nullptr;
    ContextStamp m_stamp;
};

}  // namespace hs::detail
