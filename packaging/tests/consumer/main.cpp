// Counts keys given on the command line with the installed engine and prints the counts and
// the median: what check_install.cmake compares with the keys' own counts.
#include "histoscope/HistogramEngine.h"
#include "histoscope/HistogramStatistics.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv)
{
    std::vector<std::uint32_t> keys;
    for (int i = 1; i < argc; ++i)
        keys.push_back(std::uint32_t(std::strtoul(argv[i], nullptr, 10)));
    hs::HistogramEngine engine({.useGpu = false});
    hs::ChannelBinning binning;
    binning.bins = 8;
    binning.lo = 0;
    binning.hi = 8;
    binning.identity = true;
    hs::HistogramResult result;
    const hs::Status status = engine.compute(hs::makeRequest(hs::keysView(keys.data(), keys.size(), hs::SampleType::U32), binning), result);
    if (!status) {
        std::fprintf(stderr, "consumer: %s\n", status.message.c_str());
        return 1;
    }
    const hs::ChannelHistogram& h = result.channels.front();
    std::printf("counts");
    for (std::uint64_t c : h.counts)
        std::printf(" %llu", static_cast<unsigned long long>(c));
    std::printf(" above %llu median %g\n", static_cast<unsigned long long>(h.above), hs::computeStatistics(h).median);
    return 0;
}
