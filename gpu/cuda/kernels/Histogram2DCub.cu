// CUB baselines (fused cell iterator, materialized cells) and the read probe of the same bytes.
#include "Histogram2DDevice.cuh"

#include <cstring>

#include <cub/device/device_histogram.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

namespace hs::detail {

namespace {

// ---- CUB ------------------------------------------------------------------------------------------

// One sample's cell, out of line: CUB's sweep unrolls many samples per thread, and inlining the
// whole pixel-to-cell mapping into each of them makes the kernel (and its compile) enormous.
template <typename T>
__device__ __noinline__ int cellOfSample(const Launch2D& L, long long k)
{
    const long long pixel = k / L.map.numPairs;
    const int p = int(k - pixel * L.map.numPairs);
    const long long r = pixel / L.region.width;
    const long long c = pixel - r * L.region.width;
    T px[4];
    loadPixelDev<T, 0>(L.region.d_origin + std::size_t(r) * L.region.pitch + std::size_t(c) * (L.channels * sizeof(T)),
                       L.channels, px);
    const PixelQuantities q = pixelQuantities(L.map, px);
    return int(pairSlot(L.map.pair[p], px, c + L.region.col0, q));
}

template <typename T>
struct CellOfSample {
    const Launch2D* d_launch;   // the launch description in device memory
    __host__ __device__ int operator()(long long k) const
    {
#if defined(__CUDA_ARCH__)
        return cellOfSample<T>(*d_launch, k);
#else
        return int(k & 0);
#endif
    }
};

// Every sample's cell index, materialized for CUB's pointer path.
template <typename T>
__global__ void cellIndexKernel(const __grid_constant__ Launch2D L, int* d_cells)
{
    const long long samples = (long long)L.region.width * L.region.rows * L.map.numPairs;
    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < samples; k += (long long)gridDim.x * blockDim.x)
        d_cells[k] = cellOfSample<T>(L, k);
}

// ---- read probe -----------------------------------------------------------------------------------

__global__ void readProbeKernel(Region2D g, std::size_t rowBytes, unsigned long long* d_sink)
{
    const std::size_t vecs = rowBytes / 16;
    unsigned long long acc = 0;
    const std::uint64_t worker = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::uint64_t workers = std::uint64_t(gridDim.x) * blockDim.x;
    const std::uint64_t total = std::uint64_t(g.rows) * vecs;
    for (std::uint64_t i = worker; i < total; i += workers) {
        const std::uint64_t r = i / vecs;
        const std::uint64_t v = i - r * vecs;
        const uint4 q = __ldg(reinterpret_cast<const uint4*>(g.d_origin + r * g.pitch) + v);
        acc ^= (unsigned long long)(q.x ^ q.y) << 32 | (q.z ^ q.w);
    }
    if (acc == 0x9e3779b97f4a7c15ull)
        *d_sink = acc;
}


}  // namespace

