// The CPU backend's 8-bit counting loops for channels that bin one value per bin over [0, 256)
// (CpuBackend.cpp, isDirectU8): the commonest frame of all. What bounds them on this machine is
// the counter stores: about one a cycle into counters that stay in L1 (4K RGB noise, three stores
// a pixel: 7.0 ms of one core, the same with plain stores, 5.5 with the loads alone), two to three
// cycles into the 256 KiB pair table. So the loops spend arithmetic to save stores: equal pixels
// are folded into one run in registers, and the first two channels of three or four are counted
// as one pair (6.2-6.5 ms of one core on that frame).
#pragma once

#include "CpuTuning.h"

#include <cstdint>
#include <cstring>
#include <utility>

namespace hs::detail::cpu8 {

// Pixels per step; pixel k of a step counts into sub-histogram k, so equal neighbours in a step
// that is not folded never increment one counter back to back.
inline constexpr int kStep = 4;
static_assert(kCpuTuning.subHistograms == kStep, "one sub-histogram per pixel of a four-pixel step");

// Counter of value v of channel c in sub-histogram k: a constant offset from one base register,
// where twelve run-time pointers (one per sub-histogram and channel) spilled.
inline constexpr std::size_t counter(int k, int c, int channels) { return std::size_t(k * channels + c) * 256; }

// Counter R + 256 G of the pair table (three or four channels).
inline constexpr std::size_t kPairWords = 65536;

// Byte B of a four-pixel step held in two words; B is a constant, so this is one shift and mask.
template <int B>
inline std::uint32_t stepByte(std::uint64_t w0, std::uint64_t w1)
{
    if constexpr (B < 8)
        return std::uint32_t(w0 >> (8 * B)) & 0xffu;
    else
        return std::uint32_t(w1 >> (8 * (B - 8))) & 0xffu;
}

// Bytes B and B + 1 (one pixel's first two channels) from the word that holds both: B is 0, 3, 6
// or 9 (three channels) or 0, 4, 8 or 12 (four), never straddling.
template <int B>
inline std::uint32_t stepPair(std::uint64_t w0, std::uint64_t w1)
{
    static_assert(B <= 6 || B >= 8, "a pair must sit in one word");
    if constexpr (B <= 6)
        return std::uint32_t(w0 >> (8 * B)) & 0xffffu;
    else
        return std::uint32_t(w1 >> (8 * (B - 8))) & 0xffffu;
}

// The 4 * C bytes of a step as two words, loaded whole: a copy of 12 bytes into a 16-byte buffer
// would be read back across two stores, which defeats store forwarding (28 ms instead of 3.6 on a
// 4K RGB frame).
template <int C>
inline void loadStep(const unsigned char* s, std::uint64_t& w0, std::uint64_t& w1)
{
    w0 = 0;
    w1 = 0;
    if constexpr (C == 1) {
        std::uint32_t lo;
        std::memcpy(&lo, s, 4);
        w0 = lo;
    } else {
        std::memcpy(&w0, s, 8);
        if constexpr (C == 3) {
            std::uint32_t hi;
            std::memcpy(&hi, s + 8, 4);
            w1 = hi;
        } else if constexpr (C == 4) {
            std::memcpy(&w1, s + 8, 8);
        }
    }
}

// Whether the step's pixels are all equal: every byte equals the one C bytes on. Noise fails it
// every step, so it works on the words already loaded.
template <int C>
inline bool uniformStep(std::uint64_t w0, std::uint64_t w1)
{
    if constexpr (C == 1) {
        const std::uint32_t x = std::uint32_t(w0);
        return x == ((x >> 8) | (x << 24));
    } else if constexpr (C == 2) {
        return w0 == ((w0 >> 16) | (w0 << 48));
    } else if constexpr (C == 3) {
        // Bytes 3-10 against 0-7, then byte 11 against 8.
        return (w0 == ((w0 >> 24) | (w1 << 40))) & ((w1 & 0xffu) == (w1 >> 24));
    } else {
        return (w0 == w1) & (std::uint32_t(w0) == std::uint32_t(w0 >> 32));
    }
}

// A run of equal pixels, counted in registers and added to the counters once where it ends: a
// constant or flat region costs no store per pixel, and the same counter is never incremented
// back to back: those store-to-load chains made the pair table up to twice as slow on constant
// and smooth frames as on noise (issue 21: a 4K RGB constant frame 11.4 ms against 5.6-6.9).
struct Run {
    std::uint32_t pixel = 0;  // the pixel's C bytes, first channel lowest
    std::uint32_t count = 0;  // at most one task's pixels
};

template <int C, bool Paired>
inline void addRun(const Run& run, std::uint32_t* table, std::uint32_t* pairs)
{
    int c = 0;
    if constexpr (Paired) {
        pairs[run.pixel & 0xffffu] += run.count;
        c = 2;
    }
    for (; c < C; ++c)
        table[counter(0, c, C) + ((run.pixel >> (8 * c)) & 0xffu)] += run.count;
}

template <int C, std::size_t... B>
inline void directStep(std::uint64_t w0, std::uint64_t w1, std::uint32_t* table, std::index_sequence<B...>)
{
    (++table[counter(int(B) / C, int(B) % C, C) + stepByte<int(B)>(w0, w1)], ...);
}

// Counter R + 256 G takes one store where two counters took two, and is folded into both
// channels' bins at the flush; the other channels go to the sub-histograms.
template <int C, std::size_t... K>
inline void pairStep(std::uint64_t w0, std::uint64_t w1, std::uint32_t* table, std::uint32_t* pairs,
                     std::index_sequence<K...>)
{
    static_assert(C >= 3, "pairs need a third channel to keep the step's words whole");
    (++pairs[stepPair<int(K) * C>(w0, w1)], ...);
    (++table[counter(int(K), 2, C) + stepByte<int(K) * C + 2>(w0, w1)], ...);
    if constexpr (C == 4)
        (++table[counter(int(K), 3, C) + stepByte<int(K) * C + 3>(w0, w1)], ...);
}

// n pixels of C channels from s into table (kTableWords<C>) and, when Paired, pairs (kPairWords).
template <int C, bool Paired>
void count(const unsigned char* s, std::int64_t n, std::uint32_t* table, std::uint32_t* pairs)
{
    constexpr std::uint32_t pixelMask = C == 4 ? 0xffffffffu : (1u << (8 * C)) - 1;
    Run run;
    std::int64_t i = 0;
    while (i + kStep <= n) {
        std::uint64_t w0, w1;
        loadStep<C>(s, w0, w1);
        if (!uniformStep<C>(w0, w1)) {
            if constexpr (Paired)
                pairStep<C>(w0, w1, table, pairs, std::make_index_sequence<kStep>{});
            else
                directStep<C>(w0, w1, table, std::make_index_sequence<kStep * C>{});
            i += kStep;
            s += kStep * C;
            continue;
        }
        const std::uint32_t pixel = std::uint32_t(w0) & pixelMask;
        if (pixel != run.pixel) {
            addRun<C, Paired>(run, table, pairs);
            run = {pixel, 0};
        }
        // The run goes on while whole steps repeat this one's words: two loads and compares a step.
        const std::int64_t start = i;
        std::uint64_t x0 = w0, x1 = w1;
        do {
            i += kStep;
            s += kStep * C;
            if (i + kStep > n)
                break;
            loadStep<C>(s, x0, x1);
        } while (x0 == w0 && x1 == w1);
        run.count += std::uint32_t(i - start);
    }
    addRun<C, Paired>(run, table, pairs);
    for (; i < n; ++i, s += C) {
        int c = 0;
        if constexpr (Paired) {
            ++pairs[s[0] + 256u * s[1]];
            c = 2;
        }
        for (; c < C; ++c)
            ++table[counter(0, c, C) + s[c]];
    }
}

// Adds the pair table's counts into the first two channels' bins (first: the low byte R, second:
// G). The sums stay 32-bit, which lets them vectorise where the table's 65,536 scattered 64-bit
// additions took 0.1 ms a thread: the whole table counts at most the pixels since the flush
// (kCpuFlushPixels, 2^31), so no sum reaches 2^32.
inline void foldPairs(const std::uint32_t* pairs, std::uint64_t* first, std::uint64_t* second)
{
    std::uint32_t columns[256] = {};
    for (std::uint32_t g = 0; g < 256; ++g) {
        const std::uint32_t* row = pairs + 256 * g;
        std::uint32_t rowSum = 0;
        for (std::uint32_t r = 0; r < 256; ++r) {
            rowSum += row[r];
            columns[r] += row[r];
        }
        second[g] += rowSum;
    }
    for (std::uint32_t r = 0; r < 256; ++r)
        first[r] += columns[r];
}

}  // namespace hs::detail::cpu8
