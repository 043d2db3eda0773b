#include "CudaBackend.h"

#include "../src/CpuBackend.h"
#include "../src/CudaBackendFactory.h"
#include "../src/HostClock.h"
#include "HostStaging.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

namespace hs::detail {

int cudaDeviceCountOrZero()
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();  // clear the sticky "no device" error
        return 0;
    }
    return count;
}

std::unique_ptr<Backend> makeCudaBackend(const EngineOptions& options, std::string& why)
{
    const int count = cudaDeviceCountOrZero();
    if (count == 0) {
        why = "No CUDA device found: counting on the CPU";
        return nullptr;
    }
    if (options.device < 0 || options.device >= count) {
        why = "CUDA device " + std::to_string(options.device) + " does not exist (found "
            + std::to_string(count) + "): counting on the CPU";
        return nullptr;
    }
    if (Status s = DeviceHealth::recoverIfFaulted(options.device); !s) {
        why = "CUDA device " + std::to_string(options.device) + " faulted and could not be reset (" + s.message
            + "): counting on the CPU";
        return nullptr;
    }
    auto backend = std::make_unique<CudaBackend>(options.device, options.cpuThreads);
    if (Status s = backend->call([&] { return backend->init(); }); !s) {
        why = DeviceHealth::wasReset(options.device)
            ? "CUDA cannot use device " + std::to_string(options.device) + " again after its fault (" + s.message
                + "): counting on the CPU until HistoScope restarts"
            : "CUDA device " + std::to_string(options.device) + " could not be used (" + s.message + "): counting on the CPU";
        return nullptr;
    }
    return backend;
}

CudaBackend::CudaBackend(int device, int cpuThreads) : m_device(device), m_health(device), m_cpuThreads(cpuThreads) {}

CudaBackend::~CudaBackend() { m_teardown = m_health.hold(); }

Status CudaBackend::injectFault()
{
    HS_CUDA_TRY(cudaSetDevice(m_device));
    m_work = m_stream.get();
    return launchFault(m_work);
}

Status CudaBackend::init()
{
    HS_CUDA_TRY(cudaSetDevice(m_device));
    cudaDeviceProp prop{};
    HS_CUDA_TRY(cudaGetDeviceProperties(&prop, m_device));
    m_info.name = prop.name;
    m_info.computeMajor = prop.major;
    m_info.computeMinor = prop.minor;
    m_info.multiprocessors = prop.multiProcessorCount;
    m_info.globalMemoryBytes = prop.totalGlobalMem;
    m_info.l2Bytes = std::size_t(prop.l2CacheSize);
    m_info.sharedPerBlockOptin = prop.sharedMemPerBlockOptin;
    m_props.computeMajor = prop.major;
    m_props.multiprocessors = prop.multiProcessorCount;
    m_props.sharedPerBlock = prop.sharedMemPerBlock;
    m_props.sharedPerBlockOptin = std::max(prop.sharedMemPerBlockOptin, prop.sharedMemPerBlock);
    m_props.sharedPerMultiprocessor = prop.sharedMemPerMultiprocessor;
    m_props.maxThreadsPerMultiprocessor = prop.maxThreadsPerMultiProcessor;
    m_tuning = tuningFor(prop.major);
    HS_TRY(m_stream.create());
    m_work = m_stream.get();
    for (CudaEvent& e : m_stageFree)
        HS_TRY(e.create());
    HS_TRY(m_hotKeysFree.create());
    HS_TRY(m_sampleDone.create());
    HS_TRY(m_probeSink.reserve(sizeof(unsigned long long)));
    return Status::success();
}

Status CudaBackend::takeEvent(cudaEvent_t& event)
{
    if (m_eventsUsed == m_events.size()) {
        CudaEvent e;
        HS_TRY(e.create());
        m_events.push_back(std::move(e));
    }
    event = m_events[m_eventsUsed++].get();
    return Status::success();
}

Status CudaBackend::mark(Phase phase)
{
    cudaEvent_t event = nullptr;
    HS_TRY(takeEvent(event));
    HS_CUDA_TRY(cudaEventRecord(event, m_work));
    if (m_marks.empty())
        m_gpuQueuedNs = hostNowNs();
    m_marks.emplace_back(phase, event);
    return Status::success();
}

