// The 2-D exactness matrix, shared by tests/tst_histogram2d.cpp and the Qt-free H200 self-check
// (bench/ScopesBench.cpp): every kind of 2-D request over every sample type, channel counts,
// ROI offsets, padded strides, bin layouts that exercise the margins and each kernel family's
// paths (16- and 32-bit counters, sparse and dense merges, tiles), and several distributions.
#pragma once

#include "histoscope/Histogram2D.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace hs::testing {

enum class Content2D { Uniform, Smooth, Constant, Specials };

struct Case2D {
    std::string name;
    SampleType type = SampleType::U8;
    std::int64_t width = 0;
    std::int64_t height = 0;
    int channels = 3;
    std::size_t extraStrideSamples = 0;
    std::optional<Rect> roi;
    Content2D content = Content2D::Uniform;
    std::string kind;   // parade, parade-bins, waveform601, waveform709, vectorscope601, vectorscope709,
                        // vectorscope-coarse, joint, joint-odd, joint-large, huesat, mixed
};

std::vector<Case2D> histogram2DMatrix();

struct Image2D {
    std::vector<unsigned char> bytes;
    ImageView view;
};
Image2D makeImage2D(const Case2D& c, std::mt19937_64& rng);
Histogram2DRequest makeRequest2D(const Case2D& c, const ImageView& view, Strategy strategy);

// A result whose every counter holds a value no count would, to prove every counter was written.
Histogram2DResult poisoned2D();
// Where two results differ, in words; empty when they are equal.
std::string describeDifference2D(const Histogram2DResult& expected, const Histogram2DResult& actual);

}  // namespace hs::testing
