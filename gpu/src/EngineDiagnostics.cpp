#include "histoscope/EngineDiagnostics.h"

#include "EngineImpl.h"

namespace hs {

Status allocateDevice(HistogramEngine& engine, std::size_t bytes, DeviceArray& array)
{
    auto& impl = detail::EngineAccess::impl(engine);
    if (Status s = impl.enter(); !s)
        return s;
    std::shared_ptr<void> data;
    if (Status s = impl.run([&] { return impl.backend->allocateDevice(bytes, data); }, false); !s)
        return s;
    detail::EngineAccess::adopt(array, std::move(data), bytes);
    return Status::success();
}

Status copyToDevice(HistogramEngine& engine, const void* host, std::size_t bytes, DeviceArray& array)
{
    auto& impl = detail::EngineAccess::impl(engine);
    if (Status s = impl.enter(); !s)
        return s;
    if (!array || array.size() < bytes)
        if (Status s = allocateDevice(engine, bytes, array); !s)
            return s;
    return impl.run([&] { return impl.backend->copyToDevice(host, bytes, array.data()); }, false);
}

Status copyFromDevice(HistogramEngine& engine, const void* d_data, std::size_t bytes, void* host)
{
    auto& impl = detail::EngineAccess::impl(engine);
    if (Status s = impl.enter(); !s)
        return s;
    return impl.run([&] { return impl.backend->copyToHost(d_data, bytes, host); }, false);
}

Status readProbe(HistogramEngine& engine, const void* d_data, std::size_t bytes, double& milliseconds)
{
    auto& impl = detail::EngineAccess::impl(engine);
    if (Status s = impl.enter(); !s)
        return s;
    if (impl.pending)
        return Status::error(ErrorCode::InvalidArgument, "finish() the previous submit() before the read probe");
    return impl.run([&] { return impl.backend->readProbe(d_data, bytes, milliseconds); }, false);
}

}  // namespace hs