std::vector<CudaBackend::Piece> CudaBackend::makePieces(const RequestPlan& plan) const
{
    // Host pieces fit a staging buffer; device pieces only keep 32-bit counters safe.
    std::int64_t maxPixels = std::int64_t(kMaxPieceSamples / std::uint64_t(plan.channels));
    if (plan.space == MemorySpace::Host)
        maxPixels = std::min<std::int64_t>(maxPixels, std::int64_t(m_tuning.stageBytes / plan.pixelBytes));
    std::vector<Piece> pieces;
    if (plan.width <= maxPixels) {
        const std::int64_t rowsPerPiece = std::max<std::int64_t>(1, maxPixels / std::max<std::int64_t>(1, plan.width));
        for (std::int64_t r = 0; r < plan.rows; r += rowsPerPiece)
            pieces.push_back({r, std::min(rowsPerPiece, plan.rows - r), 0, plan.width});
    } else {
        for (std::int64_t r = 0; r < plan.rows; ++r)
            for (std::int64_t x = 0; x < plan.width; x += maxPixels)
                pieces.push_back({r, 1, x, std::min(maxPixels, plan.width - x)});
    }
    return pieces;
}

Status CudaBackend::stagePiece(const RequestPlan& plan, const Piece& piece, int buffer, SampleGrid& grid)
{
    const unsigned char* first = plan.row(piece.row) + std::size_t(piece.x) * plan.pixelBytes;
    if (plan.space == MemorySpace::Device) {
        grid = SampleGrid{first, plan.pitch, piece.width, piece.rows};
        return Status::success();
    }
    const std::size_t rowBytes = std::size_t(piece.width) * plan.pixelBytes;
    const std::size_t bytes = rowBytes * std::size_t(piece.rows);
    HS_TRY(m_hostStage[buffer].reserve(bytes));
    HS_TRY(m_stage[buffer].reserve(bytes));
    // The staging buffer may still feed the upload of the piece before last.
    HS_CUDA_TRY(cudaEventSynchronize(m_stageFree[buffer].get()));
    unsigned char* staging = m_hostStage[buffer].get<unsigned char>();
    packRows(staging, first, plan.pitch, rowBytes, piece.rows);
    HS_TRY(mark(Upload));
    HS_CUDA_TRY(cudaMemcpyAsync(m_stage[buffer].get(), staging, bytes, cudaMemcpyHostToDevice, m_work));
    HS_CUDA_TRY(cudaEventRecord(m_stageFree[buffer].get(), m_work));
    // Packed rows are one long row for the walker.
    grid = SampleGrid{m_stage[buffer].get<unsigned char>(), bytes, piece.width * piece.rows, 1};
    return Status::success();
}

Status CudaBackend::skewEstimate(const RequestPlan& plan, std::shared_ptr<const SkewEstimate>& estimate)
{
    if (plan.space == MemorySpace::Host) {
        const std::vector<std::uint32_t> slots = sampleHostSlots(plan, m_tuning.skewSamplePixels);
        auto fresh = std::make_shared<SkewEstimate>();
        m_skewCounter.estimate(slots.data(), slots.size(), plan.channels, std::uint32_t(m_tuning.hotCacheEntries), *fresh);
        estimate = std::move(fresh);
        return Status::success();
    }
    const std::uint64_t signature = (std::uint64_t(plan.map.num_slots) << 8) ^ (std::uint64_t(plan.type) << 4)
                                  ^ std::uint64_t(plan.channels);
    if (m_samplePending)
        HS_TRY(consumeSample());  // the last call's sample, downloaded while that call counted
    // Every call samples its input for the next call on it, and an estimate steers only calls on
    // the input it was sampled from: another tensor of the same shape may be skewed elsewhere,
    // and a stale hot-slot table sent 90 % of 16 M keys to one global counter (H200, session
    // 17: 5.6 ms against 0.049 for eight calls after a Zipf input of the same shape).
    CachedEstimate* cached = cachedEstimate(signature, plan.origin);
    const std::uint32_t count = std::uint32_t(std::min<std::int64_t>(m_tuning.skewSamplePixels, plan.pixels()));
    const std::size_t bytes = std::size_t(count) * plan.channels * sizeof(std::uint32_t);
    HS_TRY(m_sample.reserve(bytes));
    HS_TRY(m_hostSample.reserve(bytes));
    KernelArgs whole;
    whole.type = plan.type;
    whole.channels = plan.channels;
    whole.map = plan.map;
    whole.grid = SampleGrid{plan.origin, plan.pitch, plan.width, plan.rows};
    HS_TRY(launchSlotSample(whole, m_sample.get<std::uint32_t>(), count, {m_props, m_tuning, m_work, m_launchCache}));
    HS_CUDA_TRY(cudaMemcpyAsync(m_hostSample.get(), m_sample.get(), bytes, cudaMemcpyDeviceToHost, m_work));
    HS_CUDA_TRY(cudaEventRecord(m_sampleDone.get(), m_work));
    m_samplePending = true;
    m_sampleValues = bytes / sizeof(std::uint32_t);
    m_sampleChannels = plan.channels;
    m_pendingSignature = signature;
    m_pendingSource = plan.origin;
    if (!cached) {
        HS_TRY(consumeSample());  // nothing of this input yet: wait for its own sample
        cached = cachedEstimate(signature, plan.origin);
    }
    cached->lastUsed = ++m_estimateClock;
    estimate = cached->estimate;
    return Status::success();
}

