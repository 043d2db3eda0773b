#include "bench/BenchCommand.h"

int main(int argc, char** argv)
{
    return hs::bench::runBenchCommand(std::vector<std::string>(argv + 1, argv + argc));
}
