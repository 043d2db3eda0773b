#include "bench/BenchCommand.h"

#include "histoscope/HistogramTypes.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>

namespace hs::bench {

namespace {

void printUsage()
{
    std::cout << "usage: histoscope-bench [--list-strategies]\n"
                 "       histoscope-bench selfcheck [--big] [--host-only] [--filter TEXT]\n"
                 "       histoscope-bench fault   (a real GPU fault, then the engines' recovery; never under a sanitizer)\n"
                 "       histoscope-bench run [--csv FILE] [--plot FILE.svg] [--repeats N] [--quick] [--only TEXT[,TEXT...]] [--bins N[,N...]] [--strategies A,B]\n"
                 "       histoscope-bench cpu   (CPU backend on a 4K RGB frame)\n"
                 "       histoscope-bench keys FILE --type u32 --bins N [--strategy S] [--counts OUT] [--repeats N]\n"
                 "       histoscope-bench calls [--repeats N]   (where a device count's wall time goes)\n";
}

bool takeValue(const std::vector<std::string>& args, std::size_t& i, std::string& value)
{
    if (i + 1 >= args.size()) {
        std::cerr << "histoscope-bench: " << args[i] << " needs a value\n";
        return false;
    }
    value = args[++i];
    return true;
}

// The non-empty items of a comma-separated list.
std::vector<std::string> commaItems(const std::string& list)
{
    std::vector<std::string> items;
    for (std::size_t start = 0; start <= list.size();) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        if (comma > start)
            items.push_back(list.substr(start, comma - start));
        start = comma + 1;
    }
    return items;
}

}  // namespace

bool matchesFilter(const std::string& name, const std::string& filter)
{
    if (filter.empty())
        return true;
    for (const std::string& item : commaItems(filter))
        if (name.find(item) != std::string::npos)
            return true;
    return false;
}

int runBenchCommand(const std::vector<std::string>& args)
{
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
        printUsage();
        return args.empty() ? 2 : 0;
    }
    if (args[0] == "--list-strategies" || args[0] == "list-strategies") {
        for (Strategy s : allStrategies())
            std::cout << strategyName(s) << "\n";
        std::cout << "read-probe\n";
        return 0;
    }
    if (args[0] == "selfcheck") {
        SelfCheckOptions options;
        for (std::size_t i = 1; i < args.size(); ++i) {
            if (args[i] == "--big") options.big = true;
            else if (args[i] == "--host-only") options.hostOnly = true;
            else if (args[i] == "--filter") { if (!takeValue(args, i, options.filter)) return 2; }
            else { std::cerr << "histoscope-bench: unknown option " << args[i] << "\n"; return 2; }
        }
        return runSelfCheck(options);
    }
    if (args[0] == "fault")
        return runFaultCheck();
    if (args[0] == "run" || args[0] == "cpu") {
        BenchmarkOptions options;
        options.cpuMode = args[0] == "cpu";
        for (std::size_t i = 1; i < args.size(); ++i) {
            std::string value;
            if (args[i] == "--quick") options.quick = true;
            else if (args[i] == "--csv") { if (!takeValue(args, i, options.csvPath)) return 2; }
            else if (args[i] == "--plot") { if (!takeValue(args, i, options.plotPath)) return 2; }
            else if (args[i] == "--only") { if (!takeValue(args, i, options.only)) return 2; }
            else if (args[i] == "--strategies") { if (!takeValue(args, i, options.strategies)) return 2; }
            else if (args[i] == "--bins") {
                if (!takeValue(args, i, value)) return 2;
                // A list; 0 (or an empty item) names no bin count, so `--bins 0` still means all.
                for (const std::string& item : commaItems(value))
                    if (const unsigned bins = unsigned(std::strtoul(item.c_str(), nullptr, 10)))
                        options.bins.push_back(bins);
            }
            else if (args[i] == "--repeats") {
                if (!takeValue(args, i, value)) return 2;
                options.repeats = std::max(1, std::atoi(value.c_str()));
            } else { std::cerr << "histoscope-bench: unknown option " << args[i] << "\n"; return 2; }
        }
        return runBenchmark(options);
    }
    if (args[0] == "keys") {
        KeysFileOptions options;
        for (std::size_t i = 1; i < args.size(); ++i) {
            std::string value;
            if (args[i] == "--type") { if (!takeValue(args, i, options.type)) return 2; }
            else if (args[i] == "--strategy") { if (!takeValue(args, i, options.strategy)) return 2; }
            else if (args[i] == "--counts") { if (!takeValue(args, i, options.countsPath)) return 2; }
            else if (args[i] == "--bins") {
                if (!takeValue(args, i, value)) return 2;
                options.bins = unsigned(std::strtoul(value.c_str(), nullptr, 10));
            } else if (args[i] == "--repeats") {
                if (!takeValue(args, i, value)) return 2;
                options.repeats = std::max(1, std::atoi(value.c_str()));
            } else if (options.path.empty() && args[i][0] != '-') {
                options.path = args[i];
            } else { std::cerr << "histoscope-bench: unknown option " << args[i] << "\n"; return 2; }
        }
        if (options.path.empty() || options.bins == 0 || options.bins > kMaxBins) {
            std::cerr << "histoscope-bench keys: give FILE and --bins 1.." << kMaxBins << "\n";
            return 2;
        }
        return runKeysFile(options);
    }
    if (args[0] == "calls") {
        int repeats = 200;
        for (std::size_t i = 1; i < args.size(); ++i) {
            std::string value;
            if (args[i] == "--repeats") {
                if (!takeValue(args, i, value)) return 2;
                repeats = std::max(1, std::atoi(value.c_str()));
            } else { std::cerr << "histoscope-bench: unknown option " << args[i] << "\n"; return 2; }
        }
        return runCallCost(repeats);
    }
    std::cerr << "histoscope-bench: unknown command '" << args[0] << "'\n";
    printUsage();
    return 2;
}

}  // namespace hs::bench
