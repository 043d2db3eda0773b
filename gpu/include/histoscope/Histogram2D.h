// Exact 2-D histograms: joint histograms of two per-pixel quantities (channel against channel,
// hue against saturation), position against value (waveform, RGB parade) and the vectorscope
// (Cb against Cr). No CUDA types here. docs/SCOPES.md defines every quantity and the integer
// arithmetic of luma, Cb and Cr.
//
// A histogram of one pair of axes is a grid of (x.bins + 3) x (y.bins + 3) 64-bit counters,
// x-major: on each axis the slots [0, bins) are the bins and slots bins, bins + 1, bins + 2 count
// the samples below lo, at or above hi, and NaN, so nothing is dropped and every margin is kept
// per axis (a pixel whose x is below and whose y is in bin 7 lands in slot (x.bins, 7)).
#pragma once

#include "histoscope/HistogramEngine.h"
#include "histoscope/HistogramTypes.h"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hs {

// What an axis measures for each pixel of the region.
enum class Quantity {
    Channel,     // the sample of `channel`, binned as the 1-D engine bins it (any sample type)
    Column,      // the pixel's column within the region, 0-based (waveform, parade)
    Luma,        // Y' code value from R, G, B by the integer formula of the standard
    Cb,          // blue-difference chroma code, 2^(D-1) at grey (vectorscope)
    Cr,          // red-difference chroma code, 2^(D-1) at grey (vectorscope)
    Hue,         // HSV hue in degrees, [0, 360), float32 arithmetic
    Saturation,  // HSV saturation, [0, 1], float32 arithmetic; its `hi` is inclusive
};

std::string_view quantityName(Quantity quantity);  // "channel", "column", "luma", "cb", "cr", "hue", "saturation"
std::optional<Quantity> quantityFromName(std::string_view name);
// True for quantities computed from the R, G and B channels (they need 3 or 4 channels).
bool isColourQuantity(Quantity quantity);

enum class YCbCrStandard { Bt601, Bt709 };
std::string_view standardName(YCbCrStandard standard);  // "bt601", "bt709"
std::optional<YCbCrStandard> standardFromName(std::string_view name);

// Code depth D of luma, Cb and Cr: 8 for u8 samples, 16 for every other type (floats are first
// quantized to 16-bit codes, integers wider than 16 bits are taken as 16-bit codes).
int codeBits(SampleType type);

struct Axis2D {
    Quantity quantity = Quantity::Channel;
    int channel = 0;          // Quantity::Channel only: index into the interleaved pixel
    ChannelBinning binning;   // bins, lo, hi as in the 1-D engine (`active` is ignored)
};

struct AxisPair {
    Axis2D x;
    Axis2D y;
};

inline constexpr int kMaxPairs = 4;
inline constexpr std::uint64_t kMaxCells = std::uint64_t(1) << 24;  // in-range cells, all pairs together

struct Histogram2DRequest {
    ImageView image;
    std::vector<AxisPair> pairs;        // 1..4 histograms, counted in one pass over the pixels
    YCbCrStandard standard = YCbCrStandard::Bt709;
    std::array<int, 3> rgb{0, 1, 2};    // interleaved channels holding R, G and B
    Strategy strategy = Strategy::Auto; // auto, cpu, global-atomic, shared or cub
};

struct AxisOutside {
    std::uint64_t below = 0;
    std::uint64_t above = 0;
    std::uint64_t nan = 0;
};

struct Histogram2D {
    AxisPair axes;
    std::vector<std::uint64_t> grid;    // xSlots() * ySlots() counters, x-major

    std::uint32_t xSlots() const { return axes.x.binning.bins + 3; }
    std::uint32_t ySlots() const { return axes.y.binning.bins + 3; }
    std::uint64_t slot(std::uint32_t sx, std::uint32_t sy) const { return grid[std::size_t(sx) * ySlots() + sy]; }
    // In-range cell (ix < x bins, iy < y bins).
    std::uint64_t count(std::uint32_t ix, std::uint32_t iy) const { return slot(ix, iy); }
    AxisOutside outsideX() const;       // pixels whose x fell below, above or NaN (any y)
    AxisOutside outsideY() const;
    std::uint64_t inRange() const;      // pixels inside both ranges
    std::uint64_t total() const;        // every pixel of the region
    bool operator==(const Histogram2D& other) const;
};

