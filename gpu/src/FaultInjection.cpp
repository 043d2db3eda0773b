#include "FaultInjection.h"

#include "histoscope/EngineDiagnostics.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <string>

namespace hs {

namespace {

struct FaultPlan {
    std::mutex mutex;
    bool loaded = false;                 // the environment read once
    std::uint64_t calls = 0;             // working calls counted since the plan was set
    std::vector<std::uint64_t> faulting;
};

FaultPlan& plan()
{
    static FaultPlan p;
    return p;
}

std::vector<std::uint64_t> parseCalls(const char* text)
{
    std::vector<std::uint64_t> calls;
    const std::string s = text ? text : "";
    std::size_t at = 0;
    while (at < s.size()) {
        const std::size_t end = std::min(s.find(',', at), s.size());
        const unsigned long long n = std::strtoull(s.substr(at, end - at).c_str(), nullptr, 10);
        if (n > 0)
            calls.push_back(n);
        at = end + 1;
    }
    return calls;
}

}  // namespace

void injectDeviceLost(std::vector<std::uint64_t> calls)
{
    FaultPlan& p = plan();
    std::lock_guard lock(p.mutex);
    p.loaded = true;
    p.calls = 0;
    p.faulting = std::move(calls);
}

namespace detail {

bool takeInjectedFault()
{
    FaultPlan& p = plan();
    std::lock_guard lock(p.mutex);
    if (!p.loaded) {
        p.loaded = true;
        p.faulting = parseCalls(std::getenv("HISTOSCOPE_TEST_DEVICE_LOST"));
    }
    if (p.faulting.empty())
        return false;
    const std::uint64_t n = ++p.calls;
    return std::find(p.faulting.begin(), p.faulting.end(), n) != p.faulting.end();
}

}  // namespace detail

}  // namespace hs
