// What the facade asks of a backend. The CPU backend is always built; the CUDA one only
// when the toolkit is found, and only used when a device is present at run time.
#pragma once

#include "RequestPlan.h"
#include "histoscope/HistogramEngine.h"

namespace hs::detail {

class Backend {
public:
    virtual ~Backend() = default;
    virtual BackendKind kind() const = 0;
    virtual std::optional<DeviceInfo> deviceInfo() const { return std::nullopt; }
    virtual Strategy chooseStrategy(const RequestPlan& plan) = 0;
    virtual Status submit(const RequestPlan& plan, Strategy strategy) = 0;
    virtual Status finish(HistogramResult& result, bool accumulate) = 0;
    // Equalizes the plan's active channels (identity bins over the full 8/16-bit range).
    virtual Status equalize(const RequestPlan& plan, unsigned char* output, std::size_t outputPitch,
                            EqualizeResult& result) = 0;
    virtual Status allocateDevice(std::size_t bytes, DeviceArray& array);
    virtual Status copyToDevice(const void* host, std::size_t bytes, DeviceArray& array);
    virtual Status readProbe(const void* d_data, std::size_t bytes, double& milliseconds);

protected:
    static void adopt(DeviceArray& array, std::shared_ptr<void> data, std::size_t size)
    {
        array.m_data = std::move(data);
        array.m_size = size;
    }
};

}  // namespace hs::detail
