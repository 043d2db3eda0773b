// histoscope._native: the engine's public API for Python, at the level of views and binnings.
// The NumPy- and PyTorch-shaped functions (bincount, histogram, ...) are in histoscope/*.py on top
// of this; here are only what needs C++: counting a view with the GIL released, on this thread's
// engine, the statistics of docs/SCHEMA.md (hs::computeStatistics, the one definition), the scope
// requests of Histogram2D.h.
#include "Engines.h"

#include "histoscope/Histogram2D.h"
#include "histoscope/HistogramEngine.h"
#include "histoscope/HistogramStatistics.h"
#include "histoscope/HistogramTypes.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace py = pybind11;

namespace hs::python {

namespace {

// (active, bins, lo, hi, identity): how Python passes a ChannelBinning.
using BinningTuple = std::tuple<bool, std::uint32_t, double, double, bool>;
// (quantity, channel, bins, lo, hi, identity): one axis of a 2-D histogram.
using AxisTuple = std::tuple<std::string, int, std::uint32_t, double, double, bool>;

SampleType sampleTypeOf(const std::string& name)
{
    const auto type = sampleTypeFromName(name);
    if (!type)
        throw py::value_error("unknown sample type '" + name + "'");
    return *type;
}

Strategy strategyOf(const std::string& name)
{
    const auto strategy = strategyFromName(name);
    if (!strategy) {
        std::string names;
        for (Strategy s : allStrategies())
            names += (names.empty() ? "" : ", ") + std::string(strategyName(s));
        throw py::value_error("unknown strategy '" + name + "' (one of: " + names + ")");
    }
    return *strategy;
}

ImageView viewOf(std::uintptr_t pointer, int device, const std::string& type, std::int64_t width, std::int64_t height,
                 std::size_t strideBytes, int channels)
{
    ImageView view;
    view.data = reinterpret_cast<const void*>(pointer);
    view.space = device >= 0 ? MemorySpace::Device : MemorySpace::Host;
    view.type = sampleTypeOf(type);
    view.width = width;
    view.height = height;
    view.strideBytes = strideBytes;
    view.channels = channels;
    return view;
}

ChannelBinning binningOf(const BinningTuple& t)
{
    ChannelBinning b;
    std::tie(b.active, b.bins, b.lo, b.hi, b.identity) = t;
    return b;
}

BinningTuple tupleOf(const ChannelBinning& b) { return {b.active, b.bins, b.lo, b.hi, b.identity}; }

// The engine that counts a view of `device` memory (-1: host memory, counted where the default
// engine counts, on the GPU when there is one, or on the CPU only with cpuOnly).
int engineKey(int device, bool cpuOnly) { return device >= 0 ? device : (cpuOnly ? kCpuOnly : 0); }

py::dict timingsOf(const PhaseTimings& t)
{
    py::dict d;
    d["upload_ms"] = t.uploadMs;
    d["clear_ms"] = t.clearMs;
    d["tally_ms"] = t.tallyMs;
    d["merge_ms"] = t.mergeMs;
    d["download_ms"] = t.downloadMs;
    return d;
}

// The phases and the host moments (time.perf_counter's clock, in ns; 0 where not taken) of a
// call: where its wall time goes, for the profiling scripts.
py::dict timingsAndMomentsOf(const PhaseTimings& t)
{
    py::dict d = timingsOf(t);
    d["entered_ns"] = t.enteredNs;
    d["gpu_queued_ns"] = t.gpuQueuedNs;
    d["submitted_ns"] = t.submittedNs;
    d["synced_ns"] = t.syncedNs;
    d["finished_ns"] = t.finishedNs;
    return d;
}

py::object optionalValue(const std::optional<double>& v) { return v ? py::object(py::float_(*v)) : py::object(py::none()); }

// The statistics object of a record (docs/SCHEMA.md, "Statistics"), key for key.
py::dict statisticsOf(const ChannelHistogram& h, const std::optional<std::string>& type, std::optional<int> bitDepth)
{
    if (h.counts.size() != h.binning.bins)
        throw py::value_error("this channel's counts were kept in device memory: its statistics need them on the host");
    StatisticsContext context;
    if (type)
        context.type = sampleTypeOf(*type);
    context.bitDepth = bitDepth;
    const ChannelStatistics s = computeStatistics(h, context);
    py::dict d;
    d["count"] = s.count;
    d["exact"] = s.exact;
    d["coarse"] = s.coarse;  // the bins are too wide to tell the middle half of the data apart
    d["min"] = optionalValue(s.min);
    d["max"] = optionalValue(s.max);
    d["mean"] = s.mean;
    d["std"] = s.stdDevPopulation;
    d["std_sample"] = s.stdDevSample;
    d["median"] = s.median;
    d["mode"] = s.mode;
    py::dict percentiles;
    for (std::size_t i = 0; i < kPercentiles.size(); ++i) {
        char key[16];
        std::snprintf(key, sizeof key, "%g", kPercentiles[i]);
        percentiles[key] = s.percentiles[i];
    }
    d["percentiles"] = percentiles;
    d["clipped_low"] = optionalValue(s.clippedLowShare);
    d["clipped_high"] = optionalValue(s.clippedHighShare);
    d["entropy_bits"] = s.entropyBits;
    d["below"] = s.below;
    d["above"] = s.above;
    d["nan"] = s.nan;
    return d;
}

// Counts as int64 without a copy: the array's base is the Python object that owns them.
// Every count is below 2^63 (a count of samples in memory), so the bits read the same.
py::array_t<std::int64_t> countsView(const std::vector<std::uint64_t>& counts, py::handle owner,
                                     std::vector<py::ssize_t> shape)
{
    std::vector<py::ssize_t> strides(shape.size());
    py::ssize_t step = sizeof(std::int64_t);
    for (std::size_t i = shape.size(); i-- > 0;) {
        strides[i] = step;
        step *= shape[i];
    }
    return py::array_t<std::int64_t>(shape, strides, reinterpret_cast<const std::int64_t*>(counts.data()), owner);
}

// A result whose channels are shared with the Python objects that show them, so that counts
// reach NumPy without a copy however often they are read.
struct Counted {
    std::vector<std::shared_ptr<ChannelHistogram>> channels;
    HistogramResult result;  // without its channels
};

struct Counted2D {
    std::vector<std::shared_ptr<Histogram2D>> histograms;
    Histogram2DResult result;  // without its histograms
};

// The GPU phases of this thread's last count (the engine's CUDA events): what a caller's wall
// time is compared with, call by call (python/bench_peers.py), with no second run to differ.
thread_local PhaseTimings lastTimings;

// Runs `work` on this thread's engine `key` with the GIL released (device input: only on a GPU
// engine); raises the engine's error.
template <typename Work>
void workOn(int key, bool deviceInput, Work&& work)
{
    Status status;
    {
        py::gil_scoped_release unlocked;
        HistogramEngine& engine = engineFor(key);
        if (deviceInput && !engine.hasGpu())
            status = Status::error(ErrorCode::NoDevice, "device memory needs a GPU engine: " + engine.notice());
        else
            status = work(engine);
    }
    raiseOnError(status, key);
}

// Counts on this thread's engine `key`; lastTimings holds the count's timings (nothing on failure).
void computeOn(int key, bool deviceInput, const HistogramRequest& request, HistogramResult& result)
{
    lastTimings = {};
    workOn(key, deviceInput, [&](HistogramEngine& engine) { return engine.compute(request, result); });
    lastTimings = result.timings;
}

std::shared_ptr<Counted> count(std::uintptr_t pointer, int device, const std::string& type, std::int64_t width,
                               std::int64_t height, std::size_t strideBytes, int channels,
                               const std::vector<std::optional<BinningTuple>>& binnings, const std::string& strategy,
                               bool cpuOnly, std::uintptr_t stream, std::uintptr_t out)
{
    HistogramRequest request;
    request.image = viewOf(pointer, device, type, width, height, strideBytes, channels);
    request.strategy = strategyOf(strategy);
    request.stream = device >= 0 ? stream : 0;   // device input is counted in the caller's stream
    request.deviceCounts = reinterpret_cast<void*>(out);
    if (binnings.size() > std::size_t(kMaxChannels))
        throw py::value_error("at most " + std::to_string(kMaxChannels) + " channels are counted");
    for (std::size_t c = 0; c < request.binning.size(); ++c) {
        request.binning[c].active = false;
        if (c < binnings.size() && binnings[c])
            request.binning[c] = binningOf(*binnings[c]);
    }
    auto counted = std::make_shared<Counted>();
    computeOn(engineKey(device, cpuOnly), device >= 0, request, counted->result);
    for (ChannelHistogram& h : counted->result.channels)
        counted->channels.push_back(std::make_shared<ChannelHistogram>(std::move(h)));
    counted->result.channels.clear();
    return counted;
}

// bincount's first pass over device keys in one call, with nothing made on the way that only
// the general count() needs (a view object, binning tuples, channel objects): the call is on the
// path of every device tensor's bincount, whose goal is a wall within 20 us of the GPU time.
// A flat view's rows of elements of `channels` samples (1, or 2 for 64-bit keys as two u32 words,
// low first); channel 0 in identity bins [0, bins), a second channel's high words in one bin [0, 1).
// The keys' `bins` counts stay in `out` (device memory; the high words' bin is not written);
// returns (max, below, above) of channel 0, then
// (above, max) of the high words (0, 0 with one channel), then the strategy that ran.
HistogramRequest keysRequest(std::uintptr_t pointer, int device, const std::string& type, std::int64_t width,
                             std::int64_t height, std::size_t strideBytes, int channels, std::uint32_t bins,
                             const std::string& strategy, std::uintptr_t stream)
{
    if (device < 0)
        throw py::value_error("count_keys counts device memory into device counts");
    if (channels != 1 && channels != 2)
        throw py::value_error("count_keys takes keys of one or two 32-bit words");
    HistogramRequest request;
    request.image = viewOf(pointer, device, type, width, height, strideBytes, channels);
    request.strategy = strategyOf(strategy);
    request.stream = stream;
    request.binning[0] = ChannelBinning{true, bins, 0.0, double(bins), true};
    request.binning[1] = ChannelBinning{channels == 2, 1, 0.0, 1.0, true};
    request.binning[2].active = request.binning[3].active = false;
    request.deviceCountsChannels = 1u;  // the high words' bin is never read: `out` holds the keys' bins alone
    return request;
}

py::tuple keysMargins(const HistogramResult& result, int channels)
{
    const ChannelHistogram& keys = result.channels.at(0);
    const std::uint64_t highAbove = channels == 2 ? result.channels.at(1).above : 0;
    const double highMax = channels == 2 ? result.channels.at(1).maxValue : 0.0;
    return py::make_tuple(std::int64_t(keys.maxValue), keys.below, keys.above, highAbove, std::int64_t(highMax),
                          strategyName(result.strategyRan));
}

py::tuple countKeys(std::uintptr_t pointer, int device, const std::string& type, std::int64_t width, std::int64_t height,
                    std::size_t strideBytes, int channels, std::uint32_t bins, const std::string& strategy,
                    std::uintptr_t stream, std::uintptr_t out)
{
    if (!out)
        throw py::value_error("count_keys counts device memory into device counts");
    HistogramRequest request = keysRequest(pointer, device, type, width, height, strideBytes, channels, bins, strategy, stream);
    request.deviceCounts = reinterpret_cast<void*>(out);
    HistogramResult result;
    computeOn(device, true, request, result);
    return keysMargins(result, channels);
}

// count_keys in two steps, so that the caller allocates `out` while the GPU counts: the first
// enqueues the count (its counts named at finish), the second writes them to `out` and waits.
// One begun count per thread and device: the second step, or count_keys_abandon, ends it.
thread_local int beganChannels = 0;

void countKeysBegin(std::uintptr_t pointer, int device, const std::string& type, std::int64_t width, std::int64_t height,
                    std::size_t strideBytes, int channels, std::uint32_t bins, const std::string& strategy,
                    std::uintptr_t stream)
{
    HistogramRequest request = keysRequest(pointer, device, type, width, height, strideBytes, channels, bins, strategy, stream);
    request.deviceCountsAtFinish = true;
    lastTimings = {};
    workOn(device, true, [&](HistogramEngine& engine) {
        const Status submitted = engine.submit(request);
        if (!submitted) {
            HistogramResult discarded;
            engine.finish(discarded);  // what a failed submit enqueued still drains (refused if none)
        }
        return submitted;
    });
    beganChannels = channels;
}

py::tuple countKeysEnd(int device, std::uintptr_t out)
{
    if (!beganChannels)
        throw py::value_error("count_keys_end: no count_keys_begin on this thread");
    const int channels = beganChannels;
    beganChannels = 0;
    HistogramResult result;
    workOn(device, false, [&](HistogramEngine& engine) { return engine.finishInto(reinterpret_cast<void*>(out), result); });
    lastTimings = result.timings;
    return keysMargins(result, channels);
}

void countKeysAbandon(int device)
{
    if (!beganChannels)
        return;
    beganChannels = 0;
    py::gil_scoped_release unlocked;
    HistogramResult discarded;
    engineFor(device).finish(discarded);  // drains the count; its "no counts named" error is the point
}

Axis2D axisOf(const AxisTuple& t)
{
    Axis2D axis;
    const std::string& name = std::get<0>(t);
    const auto quantity = quantityFromName(name);
    if (!quantity)
        throw py::value_error("unknown quantity '" + name + "'");
    axis.quantity = *quantity;
    axis.channel = std::get<1>(t);
    axis.binning.bins = std::get<2>(t);
    axis.binning.lo = std::get<3>(t);
    axis.binning.hi = std::get<4>(t);
    axis.binning.identity = std::get<5>(t);
    return axis;
}

AxisTuple tupleOf(const Axis2D& a)
{
    return {std::string(quantityName(a.quantity)), a.channel, a.binning.bins, a.binning.lo, a.binning.hi, a.binning.identity};
}

YCbCrStandard standardOf(const std::string& name)
{
    const auto standard = standardFromName(name);
    if (!standard)
        throw py::value_error("unknown standard '" + name + "' (bt601 or bt709)");
    return *standard;
}

std::shared_ptr<Counted2D> count2D(std::uintptr_t pointer, int device, const std::string& type, std::int64_t width,
                                   std::int64_t height, std::size_t strideBytes, int channels,
                                   const std::vector<std::pair<AxisTuple, AxisTuple>>& pairs, const std::string& standard,
                                   std::array<int, 3> rgb, const std::string& strategy, bool cpuOnly)
{
    Histogram2DRequest request;
    request.image = viewOf(pointer, device, type, width, height, strideBytes, channels);
    for (const auto& [x, y] : pairs)
        request.pairs.push_back({axisOf(x), axisOf(y)});
    request.standard = standardOf(standard);
    request.rgb = rgb;
    request.strategy = strategyOf(strategy);
    const int key = engineKey(device, cpuOnly);
    auto counted = std::make_shared<Counted2D>();
    Status status;
    {
        py::gil_scoped_release unlocked;
        Histogram2DEngine& engine = engine2DFor(key);
        if (device >= 0 && !engine.hasGpu())
            status = Status::error(ErrorCode::NoDevice, "device memory needs a GPU engine: " + engine.notice());
        else
            status = engine.compute(request, counted->result);
    }
    raiseOnError(status, key);
    for (Histogram2D& h : counted->result.histograms)
        counted->histograms.push_back(std::make_shared<Histogram2D>(std::move(h)));
    counted->result.histograms.clear();
    return counted;
}

// The axes of the engine's own scope requests (Histogram2D.h), for Python to count with count2d.
std::vector<std::pair<AxisTuple, AxisTuple>> scopePairs(const std::string& kind, const std::string& type, std::int64_t width,
                                                        int channels, const std::vector<int>& parade, const std::string& standard,
                                                        std::array<int, 3> rgb, std::uint32_t bins)
{
    ImageView view;
    view.type = sampleTypeOf(type);
    view.width = width;
    view.height = 1;
    view.channels = channels;
    Histogram2DRequest request;
    if (kind == "parade")
        request = paradeRequest(view, parade, bins);
    else if (kind == "waveform")
        request = lumaWaveformRequest(view, standardOf(standard), rgb, bins);
    else if (kind == "vectorscope")
        request = vectorscopeRequest(view, standardOf(standard), rgb, bins);
    else
        throw py::value_error("unknown scope '" + kind + "' (parade, waveform or vectorscope)");
    std::vector<std::pair<AxisTuple, AxisTuple>> pairs;
    for (const AxisPair& p : request.pairs)
        pairs.emplace_back(tupleOf(p.x), tupleOf(p.y));
    return pairs;
}

py::dict engineInfo(int device)
{
    const int key = device < 0 ? kCpuOnly : device;
    // Read-only members (backend, notice, deviceInfo) may be called from any thread.
    HistogramEngine& engine = engineFor(key);
    py::dict d;
    d["backend"] = engine.hasGpu() ? "cuda" : "cpu";
    d["notice"] = engine.notice();
    d["built_with_cuda"] = HistogramEngine::builtWithCuda();
    d["cuda_devices"] = HistogramEngine::cudaDeviceCount();
    if (const auto info = engine.deviceInfo()) {
        d["device"] = device < 0 ? 0 : device;
        d["name"] = info->name;
        d["compute_capability"] = py::make_tuple(info->computeMajor, info->computeMinor);
        d["multiprocessors"] = info->multiprocessors;
        d["memory_bytes"] = info->globalMemoryBytes;
        d["l2_bytes"] = info->l2Bytes;
    }
    return d;
}

}  // namespace

}  // namespace hs::python

