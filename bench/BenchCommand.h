// `histoscope-bench` and `histoscope-cli bench` share this entry point. Its argument parsing is
// hand-written because the GPU machine that runs it has no Qt.
#pragma once

#include <string>
#include <vector>

namespace hs::bench {

int runBenchCommand(const std::vector<std::string>& args);

// `--filter` and `--only`: a comma-separated list of name fragments, any of which the name must
// contain; empty matches everything.
bool matchesFilter(const std::string& name, const std::string& filter);

struct SelfCheckOptions {
    bool big = false;          // also a bin with more than 2^32 counts (about 4.3 GB of input)
    bool hostOnly = false;     // skip device-memory inputs
    std::string filter;        // only cases whose name contains one of these (comma-separated)
};
int runSelfCheck(const SelfCheckOptions& options);

// `fault`: a real GPU fault, then every engine's recovery from it (FaultCheck.cpp).
int runFaultCheck();

struct BenchmarkOptions {
    std::string csvPath = "bench.csv";
    std::string plotPath;      // SVG of the skew sweep; empty: next to the CSV
    int repeats = 20;
    bool quick = false;        // smaller matrix, for a smoke run
    bool cpuMode = false;      // time the CPU backend on a 4K RGB frame
    std::string only;          // run only workloads whose name contains one of these (comma-separated)
    std::vector<unsigned> bins; // run only workloads with one of these bin counts (empty: all)
    std::string strategies;    // comma-separated strategy names to time (empty: all)
};
int runBenchmark(const BenchmarkOptions& options);

// `keys FILE`: one strategy on a file of keys, for the peers script (bench/peers.py).
struct KeysFileOptions {
    std::string path;
    std::string type = "u32";
    unsigned bins = 0;
    std::string strategy = "auto";
    std::string countsPath;    // exact counts as little-endian u64, one per bin
    int repeats = 20;
};
int runKeysFile(const KeysFileOptions& options);

// `calls`: where the wall time of a count of device input goes (CallCost.cpp).
int runCallCost(int repeats);

}  // namespace hs::bench
