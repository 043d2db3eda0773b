// The vendor's image peer (issue 21): NVIDIA NPP's nppiHistogramEven on the benchmark's 8-bit image
// cells, each count checked exactly against a CPU count first, then timed with CUDA events after a
// warm-up (median of many runs) beside a read probe of the same bytes, as histoscope-bench times
// its strategies. bench/ takes no CUDA header (the layering test), so this peer is a program of
// its own, built where NPP is installed:
//   nvcc -O3 -arch=sm_90 -o npp_peer scripts/npp_peer.cu -lnppist -lnppc && ./npp_peer
#include "ProbeCommon.cuh"

#include <npp.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#define NPP_CHECK(x)                                                                  \
    do {                                                                              \
        NppStatus s_ = (x);                                                           \
        if (s_ != NPP_SUCCESS) {                                                      \
            std::fprintf(stderr, "%s:%d %s: NPP status %d\n", __FILE__, __LINE__, #x, int(s_)); \
            std::exit(2);                                                             \
        }                                                                             \
    } while (0)

int main(int argc, char** argv)
{
    const int repeats = argc > 1 ? std::atoi(argv[1]) : 50;
    cudaDeviceProp prop{};
    CHECK(cudaGetDeviceProperties(&prop, 0));
    const NppLibraryVersion* version = nppGetLibVersion();
    std::printf("device: %s; NPP %d.%d.%d\n", prop.name, version->major, version->minor, version->build);
    NppStreamContext ctx{};
    ctx.hStream = 0;
    ctx.nCudaDeviceId = 0;
    ctx.nMultiProcessorCount = prop.multiProcessorCount;
    ctx.nMaxThreadsPerMultiProcessor = prop.maxThreadsPerMultiProcessor;
    ctx.nMaxThreadsPerBlock = prop.maxThreadsPerBlock;
    ctx.nSharedMemPerBlock = prop.sharedMemPerBlock;
    ctx.nCudaDevAttrComputeCapabilityMajor = prop.major;
    ctx.nCudaDevAttrComputeCapabilityMinor = prop.minor;
    CHECK(cudaStreamGetFlags(ctx.hStream, &ctx.nStreamFlags));

    struct Cell {
        std::string name;
        int channels;
        int width, height;
        bool constant;
    };
    const std::vector<Cell> cells = {{"rgb4k/noise", 3, 3840, 2160, false},   {"rgb4k/constant", 3, 3840, 2160, true},
                                     {"rgba4k/noise", 4, 3840, 2160, false},  {"rgb8k/noise", 3, 7680, 4320, false},
                                     {"rgb1080p/noise", 3, 1920, 1080, false}, {"bytes64M/noise", 1, 8192, 8192, false},
                                     {"bytes64M/constant", 1, 8192, 8192, true}};
    std::mt19937_64 rng(20261203);
    int failures = 0;
    for (const Cell& cell : cells) {
        const std::size_t bytes = std::size_t(cell.width) * cell.height * cell.channels;
        std::vector<unsigned char> host(bytes);
        const unsigned char hot = static_cast<unsigned char>(rng() & 255);
        for (auto& b : host)
            b = cell.constant ? hot : static_cast<unsigned char>(rng());
        std::vector<long long> expected(std::size_t(cell.channels) * 256, 0);
        for (std::size_t i = 0; i < bytes; ++i)
            expected[(i % cell.channels) * 256 + host[i]]++;
        unsigned char* d_in = nullptr;
        Npp32s* d_hist = nullptr;
        unsigned long long* sink = nullptr;
        CHECK(cudaMalloc(&d_in, bytes));
        CHECK(cudaMalloc(&d_hist, 4 * 256 * sizeof(Npp32s)));
        CHECK(cudaMalloc(&sink, 8));
        CHECK(cudaMemcpy(d_in, host.data(), bytes, cudaMemcpyHostToDevice));
        const NppiSize roi{cell.width, cell.height};
        const int step = cell.width * cell.channels;
        int levels[4] = {257, 257, 257, 257};
        Npp32s lower[4] = {0, 0, 0, 0}, upper[4] = {256, 256, 256, 256};
        Npp32s* hists[4] = {d_hist, d_hist + 256, d_hist + 512, d_hist + 768};
        std::size_t bufferBytes = 0;
        if (cell.channels == 1)
            NPP_CHECK(nppiHistogramEvenGetBufferSize_8u_C1R_Ctx(roi, 257, &bufferBytes, ctx));
        else if (cell.channels == 3)
            NPP_CHECK(nppiHistogramEvenGetBufferSize_8u_C3R_Ctx(roi, levels, &bufferBytes, ctx));
        else
            NPP_CHECK(nppiHistogramEvenGetBufferSize_8u_C4R_Ctx(roi, levels, &bufferBytes, ctx));
        Npp8u* d_buffer = nullptr;
        CHECK(cudaMalloc(&d_buffer, std::max<std::size_t>(bufferBytes, 1)));
        auto run = [&] {
            if (cell.channels == 1)
                NPP_CHECK(nppiHistogramEven_8u_C1R_Ctx(d_in, step, roi, d_hist, 257, 0, 256, d_buffer, ctx));
            else if (cell.channels == 3)
                NPP_CHECK(nppiHistogramEven_8u_C3R_Ctx(d_in, step, roi, hists, levels, lower, upper, d_buffer, ctx));
            else
                NPP_CHECK(nppiHistogramEven_8u_C4R_Ctx(d_in, step, roi, hists, levels, lower, upper, d_buffer, ctx));
        };
        CHECK(cudaMemset(d_hist, 0xa5, 4 * 256 * sizeof(Npp32s)));  // poisoned: every bin must be written
        run();
        CHECK(cudaDeviceSynchronize());
        std::vector<Npp32s> got(std::size_t(cell.channels) * 256);
        CHECK(cudaMemcpy(got.data(), d_hist, got.size() * sizeof(Npp32s), cudaMemcpyDeviceToHost));
        bool exact = true;
        for (std::size_t i = 0; i < got.size(); ++i)
            exact &= (long long)(std::uint32_t(got[i])) == expected[i];
        const double probe = medianEventMs([&] {
            readProbe<<<prop.multiProcessorCount * 8, 256>>>(reinterpret_cast<const uint4*>(d_in), bytes / 16, sink);
        }, repeats);
        const double npp = medianEventMs(run, repeats);
        std::printf("npp %-18s %s | read-probe %.4f ms | nppiHistogramEven %.4f ms | x probe %.2f\n", cell.name.c_str(),
                    exact ? "exact" : "MISMATCH", probe, npp, npp / probe);
        std::fflush(stdout);
        failures += !exact;
        CHECK(cudaFree(d_in));
        CHECK(cudaFree(d_hist));
        CHECK(cudaFree(sink));
        CHECK(cudaFree(d_buffer));
    }
    std::printf("npp peer: %s\n", failures ? "MISMATCH" : "all exact");
    return failures ? 1 : 0;
}