CudaBackend::CachedEstimate* CudaBackend::cachedEstimate(std::uint64_t signature, const void* source)
{
    for (CachedEstimate& e : m_estimates)
        if (e.estimate && e.signature == signature && e.source == source)
            return &e;
    return nullptr;
}

Status CudaBackend::consumeSample()
{
    HS_CUDA_TRY(cudaEventSynchronize(m_sampleDone.get()));
    auto fresh = std::make_shared<SkewEstimate>();
    m_skewCounter.estimate(m_hostSample.get<std::uint32_t>(), m_sampleValues, m_sampleChannels,
                           std::uint32_t(m_tuning.hotCacheEntries), *fresh);
    // Into its input's entry, else an empty one, else the one used longest ago.
    CachedEstimate* entry = cachedEstimate(m_pendingSignature, m_pendingSource);
    if (!entry) {
        entry = &m_estimates[0];
        for (CachedEstimate& e : m_estimates)
            if (entry->estimate && (!e.estimate || e.lastUsed < entry->lastUsed))
                entry = &e;
    }
    *entry = {m_pendingSignature, m_pendingSource, std::move(fresh), ++m_estimateClock};
    m_samplePending = false;
    return Status::success();
}

Status CudaBackend::resolve(const RequestPlan& plan, Strategy requested, Resolution& resolution, bool explain)
{
    resolution = {};
    const bool counts = plan.pixels() > 0;
    if (counts && needsSkewEstimate(requested, plan, m_props, m_tuning))
        HS_TRY(skewEstimate(plan, resolution.skew));
    if (requested != Strategy::Auto) {
        resolution.choice = {requested, explain ? requestedReason(requested) : std::string()};
        return Status::success();
    }
    resolution.choice = chooseAutoStrategy(plan, m_props, m_tuning, resolution.skew.get(), explain);
    // The rule asks for a sample wherever its choice needs one; this keeps "at most one sample"
    // true should a future rule pick a sampling strategy without having asked.
    if (counts && !resolution.skew && needsSkewEstimate(resolution.choice.strategy, plan, m_props, m_tuning))
        HS_TRY(skewEstimate(plan, resolution.skew));
    return Status::success();
}

std::string CudaBackend::explained(const RequestPlan& plan, Strategy requested, const Resolution& resolution) const
{
    return requested == Strategy::Auto ? chooseAutoStrategy(plan, m_props, m_tuning, resolution.skew.get()).reason
                                       : requestedReason(requested);
}

Status CudaBackend::chooseStrategy(const RequestPlan& plan, Strategy requested, StrategyChoice& choice)
{
    HS_CUDA_TRY(cudaSetDevice(m_device));
    // A skew sample of device input is taken in the request's stream, never in one an earlier
    // call named (which its caller may have destroyed since).
    m_work = plan.stream ? reinterpret_cast<cudaStream_t>(plan.stream) : m_stream.get();
    Resolution resolution;
    HS_TRY(resolve(plan, requested, resolution));
    choice = resolution.choice;
    return Status::success();
}