PYBIND11_MODULE(_native, m)
{
    using namespace hs;
    using namespace hs::python;
    m.doc() = "HistoScope's engine, at the level of views and binnings (use the histoscope package instead).";

    py::class_<ChannelHistogram, std::shared_ptr<ChannelHistogram>>(m, "Channel")
        .def_readonly("channel", &ChannelHistogram::channel)
        .def_property_readonly("binning", [](const ChannelHistogram& h) { return tupleOf(h.binning); })
        .def_property_readonly("counts", [](py::object self) {
            const auto& h = self.cast<const ChannelHistogram&>();
            return countsView(h.counts, self, {py::ssize_t(h.counts.size())});
        })
        .def_readonly("below", &ChannelHistogram::below)
        .def_readonly("above", &ChannelHistogram::above)
        .def_readonly("nan", &ChannelHistogram::nan)
        .def_readonly("has_values", &ChannelHistogram::hasValues)
        .def_readonly("min_value", &ChannelHistogram::minValue)
        .def_readonly("max_value", &ChannelHistogram::maxValue)
        .def("statistics", &statisticsOf, py::arg("type") = py::none(), py::arg("bit_depth") = py::none(),
             "The statistics of docs/SCHEMA.md (hs::computeStatistics), keyed as a record's.");

    py::class_<Counted, std::shared_ptr<Counted>>(m, "Counted")
        .def_readonly("channels", &Counted::channels)
        .def_property_readonly("strategy", [](const Counted& c) { return std::string(strategyName(c.result.strategyRan)); })
        .def_property_readonly("reason", [](const Counted& c) { return c.result.strategyReason; })
        .def_property_readonly("timings", [](const Counted& c) { return timingsOf(c.result.timings); })
        .def_property_readonly("samples", [](const Counted& c) { return c.result.samples; })
        .def_property_readonly("counts_on_device", [](const Counted& c) { return c.result.countsOnDevice; });

    py::class_<Histogram2D, std::shared_ptr<Histogram2D>>(m, "Grid")
        .def_property_readonly("x", [](const Histogram2D& h) { return tupleOf(h.axes.x); })
        .def_property_readonly("y", [](const Histogram2D& h) { return tupleOf(h.axes.y); })
        .def_property_readonly("slots", [](py::object self) {
            const auto& h = self.cast<const Histogram2D&>();
            return countsView(h.grid, self, {py::ssize_t(h.xSlots()), py::ssize_t(h.ySlots())});
        });

    py::class_<Counted2D, std::shared_ptr<Counted2D>>(m, "Counted2D")
        .def_readonly("histograms", &Counted2D::histograms)
        .def_property_readonly("strategy", [](const Counted2D& c) { return std::string(strategyName(c.result.strategyRan)); })
        .def_property_readonly("reason", [](const Counted2D& c) { return c.result.strategyReason; })
        .def_property_readonly("timings", [](const Counted2D& c) { return timingsOf(c.result.timings); })
        .def_property_readonly("pixels", [](const Counted2D& c) { return c.result.pixels; });

    m.def("count", &count, py::arg("pointer"), py::arg("device"), py::arg("type"), py::arg("width"), py::arg("height"),
          py::arg("stride"), py::arg("channels"), py::arg("binnings"), py::arg("strategy") = "auto",
          py::arg("cpu_only") = false, py::arg("stream") = 0, py::arg("out") = 0,
          "Counts an interleaved view (device -1: host memory) on this thread's engine, the GIL released;\n"
          "device input in `stream` (a cudaStream_t as an int; 0: the engine's own stream). `out`: device\n"
          "memory (an int) for the int64 counts of every active channel, back to back: they stay there\n"
          "(counts_on_device) and the channels carry only their margins and extremes.");
    m.def("count_keys", &countKeys, py::arg("pointer"), py::arg("device"), py::arg("type"), py::arg("width"),
          py::arg("height"), py::arg("stride"), py::arg("channels"), py::arg("bins"), py::arg("strategy"),
          py::arg("stream"), py::arg("out"),
          "bincount's first pass over device keys: counts a view's keys (2 channels: 64-bit keys as\n"
          "low and high u32 words) into identity bins [0, bins) kept in `out`; returns\n"
          "(max, below, above, high_above, high_max, strategy).");
    m.def("count_keys_begin", &countKeysBegin, py::arg("pointer"), py::arg("device"), py::arg("type"), py::arg("width"),
          py::arg("height"), py::arg("stride"), py::arg("channels"), py::arg("bins"), py::arg("strategy"),
          py::arg("stream"),
          "count_keys' first step: enqueues the count, whose counts count_keys_end writes to `out`,\n"
          "so that `out` can be allocated while the GPU counts.");
    m.def("count_keys_end", &countKeysEnd, py::arg("device"), py::arg("out"),
          "count_keys' second step: writes the begun count's bins to `out` (device memory), waits,\n"
          "and returns count_keys' tuple.");
    m.def("count_keys_abandon", &countKeysAbandon, py::arg("device"),
          "Ends a begun count_keys without its counts (after an error between the two steps).");
    m.def("last_timings", [] { return timingsAndMomentsOf(lastTimings); },
          "The phases (ms, the engine's CUDA events) of this thread's last 1-D count: upload, clear,\n"
          "tally, merge and download (for counts kept on the device: their delivery); and its host\n"
          "moments (ns, time.perf_counter's clock): entered, gpu_queued, submitted, synced, finished.");
    m.def("count2d", &count2D, py::arg("pointer"), py::arg("device"), py::arg("type"), py::arg("width"), py::arg("height"),
          py::arg("stride"), py::arg("channels"), py::arg("pairs"), py::arg("standard") = "bt709",
          py::arg("rgb") = std::array<int, 3>{0, 1, 2}, py::arg("strategy") = "auto", py::arg("cpu_only") = false);
    m.def("scope_pairs", &scopePairs, py::arg("kind"), py::arg("type"), py::arg("width"), py::arg("channels"),
          py::arg("parade") = std::vector<int>{}, py::arg("standard") = "bt709",
          py::arg("rgb") = std::array<int, 3>{0, 1, 2}, py::arg("bins") = 0u);
    m.def("strategies", [] {
        std::vector<std::pair<std::string, bool>> out;
        for (Strategy s : allStrategies())
            out.emplace_back(std::string(strategyName(s)), isGpuStrategy(s));
        return out;
    });
    m.def("strategy_accepts", [](const std::string& strategy, const std::string& type, std::uint32_t bins) {
        return strategyAccepts(strategyOf(strategy), sampleTypeOf(type), bins);
    });
    m.def("engine_info", &engineInfo, py::arg("device") = 0);
    m.def("cuda_device_count", &HistogramEngine::cudaDeviceCount);
    m.def("built_with_cuda", &HistogramEngine::builtWithCuda);
    m.def("release_engines", &releaseThreadEngines, "Releases this thread's engines (a later call builds new ones).");
    m.attr("MAX_BINS") = kMaxBins;
    m.attr("MAX_CELLS") = kMaxCells;
    m.attr("CUB_MAX_BINS") = kCubMaxBins;
}
