// A validated, normalised request: the geometry every backend walks and the slot map it counts
// into. Validation lives here once, so every backend refuses bad input with the same words.
#pragma once

#include "SlotMapping.h"
#include "histoscope/HistogramTypes.h"

#include <array>
#include <cstdint>
#include <utility>

namespace hs::detail {

struct RequestPlan {
    SampleType type = SampleType::U8;
    MemorySpace space = MemorySpace::Host;
    int channels = 1;
    std::size_t pixelBytes = 1;
    const unsigned char* origin = nullptr;  // first byte of the counted region
    std::size_t pitch = 0;                  // bytes from one row of the region to the next
    std::int64_t width = 0;                 // pixels per row of the region
    std::int64_t rows = 0;                  // a contiguous region is folded into one row
    std::array<ChannelBinning, kMaxChannels> binning{};
    SlotMap map;
    std::uintptr_t stream = 0;              // the caller's CUDA stream; 0: the engine's own
    void* deviceCounts = nullptr;           // HistogramRequest::deviceCounts
    std::uint32_t deviceCountsChannels = ~0u;  // HistogramRequest::deviceCountsChannels
    bool deviceCountsAtFinish = false;      // HistogramRequest::deviceCountsAtFinish

    bool countsStayOnDevice() const { return deviceCounts || deviceCountsAtFinish; }

    std::int64_t pixels() const { return width * rows; }
    std::uint64_t activeChannels() const;
    std::uint64_t samples() const { return std::uint64_t(pixels()) * activeChannels(); }
    const unsigned char* row(std::int64_t r) const { return origin + std::size_t(r) * pitch; }
};

Status buildPlan(const HistogramRequest& request, RequestPlan& plan);

// True when the counts alone are sure to give every channel's exact extremes: 8- or 16-bit
// samples whose active channels all bin one value per bin over the type's whole range, so no
// sample can fall below or above and the first and last non-empty bins are the minimum and
// maximum. Counting paths then skip tracking them; every other plan tracks them beside the counts
// (encodeMinKey/MaxKey). unpackSlots takes them from the counts for any one-value-per-bin channel
// that turned out to have nothing below or above.
bool extremaFromCounts(SampleType type, const SlotMap& map);
using ExtremaWords = std::array<unsigned long long, kExtremaWords>;

// Slot counts (plan.map.num_slots of them) and the tracked extremes (kExtremaWords encoded words,
// unread where the counts give them) into per-channel histograms.
void unpackSlots(const RequestPlan& plan, const std::uint64_t* slots, const unsigned long long* extrema,
                 HistogramResult& result, bool accumulate);

// A device-resident result (HistogramRequest::deviceCounts) downloads only a tail of words per
// interleaved channel: its below, above and NaN counts, then, for a one-value-per-bin channel,
// max(bins - b) and max(b + 1) over its non-empty bins b (0: none), so that the first and last
// non-empty bins give the extremes as unpackSlots reads them off host counts.
inline constexpr std::uint32_t kTailWordsPerChannel = 5;
inline constexpr std::uint32_t kTailWords = kTailWordsPerChannel * kMaxChannels;
enum TailWord : std::uint32_t { TailBelow, TailAbove, TailNan, TailFirstKey, TailLastKey };

// The margins and extremes of a device-resident result: every channel's counts stay empty.
void unpackMargins(const RequestPlan& plan, const unsigned long long* extrema, const unsigned long long* tail,
                   HistogramResult& result);

// Calls f(T{}) with the storage type of a sample type: HalfBits stands in for f16.
template <typename F>
decltype(auto) visitSampleType(SampleType type, F&& f)
{
    switch (type) {
    case SampleType::U8: return f(std::uint8_t{});
    case SampleType::U16: return f(std::uint16_t{});
    case SampleType::I32: return f(std::int32_t{});
    case SampleType::U32: return f(std::uint32_t{});
    case SampleType::F16: return f(HalfBits{});
    case SampleType::F32: break;
    }
    return f(float{});
}

}  // namespace hs::detail