Status CudaBackend::submit(const RequestPlan& plan, Strategy requested)
{
    m_plan = plan;
    m_marks.clear();
    m_eventsUsed = 0;
    m_ready = false;
    m_gpuQueuedNs = 0;
    // In the caller's stream when it names one: no host wait for its earlier work, and its later
    // work is ordered after the count.
    m_work = plan.stream ? reinterpret_cast<cudaStream_t>(plan.stream) : m_stream.get();
    HS_CUDA_TRY(cudaSetDevice(m_device));
    Resolution resolution;
    HS_TRY(resolve(plan, requested, resolution, false));
    m_ran = resolution.choice.strategy;
    m_reason.clear();
    if (plan.deviceCounts)
        HS_TRY(checkDeviceCounts(plan.deviceCounts));
    if (m_ran == Strategy::Cpu) {
        if (plan.space != MemorySpace::Host)
            return Status::error(ErrorCode::InvalidArgument, "the cpu strategy cannot read device memory");
        if (plan.countsStayOnDevice())
            return Status::error(ErrorCode::UnsupportedStrategy, "the cpu strategy cannot write device counts");
        const auto start = std::chrono::steady_clock::now();
        CpuBackend::countSlots(plan, m_cpuThreads, m_cpuSlots, m_cpuExtrema);
        m_cpuMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        m_reason = explained(plan, requested, resolution);
        m_ready = true;
        return Status::success();
    }
    HS_TRY(enqueue(plan, resolution));
    m_reason = explained(plan, requested, resolution);  // while the GPU counts
    m_ready = true;
    return Status::success();
}

Status CudaBackend::enqueue(const RequestPlan& plan, const Resolution& resolution)
{
    const Strategy strategy = resolution.choice.strategy;
    const std::vector<Piece> pieces = plan.pixels() ? makePieces(plan) : std::vector<Piece>{};
    // The totals, then the encoded extremes: one clear and one download for both. A strategy that
    // folds the clear into its launch counts into a buffer cleared by the call before and clears
    // the other one for the call after: a frame costs one launch and one copy.
    const std::size_t words = std::size_t(plan.map.num_slots) + kExtremaWords + (plan.countsStayOnDevice() ? kTailWords : 0);
    const std::size_t slotBytes = words * sizeof(std::uint64_t);
    const bool fold = !pieces.empty() && clearsNextTotals(strategy, plan, m_props);
    const int current = m_slotIndex, spare = 1 - m_slotIndex;
    HS_TRY(reserveSlots(current, words));
    if (fold)
        HS_TRY(reserveSlots(spare, words));
    HS_TRY(m_hostSlots.reserve(slotBytes));
    KernelArgs args;
    args.type = plan.type;
    args.channels = plan.channels;
    args.map = plan.map;
    args.d_slots = m_slotBuffers[current].get<unsigned long long>();
    args.d_extrema = args.d_slots + plan.map.num_slots;
    if (fold) {
        args.d_zero = m_slotBuffers[spare].get<unsigned long long>();
        args.zero_words = std::uint32_t(words);
    }
    m_countedSlots = args.d_slots;
    const LaunchContext ctx{m_props, m_tuning, m_work, m_launchCache};

    if (resolution.skew)
        args.hot_slot = resolution.skew->topSlot;
    // `partition`'s split: tuning's fixed choice, else the sample's (warp runs without one).
    const int warpRuns = m_tuning.partitionSplitWarpRuns;
    args.split_warp_runs = warpRuns >= 0 ? warpRuns == 1
                                         : !resolution.skew
                                               || resolution.skew->neighbourBucketShare
                                                      >= m_tuning.partitionWarpRunsNeighbourShareMin;
    if (!pieces.empty() && needsHotKeys(strategy, plan, m_props)) {
        if (!resolution.skew)
            return Status::error(ErrorCode::InvalidArgument, "large-bins needs a skew sample for its hot-slot table");
        const std::vector<std::uint32_t>& hotKeys = resolution.skew->hotKeys;
        const std::size_t hotBytes = hotKeys.size() * sizeof(std::uint32_t);
        // An estimate that steered an earlier call finds its table on the device already: the
        // call that uploaded it ended with its stream drained.
        if (resolution.skew != m_hotKeysSource) {
            m_hotKeysSource.reset();
            HS_TRY(m_hotKeys.reserve(hotBytes));
            HS_TRY(m_hostHotKeys.reserve(hotBytes));
            // The previous frame's upload of this table may still be reading the pinned copy.
            HS_CUDA_TRY(cudaEventSynchronize(m_hotKeysFree.get()));
            std::memcpy(m_hostHotKeys.get(), hotKeys.data(), hotBytes);
            HS_CUDA_TRY(cudaMemcpyAsync(m_hotKeys.get(), m_hostHotKeys.get(), hotBytes, cudaMemcpyHostToDevice, m_work));
            HS_CUDA_TRY(cudaEventRecord(m_hotKeysFree.get(), m_work));
            m_hotKeysSource = resolution.skew;
        }
        args.d_hot_keys = m_hotKeys.get<std::uint32_t>();
        args.hot_entries = std::uint32_t(hotKeys.size());
    }

    // Cleared only now: a skew estimate of device input waits for the GPU, and the clear and the
    // tally should reach it back to back so the phase times hold no host round trip.
    if (m_zeroedWords[current] < words) {
        HS_TRY(mark(Clear));
        HS_CUDA_TRY(cudaMemsetAsync(args.d_slots, 0, slotBytes, m_work));
    }
    // From here on the totals hold counts, also when a piece below fails part-way: the next call
    // must clear them again.
    m_zeroedWords[current] = 0;
    for (std::size_t i = 0; i < pieces.size(); ++i) {
        HS_TRY(stagePiece(plan, pieces[i], int(i % 2), args.grid));
        HS_TRY(mark(Tally));
        HS_TRY(launchStrategy(strategy, args, m_scratch, ctx));
        args.d_zero = nullptr;  // the first piece cleared the spare buffer
        args.zero_words = 0;
    }
    if (fold) {
        m_zeroedWords[spare] = words;
        m_slotIndex = spare;
    }
    // Counts named at finish: the tally's phase ends here, and the wait for finishInto() is no phase.
    if (plan.deviceCountsAtFinish)
        return mark(Untimed);
    if (plan.deviceCounts)
        return enqueueDelivery(plan.deviceCounts);
    HS_TRY(mark(Download));
    HS_CUDA_TRY(cudaMemcpyAsync(m_hostSlots.get(), args.d_slots, slotBytes, cudaMemcpyDeviceToHost, m_work));
    return mark(End);
}

