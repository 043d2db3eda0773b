#include "Engines.h"

#include <pybind11/pybind11.h>

#include <map>
#include <memory>

namespace hs::python {

namespace {

EngineOptions optionsFor(int device)
{
    EngineOptions options;
    options.useGpu = device != kCpuOnly;
    options.device = device == kCpuOnly ? 0 : device;
    return options;
}

// thread_local: each thread owns its engines, so the contract holds without a lock.
struct ThreadEngines {
    std::map<int, std::unique_ptr<HistogramEngine>> engines;
    std::map<int, std::unique_ptr<Histogram2DEngine>> engines2D;
};

ThreadEngines& threadEngines()
{
    thread_local ThreadEngines engines;
    return engines;
}

}  // namespace

HistogramEngine& engineFor(int device)
{
    auto& slot = threadEngines().engines[device];
    if (!slot)
        slot = std::make_unique<HistogramEngine>(optionsFor(device));
    return *slot;
}

Histogram2DEngine& engine2DFor(int device)
{
    auto& slot = threadEngines().engines2D[device];
    if (!slot)
        slot = std::make_unique<Histogram2DEngine>(optionsFor(device));
    return *slot;
}

void forgetEngines(int device)
{
    threadEngines().engines.erase(device);
    threadEngines().engines2D.erase(device);
}

void releaseThreadEngines()
{
    threadEngines().engines.clear();
    threadEngines().engines2D.clear();
}

void raiseOnError(const Status& status, int device)
{
    switch (status.code) {
    case ErrorCode::None:
        return;
    case ErrorCode::InvalidArgument:
    case ErrorCode::UnsupportedStrategy:
        throw pybind11::value_error(status.message);
    case ErrorCode::DeviceLost:
        forgetEngines(device);
        throw std::runtime_error("device lost: " + status.message);
    case ErrorCode::OutOfMemory:
        throw std::runtime_error("out of memory: " + status.message);
    case ErrorCode::NoDevice:
    case ErrorCode::CudaError:
    case ErrorCode::WrongThread:
        break;
    }
    throw std::runtime_error(status.message);
}

}  // namespace hs::python