Status launchCub2D(const Launch2D& L, CubScratch2D& scratch, cudaStream_t stream)
{
    const long long samples = (long long)L.region.width * L.region.rows * L.map.numPairs;
    if (samples >= 0x7fffffffLL || L.map.numSlots >= 0x7fffffffu)
        return Status::error(ErrorCode::InvalidArgument, "cub: more than 2^31 samples or slots in one piece");
    return visitTypeChannels2D<false>(L.type, L.channels, [&](auto tag, auto) -> Status {
        using T = decltype(tag);
        if (samples == 0)
            return cudaStatus(cudaMemsetAsync(L.d_counts, 0, std::size_t(L.map.numSlots) * 4, stream), "cudaMemsetAsync");
        // The iterator reads the launch description from device memory, uploaded when it changes.
        if (!scratch.valid || std::memcmp(&scratch.uploaded, &L, sizeof L) != 0) {
            HS_TRY(scratch.launch.reserve(sizeof(Launch2D)));
            HS_CUDA_TRY(cudaMemcpyAsync(scratch.launch.get(), &L, sizeof L, cudaMemcpyHostToDevice, stream));
            HS_CUDA_TRY(cudaStreamSynchronize(stream));  // the host copy may go before the transfer ends
            scratch.uploaded = L;
            scratch.valid = true;
        }
        thrust::transform_iterator<CellOfSample<T>, thrust::counting_iterator<long long>, int> it(
            thrust::counting_iterator<long long>(0), CellOfSample<T>{scratch.launch.get<const Launch2D>()});
        int* d_hist = reinterpret_cast<int*>(L.d_counts);
        const int levels = int(L.map.numSlots) + 1;
        std::size_t bytes = 0;
        HS_CUDA_TRY(cub::DeviceHistogram::HistogramEven(nullptr, bytes, it, d_hist, levels, 0, int(L.map.numSlots), samples, stream));
        HS_TRY(scratch.temp.reserve(std::max<std::size_t>(bytes, 1)));
        HS_CUDA_TRY(cub::DeviceHistogram::HistogramEven(scratch.temp.get(), bytes, it, d_hist, levels, 0, int(L.map.numSlots), samples,
                                                        stream));
        return launched("cub::DeviceHistogram::HistogramEven");
    });
}

Status launchCubMaterialized2D(const Launch2D& L, CubScratch2D& scratch, const Device2D& device, cudaStream_t stream)
{
    const long long samples = (long long)L.region.width * L.region.rows * L.map.numPairs;
    if (samples >= 0x7fffffffLL || L.map.numSlots >= 0x7fffffffu)
        return Status::error(ErrorCode::InvalidArgument, "cub: more than 2^31 samples or slots in one piece");
    if (samples == 0)
        return cudaStatus(cudaMemsetAsync(L.d_counts, 0, std::size_t(L.map.numSlots) * 4, stream), "cudaMemsetAsync");
    DeviceBuffer& cells = scratch.cells;
    DeviceBuffer& temp = scratch.temp;
    HS_TRY(cells.reserve(std::size_t(samples) * sizeof(int)));
    HS_TRY(visitTypeChannels2D<false>(L.type, L.channels, [&](auto tag, auto) -> Status {
        using T = decltype(tag);
        cellIndexKernel<T><<<unsigned(device.multiprocessors) * 8, 256, 0, stream>>>(L, cells.get<int>());
        return launched("cellIndexKernel");
    }));
    int* d_hist = reinterpret_cast<int*>(L.d_counts);
    const int levels = int(L.map.numSlots) + 1;
    std::size_t bytes = 0;
    HS_CUDA_TRY(cub::DeviceHistogram::HistogramEven(nullptr, bytes, cells.get<int>(), d_hist, levels, 0, int(L.map.numSlots),
                                                    samples, stream));
    HS_TRY(temp.reserve(std::max<std::size_t>(bytes, 1)));
    HS_CUDA_TRY(cub::DeviceHistogram::HistogramEven(temp.get(), bytes, cells.get<int>(), d_hist, levels, 0,
                                                    int(L.map.numSlots), samples, stream));
    return launched("cub::DeviceHistogram::HistogramEven (materialized)");
}

Status launchReadProbe2D(const Region2D& region, std::size_t pixelBytes, unsigned long long* d_sink, const Device2D& device,
                         cudaStream_t stream)
{
    const std::size_t rowBytes = std::size_t(region.width) * pixelBytes;
    if ((reinterpret_cast<std::uintptr_t>(region.d_origin) & 15u) || (region.pitch & 15u))
        return Status::error(ErrorCode::InvalidArgument, "read probe: rows must be 16-byte aligned");
    const unsigned blocks = unsigned(device.multiprocessors) * 8;
    readProbeKernel<<<blocks, 256, 0, stream>>>(region, rowBytes, d_sink);
    return launched("readProbeKernel");
}


}  // namespace hs::detail