Status CudaBackend::enqueueDelivery(void* deviceCounts)
{
    // The counts stay on the device: only the extremes and the tail travel, in the Download phase.
    HS_TRY(mark(Download));
    const LaunchContext ctx{m_props, m_tuning, m_work, m_launchCache};
    unsigned long long* d_extrema = m_countedSlots + m_plan.map.num_slots;
    HS_TRY(launchDeliverCounts(m_plan.map, m_countedSlots, static_cast<unsigned long long*>(deviceCounts),
                               d_extrema + kExtremaWords, m_plan.deviceCountsChannels, ctx));
    HS_CUDA_TRY(cudaMemcpyAsync(m_hostSlots.get<unsigned long long>() + m_plan.map.num_slots, d_extrema,
                                (kExtremaWords + kTailWords) * sizeof(std::uint64_t), cudaMemcpyDeviceToHost, m_work));
    return mark(End);
}

Status CudaBackend::checkDeviceCounts(const void* deviceCounts) const
{
    // Asked on every call (about a microsecond): an address once checked may since belong to
    // another device's allocation, and a write there would fault this context.
    cudaPointerAttributes attributes{};
    if (cudaPointerGetAttributes(&attributes, deviceCounts) != cudaSuccess) {
        cudaGetLastError();  // not a pointer CUDA knows: not sticky
        attributes.type = cudaMemoryTypeUnregistered;
    }
    const bool onDevice = attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged;
    if (!onDevice || (attributes.type == cudaMemoryTypeDevice && attributes.device != m_device))
        return Status::error(ErrorCode::InvalidArgument, "the device counts are not memory of CUDA device "
                                                             + std::to_string(m_device));
    return Status::success();
}

Status CudaBackend::reserveSlots(int index, std::size_t words)
{
    const std::size_t before = m_slotBuffers[index].capacity();
    HS_TRY(m_slotBuffers[index].reserve(words * sizeof(std::uint64_t)));
    if (m_slotBuffers[index].capacity() != before)
        m_zeroedWords[index] = 0;  // a new allocation holds anything
    return Status::success();
}