struct Histogram2DResult {
    std::vector<Histogram2D> histograms;  // one per pair, in request order
    Strategy strategyRan = Strategy::Cpu;
    std::string strategyReason;
    PhaseTimings timings;
    std::uint64_t pixels = 0;             // pixels of the region (each counted once per pair)
    bool operator==(const Histogram2DResult& other) const { return histograms == other.histograms; }
};

// ---- Building the usual requests --------------------------------------------------------------

// The value axis of a scope for a sample type: 256 bins over the code range, [0, 256) for u8,
// [0, 65536) for other integers and for codes made from floats; a float Channel axis covers [0, 1).
ChannelBinning scopeValueBinning(SampleType type, Quantity quantity);
// One bin per column of a region `width` pixels wide, or `bins` equal column bins.
Axis2D columnAxis(std::int64_t width, std::uint32_t bins = 0);
Axis2D channelAxis(int channel, SampleType type);
Axis2D colourAxis(Quantity quantity, SampleType type);   // luma, cb, cr, hue or saturation defaults

// The region's width (the ROI's when there is one).
std::int64_t regionWidth(const ImageView& image);

// Parade: one (column, channel value) histogram per listed channel.
Histogram2DRequest paradeRequest(const ImageView& image, const std::vector<int>& channels, std::uint32_t columnBins = 0);
// Waveform of luma: one (column, luma) histogram.
Histogram2DRequest lumaWaveformRequest(const ImageView& image, YCbCrStandard standard, std::array<int, 3> rgb,
                                       std::uint32_t columnBins = 0);
// Vectorscope: one (Cb, Cr) histogram, `bins` per axis (0: 256).
Histogram2DRequest vectorscopeRequest(const ImageView& image, YCbCrStandard standard, std::array<int, 3> rgb,
                                      std::uint32_t bins = 0);
// Channel a against channel b with each channel's scope binning.
Histogram2DRequest jointRequest(const ImageView& image, int a, int b);
// Hue (360 bins over [0, 360)) against saturation (256 bins over [0, 1]).
Histogram2DRequest hueSaturationRequest(const ImageView& image, std::array<int, 3> rgb);

// ---- Counting ----------------------------------------------------------------------------------

// Checks a request without counting; the same words every backend refuses it with.
Status validateHistogram2D(const Histogram2DRequest& request);

// The plain serial definition, host memory only: what every strategy must equal bit for bit.
Status referenceHistogram2D(const Histogram2DRequest& request, Histogram2DResult& result);

// Facade: counts 2-D histograms on the GPU when there is one (its own stream and buffers), else
// on the CPU with OpenMP. Same thread contract as HistogramEngine: one engine per thread.
class Histogram2DEngine {
public:
    explicit Histogram2DEngine(EngineOptions options = {});
    ~Histogram2DEngine();
    Histogram2DEngine(const Histogram2DEngine&) = delete;
    Histogram2DEngine& operator=(const Histogram2DEngine&) = delete;

    BackendKind backend() const;
    bool hasGpu() const { return backend() == BackendKind::Cuda; }
    const std::string& notice() const;

    // Counts and replaces `result` (blocks the calling thread). The counts are written straight
    // into result's grids, whose memory is reused when they have the request's shape (a live
    // scope's next frame); after any error `result` is empty, never partly counted.
    Status compute(const Histogram2DRequest& request, Histogram2DResult& result);
    // Adds the counts to `result`, which must hold the same pairs and binnings; after an error
    // `result` is as it was.
    Status accumulate(const Histogram2DRequest& request, Histogram2DResult& result);
    // What the request's strategy resolves to here, and why.
    Status chooseStrategy(const Histogram2DRequest& request, StrategyChoice& choice);

    class Impl;

private:
    std::unique_ptr<Impl> m_impl;
};

}  // namespace hs
