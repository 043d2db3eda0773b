// The facade's hidden state, shared by HistogramEngine.cpp and EngineDiagnostics.cpp.
#pragma once

#include "Backend.h"

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

    // Binds the engine to the calling thread on first use; WrongThread from any other thread.
    Status enter()
    {
        const std::thread::id self = std::this_thread::get_id();
        std::thread::id expected{};
        if (m_owner.compare_exchange_strong(expected, self) || expected == self)
            return Status::success();
        return Status::error(ErrorCode::WrongThread,
                             "this HistogramEngine belongs to another thread: use one engine per thread");
    }

private:
    std::atomic<std::thread::id> m_owner{};
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