Status CudaBackend::finish(HistogramResult& result, bool accumulate, void* deviceCounts)
{
    if (!m_ready) {
        // The submit failed part-way: let what it enqueued drain, and deliver nothing.
        HS_CUDA_TRY(cudaStreamSynchronize(m_work));
        return Status::error(ErrorCode::InvalidArgument, "nothing was counted: the submit failed");
    }
    m_ready = false;
    if (m_ran == Strategy::Cpu) {
        unpackSlots(m_plan, m_cpuSlots.data(), m_cpuExtrema.data(), result, accumulate);
        result.strategyRan = Strategy::Cpu;
        result.strategyReason = m_reason;
        result.timings = {};
        result.timings.tallyMs = m_cpuMs;
        return Status::success();
    }
    if (m_plan.deviceCountsAtFinish) {
        Status delivered = deviceCounts ? checkDeviceCounts(deviceCounts)
                                        : Status::error(ErrorCode::InvalidArgument,
                                                        "this count names its device counts at finish: finishInto()");
        if (delivered)
            delivered = enqueueDelivery(deviceCounts);
        if (!delivered) {
            // What was enqueued still runs: drain it, and deliver nothing.
            HS_CUDA_TRY(cudaStreamSynchronize(m_work));
            return delivered;
        }
    }
    // This call's skew sample reached the host before its count began: estimated while the count
    // runs, it is ready for the next call.
    if (m_samplePending)
        HS_TRY(consumeSample());
    HS_CUDA_TRY(cudaStreamSynchronize(m_work));
    const std::int64_t synced = hostNowNs();
    if (m_plan.countsStayOnDevice()) {
        if (accumulate)
            return Status::error(ErrorCode::InvalidArgument, "counts kept in device memory cannot be accumulated");
        const unsigned long long* extrema = m_hostSlots.get<unsigned long long>() + m_plan.map.num_slots;
        unpackMargins(m_plan, extrema, extrema + kExtremaWords, result);
    } else {
        unpackSlots(m_plan, m_hostSlots.get<std::uint64_t>(), m_hostSlots.get<unsigned long long>() + m_plan.map.num_slots,
                    result, accumulate);
    }
    result.strategyRan = m_ran;
    result.strategyReason = m_reason;
    HS_TRY(markedTimings(result.timings));
    result.timings.gpuQueuedNs = m_gpuQueuedNs;
    result.timings.syncedNs = synced;
    return Status::success();
}

Status CudaBackend::equalize(const RequestPlan& plan, unsigned char* output, std::size_t outputPitch,
                             EqualizeResult& result)
{
    HS_CUDA_TRY(cudaSetDevice(m_device));
    m_work = m_stream.get();
    m_marks.clear();
    m_eventsUsed = 0;
    const std::size_t rowBytes = std::size_t(plan.width) * plan.pixelBytes;
    const std::size_t bytes = rowBytes * std::size_t(plan.rows);
    const std::size_t outPitch = plan.rows == 1 ? rowBytes : outputPitch;
    RequestPlan onDevice = plan;
    if (bytes > 0 && plan.space == MemorySpace::Host) {
        HS_TRY(mark(Upload));
        HS_TRY(uploadWhole(plan, onDevice.origin));
        HS_TRY(mark(Untimed));  // the skew sample, if `auto` takes one
        onDevice.pitch = rowBytes;
        onDevice.space = MemorySpace::Device;
    }
    Resolution resolution;
    HS_TRY(resolve(onDevice, Strategy::Auto, resolution));
    m_ran = resolution.choice.strategy;
    m_reason = resolution.choice.reason;
    HS_TRY(enqueue(onDevice, resolution));
    m_marks.pop_back();  // enqueue's End: the LUT and apply phases follow
    m_ready = true;
    const std::uint32_t levels = plan.type == SampleType::U8 ? 256u : 65536u;
    const int active = int(plan.activeChannels());
    const std::size_t lutBytes = std::size_t(active) * levels * sizeof(std::uint32_t);
    HS_TRY(m_luts.reserve(lutBytes));
    HS_TRY(m_hostLuts.reserve(lutBytes));
    HS_TRY(m_equalizeOut.reserve(std::max<std::size_t>(bytes, 1)));
    const LaunchContext ctx{m_props, m_tuning, m_work, m_launchCache};
    HS_TRY(mark(Merge));
    HS_TRY(launchEqualizeLut(plan.map, m_countedSlots, m_luts.get<std::uint32_t>(), levels, active, ctx));
    if (bytes > 0)
        HS_TRY(launchApplyLut(plan.type, plan.channels, SampleGrid{onDevice.origin, onDevice.pitch, plan.width, plan.rows},
                              m_equalizeOut.get<unsigned char>(), rowBytes, plan.map, m_luts.get<std::uint32_t>(), levels, ctx));
    HS_TRY(mark(Download));
    HS_CUDA_TRY(cudaMemcpyAsync(m_hostLuts.get(), m_luts.get(), lutBytes, cudaMemcpyDeviceToHost, m_work));
    if (bytes > 0)
        HS_CUDA_TRY(cudaMemcpy2DAsync(output, outPitch, m_equalizeOut.get(), rowBytes, rowBytes, std::size_t(plan.rows),
                                      cudaMemcpyDeviceToHost, m_work));
    HS_TRY(mark(End));
    m_plan = plan;
    HS_TRY(finish(result.histogram, false));
    result.timings = result.histogram.timings;
    result.luts.assign(std::size_t(active), {});
    for (int i = 0; i < active; ++i) {
        const std::uint32_t* lut = m_hostLuts.get<std::uint32_t>() + std::size_t(i) * levels;
        result.luts[std::size_t(i)].assign(lut, lut + levels);
    }
    return Status::success();
}

