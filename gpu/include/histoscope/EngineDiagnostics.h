// Diagnostics beside the engine, for the benchmark, the self-check and the tests: raw device
// memory to hold frames on the GPU, and the read-bandwidth probe every strategy is measured
// against. The app needs none of it. Each call obeys the engine's thread contract.
#pragma once

#include "histoscope/HistogramEngine.h"

#include <cstddef>
#include <memory>

namespace hs {

// Device memory owned by the engine's CUDA backend; freed when the last copy goes.
class DeviceArray {
public:
    DeviceArray() = default;
    void* data() const { return m_data.get(); }
    std::size_t size() const { return m_size; }
    explicit operator bool() const { return m_data != nullptr; }

private:
    friend struct detail::EngineAccess;
    std::shared_ptr<void> m_data;
    std::size_t m_size = 0;
};

// NoDevice on an engine without a GPU.
Status allocateDevice(HistogramEngine& engine, std::size_t bytes, DeviceArray& array);
// Grows `array` to `bytes` if needed, then copies synchronously.
Status copyToDevice(HistogramEngine& engine, const void* host, std::size_t bytes, DeviceArray& array);
// Times one pass of 16-byte loads over device bytes: the physical floor for any strategy.
// Refused while a submit() awaits its finish(): the probe would time that work too.
Status readProbe(HistogramEngine& engine, const void* d_data, std::size_t bytes, double& milliseconds);

}  // namespace hs
