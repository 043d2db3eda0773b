// A per-engine memo of what the driver says about each kernel: resident blocks per multiprocessor
// for a (kernel, block size, shared bytes) and the dynamic shared-memory limit already granted.
// Asked afresh, the two cost host microseconds on every launch of every call.
#pragma once

#include "CudaCheck.h"

#include <cstddef>
#include <map>
#include <set>
#include <tuple>

namespace hs::detail {

class LaunchCache {
public:
    Status blocksPerMultiprocessor(const void* kernel, int threads, std::size_t smemBytes, int& blocks)
    {
        const auto key = std::make_tuple(kernel, threads, smemBytes);
        if (const auto it = m_occupancy.find(key); it != m_occupancy.end()) {
            blocks = it->second;
            return Status::success();
        }
        HS_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, smemBytes));
        m_occupancy.emplace(key, blocks);
        return Status::success();
    }

    // The kernel's static shared memory, which comes out of every budget before its dynamic part.
    Status staticSharedBytes(const void* kernel, std::size_t& bytes)
    {
        if (const auto it = m_static.find(kernel); it != m_static.end()) {
            bytes = it->second;
            return Status::success();
        }
        cudaFuncAttributes attributes{};
        HS_CUDA_TRY(cudaFuncGetAttributes(&attributes, kernel));
        bytes = attributes.sharedSizeBytes;
        m_static.emplace(kernel, bytes);
        return Status::success();
    }

    // Lets the kernel take more than the default 48 KiB of shared memory. The limit is a property
    // of the function, shared by every engine of the process, so it is always raised to all the
    // device allows beside the kernel's static part: no engine can lower it under another's launch.
    Status allowDynamicShared(const void* kernel, std::size_t bytes, std::size_t optinBytes)
    {
        if (bytes <= 48 * 1024 || m_granted.count(kernel))
            return Status::success();
        std::size_t fixed = 0;
        HS_TRY(staticSharedBytes(kernel, fixed));
        HS_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(optinBytes - fixed)));
        m_granted.insert(kernel);
        return Status::success();
    }

private:
    std::map<std::tuple<const void*, int, std::size_t>, int> m_occupancy;
    std::set<const void*> m_granted;
    std::map<const void*, std::size_t> m_static;
};

}  // namespace hs::detail