Status CudaBackend::applyLuts(const RequestPlan& plan, const std::vector<std::vector<std::uint32_t>>& luts,
                              unsigned char* output, std::size_t outputPitch, PhaseTimings& timings)
{
    HS_CUDA_TRY(cudaSetDevice(m_device));
    m_work = m_stream.get();
    m_marks.clear();
    m_eventsUsed = 0;
    const Status enqueued = enqueueApplyLuts(plan, luts, output, outputPitch);
    // Wait even after a failure: what was enqueued still reads the pinned LUTs and writes `output`.
    const Status drained = cudaStatus(cudaStreamSynchronize(m_work), "cudaStreamSynchronize");
    HS_TRY(enqueued);
    HS_TRY(drained);
    return markedTimings(timings);
}

Status CudaBackend::enqueueApplyLuts(const RequestPlan& plan, const std::vector<std::vector<std::uint32_t>>& luts,
                                     unsigned char* output, std::size_t outputPitch)
{
    const std::size_t rowBytes = std::size_t(plan.width) * plan.pixelBytes;
    const std::size_t bytes = rowBytes * std::size_t(plan.rows);
    // A folded contiguous region is one long row: its pitches are the row itself.
    const std::size_t outPitch = plan.rows == 1 ? rowBytes : outputPitch;
    const std::uint32_t levels = plan.type == SampleType::U8 ? 256u : 65536u;
    const std::size_t lutBytes = luts.size() * levels * sizeof(std::uint32_t);
    HS_TRY(m_luts.reserve(lutBytes));
    HS_TRY(m_hostLuts.reserve(lutBytes));
    // Every call ends with the stream drained, so no earlier copy still reads the pinned LUTs.
    for (std::size_t i = 0; i < luts.size(); ++i)
        std::memcpy(m_hostLuts.get<std::uint32_t>() + i * levels, luts[i].data(), levels * sizeof(std::uint32_t));
    HS_TRY(mark(Upload));
    HS_CUDA_TRY(cudaMemcpyAsync(m_luts.get(), m_hostLuts.get(), lutBytes, cudaMemcpyHostToDevice, m_work));
    if (bytes == 0)
        return mark(End);
    SampleGrid in{plan.origin, plan.rows == 1 ? rowBytes : plan.pitch, plan.width, plan.rows};
    if (plan.space == MemorySpace::Host) {
        HS_TRY(uploadWhole(plan, in.d_origin));
        in.pitch = rowBytes;
    }
    HS_TRY(m_equalizeOut.reserve(bytes));
    HS_TRY(mark(Merge));
    HS_TRY(launchApplyLut(plan.type, plan.channels, in, m_equalizeOut.get<unsigned char>(), rowBytes, plan.map,
                          m_luts.get<std::uint32_t>(), levels, {m_props, m_tuning, m_work, m_launchCache}));
    HS_TRY(mark(Download));
    HS_CUDA_TRY(cudaMemcpy2DAsync(output, outPitch, m_equalizeOut.get(), rowBytes, rowBytes, std::size_t(plan.rows),
                                  cudaMemcpyDeviceToHost, m_work));
    return mark(End);
}

