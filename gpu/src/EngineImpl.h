// The facade's hidden state, shared by HistogramEngine.cpp and EngineDiagnostics.cpp.
#pragma once

#include "Backend.h"
#include "FaultInjection.h"

#include <atomic>
#include <memory>
#include <string>
#include <thread>

namespace hs {

class HistogramEngine::Impl {
public:
    std::unique_ptr<detail::Backend> backend;
    std::string notice;
    bool pending = false;        // a submit() awaits its finish()
    Status pendingStatus;
    bool pendingCountsAtFinish = false;  // the pending submit() names its device counts at finish
    std::int64_t enteredNs = 0;  // the pending submit()'s moments (PhaseTimings)
    std::int64_t submittedNs = 0;

    // finish() and finishInto(): the backend's finish of the pending submit, with its moments.
    Status finishPending(HistogramResult& result, bool accumulate, void* deviceCounts);

    // Binds the engine to the calling thread on first use; WrongThread from any other thread.
    // DeviceLost once the engine's device has faulted: nothing is counted on it again.
    Status enter()
    {
        const std::thread::id self = std::this_thread::get_id();
        std::thread::id expected{};
        if (!m_owner.compare_exchange_strong(expected, self) && expected != self)
            return Status::error(ErrorCode::WrongThread,
                                 "this HistogramEngine belongs to another thread: use one engine per thread");
        if (!m_lostCause.empty())
            return Status::error(ErrorCode::DeviceLost, m_lostCause + "; this engine counts no more: build a new one");
        return Status::success();
    }

    // A working call on the backend. `counts`: one the test hook may make fault. A DeviceLost
    // answer makes the engine lost for good.
    Status run(const std::function<Status()>& work, bool counts = true)
    {
        Status s = counts && detail::takeInjectedFault() ? backend->call([this] { return backend->injectFault(); })
                                                         : backend->call(work);
        if (s.code == ErrorCode::DeviceLost && m_lostCause.empty())
            m_lostCause = s.message;
        return s;
    }

private:
    std::atomic<std::thread::id> m_owner{};
    std::string m_lostCause;   // empty while the device is healthy
};

namespace detail {

// The diagnostics' way into the facade and into DeviceArray.
struct EngineAccess {
    static HistogramEngine::Impl& impl(HistogramEngine& engine) { return *engine.m_impl; }
    static void adopt(DeviceArray& array, std::shared_ptr<void> data, std::size_t size)
    {
        array.m_data = std::move(data);
        array.m_size = size;
    }
};

}  // namespace detail

}  // namespace hs
