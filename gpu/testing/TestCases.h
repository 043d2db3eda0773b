// Fixtures shared by the Qt tests and the Qt-free GPU self-check: the exactness matrix
// (named cases) and generators for fresh random frames in every distribution.
#pragma once

#include "histoscope/HistogramTypes.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace hs::testing {

enum class Distribution { Uniform, Zipf, Hot90, Single, SortedRuns };
std::string_view distributionName(Distribution d);
const std::vector<Distribution>& allDistributions();

struct Case {
    std::string name;
    SampleType type = SampleType::U8;
    std::int64_t width = 0;
    std::int64_t height = 0;
    int channels = 1;
    std::size_t extraStrideSamples = 0;   // row padding, in samples
    std::optional<Rect> roi;
    std::uint32_t bins = 256;
    double lo = 0;
    double hi = 256;
    bool identity = false;
    Distribution distribution = Distribution::Uniform;
    bool floatSpecials = false;           // NaN, +-inf, out of range and values just below hi
    std::optional<double> everySample;    // every sample this value (NaN, -0, ...) instead of a distribution
    unsigned activeMask = 0xf;
};

// The exactness matrix of issue #2: types, sizes, strides, bins, distributions, channels,
// ROI offsets and float specials, each row varying one or two of them.
std::vector<Case> exactnessMatrix();

// A generated image for a case: rows of `width` pixels, stride padded as the case asks. Padding
// bytes hold values that would land in real bins, so reading them would show up as a wrong count.
struct SyntheticImage {
    std::vector<unsigned char> bytes;
    ImageView view;
};
SyntheticImage makeSyntheticImage(const Case& c, std::mt19937_64& rng);
HistogramRequest makeCaseRequest(const Case& c, const SyntheticImage& image, Strategy strategy);

// Fills `count` samples of `type` with a distribution over `bins` bins of [lo, hi).
void fillSamples(void* out, std::size_t count, SampleType type, Distribution d, std::uint32_t bins, double lo,
                 double hi, std::mt19937_64& rng, bool floatSpecials = false);

// Where two results differ, in words; empty when they are equal.
std::string describeDifference(const HistogramResult& expected, const HistogramResult& actual);

// A result full of counts no strategy would produce, to prove that every bin was written.
HistogramResult poisonedResult();

// The seed of this run: HISTOSCOPE_SEED when it is set (to replay a seed a failing run printed),
// otherwise a fresh random one. Callers print it.
std::uint64_t runSeed();
// A generator for one named case of a run, so a printed seed replays any single case alone.
std::mt19937_64 caseRng(std::uint64_t seed, std::string_view caseName);

}  // namespace hs::testing