Status CudaBackend::uploadWhole(const RequestPlan& plan, const unsigned char*& d_packed)
{
    const std::size_t rowBytes = std::size_t(plan.width) * plan.pixelBytes;
    HS_TRY(m_equalizeIn.reserve(rowBytes * std::size_t(plan.rows)));
    // A folded contiguous region is one long row: its pitch is the row itself.
    const std::size_t sourcePitch = plan.rows == 1 ? rowBytes : plan.pitch;
    HS_CUDA_TRY(cudaMemcpy2DAsync(m_equalizeIn.get(), rowBytes, plan.origin, sourcePitch, rowBytes, std::size_t(plan.rows),
                                  cudaMemcpyHostToDevice, m_work));
    d_packed = m_equalizeIn.get<unsigned char>();
    return Status::success();
}

Status CudaBackend::markedTimings(PhaseTimings& timings)
{
    // Each mark opens a phase that the next mark closes; stream order makes them back to back.
    double ms[End] = {};
    for (std::size_t i = 0; i + 1 < m_marks.size(); ++i) {
        float elapsed = 0;
        HS_CUDA_TRY(cudaEventElapsedTime(&elapsed, m_marks[i].second, m_marks[i + 1].second));
        ms[m_marks[i].first] += elapsed;
    }
    timings = PhaseTimings{};
    timings.uploadMs = ms[Upload];
    timings.clearMs = ms[Clear];
    timings.tallyMs = ms[Tally];
    timings.mergeMs = ms[Merge];
    timings.downloadMs = ms[Download];
    return Status::success();
}

Status CudaBackend::allocateDevice(std::size_t bytes, std::shared_ptr<void>& data)
{
    HS_CUDA_TRY(cudaSetDevice(m_device));
    void* p = nullptr;
    HS_CUDA_TRY(cudaMalloc(&p, std::max<std::size_t>(bytes, 1)));
    data = std::shared_ptr<void>(p, [stamp = ContextStamp::current()](void* q) {
        if (stamp.live())   // a reset context freed it already
            reportRelease(cudaFree(q), "cudaFree of a DeviceArray");
    });
    return Status::success();
}

Status CudaBackend::copyToDevice(const void* host, std::size_t bytes, void* d_data)
{
    HS_CUDA_TRY(cudaSetDevice(m_device));
    HS_CUDA_TRY(cudaMemcpy(d_data, host, bytes, cudaMemcpyHostToDevice));
    return Status::success();
}

Status CudaBackend::copyToHost(const void* d_data, std::size_t bytes, void* host)
{
    HS_CUDA_TRY(cudaSetDevice(m_device));
    HS_CUDA_TRY(cudaMemcpy(host, d_data, bytes, cudaMemcpyDeviceToHost));
    return Status::success();
}

Status CudaBackend::readProbe(const void* d_data, std::size_t bytes, double& milliseconds)
{
    HS_CUDA_TRY(cudaSetDevice(m_device));
    m_work = m_stream.get();
    m_eventsUsed = 0;
    cudaEvent_t begin = nullptr, end = nullptr;
    HS_TRY(takeEvent(begin));
    HS_TRY(takeEvent(end));
    HS_CUDA_TRY(cudaEventRecord(begin, m_work));
    HS_TRY(launchReadProbe(d_data, bytes, m_probeSink.get<unsigned long long>(), {m_props, m_tuning, m_work, m_launchCache}));
    HS_CUDA_TRY(cudaEventRecord(end, m_work));
    HS_CUDA_TRY(cudaEventSynchronize(end));
    float elapsed = 0;
    HS_CUDA_TRY(cudaEventElapsedTime(&elapsed, begin, end));
    milliseconds = elapsed;
    return Status::success();
}

}  // namespace hs::detail
