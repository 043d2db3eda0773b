#include "HostStaging.h"

#include "HostCopyThreads.h"

#include <omp.h>

#include <algorithm>
#include <cstring>

namespace hs::detail {

namespace {

// Below this a single memcpy beats waking the team; each thread gets at least this much.
constexpr std::size_t kParallelBytes = std::size_t(1) << 20;
constexpr std::size_t kBytesPerThread = std::size_t(256) << 10;

}  // namespace

void packRows(unsigned char* dst, const unsigned char* src, std::size_t srcPitch, std::size_t rowBytes, std::int64_t rows)
{
    const std::size_t bytes = rowBytes * std::size_t(rows);
    const int threads = hostCopyThreads(std::int64_t(std::max<std::size_t>(1, bytes / kBytesPerThread)));
    if (srcPitch == rowBytes) {
        // One contiguous range: equal slices, whatever the row length.
        if (bytes < kParallelBytes || threads < 2) {
            std::memcpy(dst, src, bytes);
            return;
        }
#pragma omp parallel num_threads(threads)
        {
            const std::size_t n = std::size_t(omp_get_num_threads()), t = std::size_t(omp_get_thread_num());
            const std::size_t begin = bytes * t / n, end = bytes * (t + 1) / n;
            std::memcpy(dst + begin, src + begin, end - begin);
        }
        return;
    }
#pragma omp parallel for schedule(static) num_threads(threads) if (bytes >= kParallelBytes && threads > 1)
    for (std::int64_t r = 0; r < rows; ++r)
        std::memcpy(dst + std::size_t(r) * rowBytes, src + std::size_t(r) * srcPitch, rowBytes);
}

Status ChunkedUpload::create()
{
    HS_TRY(m_free[0].create());
    HS_TRY(m_free[1].create());
    return m_started.create();
}

Status ChunkedUpload::upload(const unsigned char* src, std::size_t srcPitch, std::size_t rowBytes, std::int64_t rows,
                             unsigned char* d_dst, std::size_t dstPitch, cudaStream_t stream)
{
    if (rows <= 0 || rowBytes == 0)
        return cudaStatus(cudaEventRecord(m_started.get(), stream), "cudaEventRecord");
    if (rowBytes > kChunkBytes) {
        // A row longer than a chunk (a flat array of pairs is one row): the caller's memory goes
        // up as it did before the chunks, through the driver, rather than pinning a buffer of a
        // row's size for the engine's lifetime.
        HS_CUDA_TRY(cudaEventRecord(m_started.get(), stream));
        return cudaStatus(cudaMemcpy2DAsync(d_dst, dstPitch, src, srcPitch, rowBytes, std::size_t(rows), cudaMemcpyHostToDevice,
                                            stream),
                          "cudaMemcpy2DAsync");
    }
    const std::int64_t rowsPerChunk = std::int64_t(kChunkBytes / rowBytes);
    const std::size_t chunkBytes = rowBytes * std::size_t(std::min(rowsPerChunk, rows));
    for (std::int64_t r = 0; r < rows; r += rowsPerChunk) {
        const std::int64_t n = std::min(rowsPerChunk, rows - r);
        const int b = m_next;
        m_next = 1 - m_next;
        // The copy of the chunk before last may still read this buffer; once it has, the buffer
        // may grow (a frame that needs one chunk pins one buffer).
        HS_CUDA_TRY(cudaEventSynchronize(m_free[b].get()));
        HS_TRY(m_pinned[b].reserve(chunkBytes));
        unsigned char* staging = m_pinned[b].get<unsigned char>();
        packRows(staging, src + std::size_t(r) * srcPitch, srcPitch, rowBytes, n);
        if (r == 0)
            HS_CUDA_TRY(cudaEventRecord(m_started.get(), stream));
        HS_CUDA_TRY(cudaMemcpy2DAsync(d_dst + std::size_t(r) * dstPitch, dstPitch, staging, rowBytes, rowBytes, std::size_t(n),
                                      cudaMemcpyHostToDevice, stream));
        HS_CUDA_TRY(cudaEventRecord(m_free[b].get(), stream));
    }
    return Status::success();
}

}  // namespace hs::detail
