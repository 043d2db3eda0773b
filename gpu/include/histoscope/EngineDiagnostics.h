// Diagnostics beside the engine, for the benchmark, the self-check and the tests: raw device
// memory to hold frames on the GPU, and the read-bandwidth probe every strategy is measured
// against. The app needs none of it. Each call obeys the engine's thread contract.
#pragma once

#include "histoscope/HistogramEngine.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

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
// Copies device bytes (a DeviceArray's, or HistogramRequest::deviceCounts) to the host, synchronously.
Status copyFromDevice(HistogramEngine& engine, const void* d_data, std::size_t bytes, void* host);
// Times one pass of 16-byte loads over device bytes: the physical floor for any strategy.
// Refused while a submit() awaits its finish(): the probe would time that work too.
Status readProbe(HistogramEngine& engine, const void* d_data, std::size_t bytes, double& milliseconds);

}  // namespace hs

namespace hs {

// Test hook for the device-lost policy of the engines' holders. The working calls numbered
// `calls` from now (1-based, counted over every engine of the process, 1-D and 2-D: submit,
// compute, accumulate, equalize, applyLuts) fault as a lost device does: on a GPU engine a kernel
// writes out of bounds (a real sticky CUDA fault), on a CPU engine the call returns
// ErrorCode::DeviceLost. Either way that engine stays lost, as a faulted GPU engine does, until it
// is rebuilt. Empty: no fault. The environment variable HISTOSCOPE_TEST_DEVICE_LOST=3,4 sets it
// when the first engine works; set only by tests and the self-check.
void injectDeviceLost(std::vector<std::uint64_t> calls);

}  // namespace hs
