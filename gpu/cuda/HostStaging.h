// Host frames on their way to the device. A pageable copy (cudaMemcpy2DAsync from the caller's
// memory) is staged by the driver through a small pinned buffer on one thread: a 4K RGB frame
// took about 6 ms. Packing the rows into our own pinned memory on every core, chunk by chunk,
// while the previous chunk crosses the bus, moves it at the bus's speed.
#pragma once

#include "DeviceMemory.h"

#include <cstddef>
#include <cstdint>

namespace hs::detail {

// Copies `rows` rows of `rowBytes` bytes, `srcPitch` apart, into `dst` packed (rows back to back);
// the host's cores share the copy from a megabyte up (memcpy alone does what none of them can:
// move the bytes; OpenMP only splits the range).
void packRows(unsigned char* dst, const unsigned char* src, std::size_t srcPitch, std::size_t rowBytes, std::int64_t rows);

// Uploads pitched host rows into pitched device rows through two pinned buffers of kChunkBytes:
// the host packs chunk k + 1 while chunk k is copied, in the caller's stream. Rows longer than a
// chunk go up from the caller's memory as they are.
class ChunkedUpload {
public:
    Status create();
    Status upload(const unsigned char* src, std::size_t srcPitch, std::size_t rowBytes, std::int64_t rows,
                  unsigned char* d_dst, std::size_t dstPitch, cudaStream_t stream);
    // Recorded in the stream just before the first chunk's copy: the upload phase's start, after
    // the host packed that chunk (as the 1-D backend's Upload mark follows its staging).
    cudaEvent_t started() const { return m_started.get(); }

    static constexpr std::size_t kChunkBytes = std::size_t(4) << 20;

private:
    PinnedBuffer m_pinned[2];
    CudaEvent m_free[2];
    CudaEvent m_started;
    int m_next = 0;
};

}  // namespace hs::detail
