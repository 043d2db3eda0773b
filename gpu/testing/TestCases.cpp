#include "gpu/testing/TestCases.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <iomanip>
#include <sstream>
#include <utility>

namespace hs::testing {

std::string_view distributionName(Distribution d)
{
    switch (d) {
    case Distribution::Uniform: return "uniform";
    case Distribution::Zipf: return "zipf";
    case Distribution::Hot90: return "hot90";
    case Distribution::Single: return "single";
    case Distribution::SortedRuns: return "sorted";
    }
    return "?";
}

const std::vector<Distribution>& allDistributions()
{
    static const std::vector<Distribution> all{Distribution::Uniform, Distribution::Zipf, Distribution::Hot90,
                                               Distribution::Single, Distribution::SortedRuns};
    return all;
}

std::uint64_t runSeed()
{
    if (const char* text = std::getenv("HISTOSCOPE_SEED"); text && *text)
        return std::strtoull(text, nullptr, 0);
    std::random_device device;
    return (std::uint64_t(device()) << 32) ^ device();
}

std::mt19937_64 caseRng(std::uint64_t seed, std::string_view caseName)
{
    // FNV-1a: stable across runs and platforms, unlike std::hash.
    std::uint64_t h = 14695981039346656037ull;
    for (unsigned char ch : caseName)
        h = (h ^ ch) * 1099511628211ull;
    std::seed_seq sequence{std::uint32_t(seed), std::uint32_t(seed >> 32), std::uint32_t(h), std::uint32_t(h >> 32)};
    return std::mt19937_64(sequence);
}

namespace {

Case base(std::string name, SampleType type, std::int64_t w, std::int64_t h, int channels = 1)
{
    Case c;
    c.name = std::move(name);
    c.type = type;
    c.width = w;
    c.height = h;
    c.channels = channels;
    const ChannelBinning b = defaultBinning(type);
    c.bins = type == SampleType::U8 || isFloatType(type) ? 256 : 4096;
    c.lo = b.lo;
    c.hi = isFloatType(type) ? 1.0 : double(c.bins);
    c.identity = !isFloatType(type);
    return c;
}

std::string typeName(SampleType t) { return std::string(sampleTypeName(t)); }

}  // namespace

std::vector<Case> exactnessMatrix()
{
    std::vector<Case> cases;
    const SampleType types[] = {SampleType::U8, SampleType::U16, SampleType::I32,
                                SampleType::U32, SampleType::F16, SampleType::F32};
    for (SampleType t : types)
        cases.push_back(base("type-" + typeName(t), t, 257, 67));

    cases.push_back(base("size-0x0", SampleType::U8, 0, 0));
    cases.push_back(base("size-1x1", SampleType::U8, 1, 1));
    cases.push_back(base("size-1xN", SampleType::U16, 1, 1001));
    cases.push_back(base("size-Nx1", SampleType::F32, 1001, 1));
    cases.push_back(base("size-odd-333x77-rgb", SampleType::U8, 333, 77, 3));
    cases.push_back(base("size-1920x1080-rgb", SampleType::U8, 1920, 1080, 3));
    cases.push_back(base("size-1920x1080-u16", SampleType::U16, 1920, 1080));
    {
        Case c = base("stride-odd-rgb", SampleType::U8, 101, 31, 3);
        c.extraStrideSamples = 3;  // 306-byte rows: not a multiple of 16
        cases.push_back(c);
        Case d = base("stride-odd-f32", SampleType::F32, 37, 29, 1);
        d.extraStrideSamples = 1;
        cases.push_back(d);
    }
    for (std::uint32_t bins : {1u, 16u, 256u, 4096u, 32768u, 65536u}) {
        for (SampleType t : {SampleType::U16, SampleType::U32, SampleType::I32}) {
            Case c = base("bins-" + std::to_string(bins) + "-" + typeName(t), t, 1024, 300);
            c.bins = bins;
            c.identity = false;
            c.lo = 0;
            c.hi = 65536;
            cases.push_back(c);
        }
        Case f = base("bins-" + std::to_string(bins) + "-f32", SampleType::F32, 1024, 300);
        f.bins = bins;
        cases.push_back(f);
    }
    // Rows longer than three of `partition`'s split tiles (8,192 pixels of one channel): whole
    // tiles on a 16-byte boundary are read in 16-byte words, the rest sample by sample (rows of
    // 8- and 16-bit samples here start off that boundary after the first).
    for (SampleType t : types) {
        Case c = base("long-rows-" + typeName(t), t, 3 * 8192 + 100, 3);
        cases.push_back(c);
    }
    // Signed keys one bin a value beyond opt-in shared memory: every kernel of the general and
    // identity mappers at the block size it is launched with (the hot cache's int32 instance once
    // took more registers than 1,024 threads allow, and did not launch).
    for (std::uint32_t bins : {65536u, 100000u}) {
        Case c = base("bins-" + std::to_string(bins) + "-i32-identity", SampleType::I32, 1024, 300);
        c.bins = bins;
        c.hi = double(bins);
        cases.push_back(c);
    }
    {
        // The correct path's upper limit: 2^24 bins per channel.
        Case c = base("bins-16777216-u32", SampleType::U32, 251, 67);
        c.bins = kMaxBins;
        c.identity = true;
        c.hi = kMaxBins;
        cases.push_back(c);
        Case f = base("bins-16777216-f32-skewed", SampleType::F32, 251, 67);
        f.bins = kMaxBins;
        f.distribution = Distribution::Hot90;
        cases.push_back(f);
    }
    for (Distribution d : allDistributions()) {
        for (auto [t, bins] : {std::pair{SampleType::U8, 256u}, std::pair{SampleType::U32, 4096u},
                               std::pair{SampleType::U32, 65536u}, std::pair{SampleType::F32, 32768u}}) {
            Case c = base("dist-" + std::string(distributionName(d)) + "-" + typeName(t) + "-" + std::to_string(bins),
                          t, 4099, 257);
            c.distribution = d;
            c.bins = bins;
            if (!isFloatType(t))
                c.hi = bins;
            cases.push_back(c);
        }
        Case rgb = base("dist-" + std::string(distributionName(d)) + "-rgb", SampleType::U8, 640, 480, 3);
        rgb.distribution = d;
        cases.push_back(rgb);
        // Past 2^20 pixels the CPU backend counts 8-bit R and G as pairs (CpuTuning.h): an odd
        // width leaves a tail of three pixels per row, and the RGBA frame has padded rows.
        Case paired = base("paired-" + std::string(distributionName(d)) + "-rgb", SampleType::U8, 1031, 1021, 3);
        paired.distribution = d;
        cases.push_back(paired);
        Case pairedRgba = base("paired-" + std::string(distributionName(d)) + "-rgba", SampleType::U8, 1031, 1021, 4);
        pairedRgba.distribution = d;
        pairedRgba.extraStrideSamples = 5;
        cases.push_back(pairedRgba);
    }
    for (int channels : {1, 2, 3, 4}) {
        for (SampleType t : {SampleType::U8, SampleType::U16, SampleType::F32}) {
            Case c = base("channels-" + std::to_string(channels) + "-" + typeName(t), t, 331, 97, channels);
            cases.push_back(c);
        }
    }
    for (int channels : {1, 2, 3, 4}) {
        // The CPU backend folds steps of four equal 8-bit pixels into runs (CpuCountU8.h): 90 %
        // one value mixes folded and counted steps, and an odd width leaves a tail per row.
        Case c = base("runs-hot90-u8-" + std::to_string(channels) + "ch", SampleType::U8, 333, 41, channels);
        c.distribution = Distribution::Hot90;
        cases.push_back(c);
    }
    {
        Case c = base("channels-3-only-green", SampleType::U8, 331, 97, 3);
        c.activeMask = 0x2;
        cases.push_back(c);
        Case d = base("channels-4-no-alpha-u16", SampleType::U16, 331, 97, 4);
        d.activeMask = 0x7;
        cases.push_back(d);
    }
    for (std::int64_t x : {1, 3, 5, 13, 17}) {
        Case c = base("roi-x" + std::to_string(x) + "-rgb", SampleType::U8, 509, 83, 3);
        c.roi = Rect{x, 7, 509 - x - 2, 83 - 11};
        cases.push_back(c);
        Case d = base("roi-x" + std::to_string(x) + "-u16", SampleType::U16, 509, 83, 1);
        d.roi = Rect{x, 3, 300, 50};
        cases.push_back(d);
    }
    // 8-bit regions whose rows all share one alignment (a pitch of whole 16-byte vectors), which
    // `per-lane` reads as one sequence of groups; and a region too narrow for any group.
    for (int channels = 1; channels <= 4; ++channels)
        for (std::int64_t x : {3, 16}) {
            Case c = base("roi-x" + std::to_string(x) + "-pitch16-c" + std::to_string(channels), SampleType::U8, 512, 70,
                          channels);
            c.roi = Rect{x, 5, 512 - x - 7, 60};
            cases.push_back(c);
        }
    {
        Case c = base("roi-x3-pitch16-narrow-rgb", SampleType::U8, 512, 40, 3);
        c.roi = Rect{3, 2, 5, 30};
        cases.push_back(c);
    }
    {
        Case c = base("roi-full-width-rows", SampleType::F32, 300, 100, 1);
        c.roi = Rect{0, 10, 300, 50};
        cases.push_back(c);
    }
    for (SampleType t : {SampleType::F32, SampleType::F16}) {
        for (std::uint32_t bins : {7u, 1000u}) {
            Case c = base("float-specials-" + typeName(t) + "-" + std::to_string(bins), t, 777, 55, 1);
            c.bins = bins;
            c.lo = -1.0;
            c.hi = 3.0;
            c.floatSpecials = true;
            cases.push_back(c);
        }
        Case rgb = base("float-specials-rgba-" + typeName(t), t, 211, 37, 4);
        rgb.floatSpecials = true;
        rgb.lo = -0.3;
        rgb.hi = 0.7;
        cases.push_back(rgb);
    }
    {
        // Extremes where the counts cannot give them: nothing but NaN (no extremes at all), zeros
        // of both signs (reported as +0), and one value per bin with samples beyond both ends.
        Case nan = base("extremes-nan-only-f32", SampleType::F32, 67, 13, 2);
        nan.everySample = std::numeric_limits<double>::quiet_NaN();
        cases.push_back(nan);
        Case zero = base("extremes-negative-zero-f16", SampleType::F16, 67, 13, 1);
        zero.everySample = -0.0;
        cases.push_back(zero);
        Case u16 = base("extremes-identity-out-of-range-u16", SampleType::U16, 513, 65, 2);
        u16.lo = 100;
        u16.hi = 100 + 4096;
        u16.floatSpecials = true;
        cases.push_back(u16);
        Case u8 = base("extremes-identity-partial-u8", SampleType::U8, 513, 65, 4);
        u8.bins = 128;
        u8.lo = 64;
        u8.hi = 192;
        u8.floatSpecials = true;
        cases.push_back(u8);
    }
    {
        Case c = base("int-out-of-range-i32", SampleType::I32, 513, 65);
        c.identity = false;
        c.lo = -1000;
        c.hi = 1000;
        c.bins = 300;
        c.floatSpecials = true;  // for integers: values beyond [lo, hi) on both sides
        cases.push_back(c);
        // One bin a value for signed keys (the identity mapper's one unsigned compare): below
        // zero, and at either end of int32, with samples beyond the range on each side int32 has
        // (none can lie above a range that ends at 2^31; INT32_MIN lies below the lowest one's).
        for (const auto& [name, lo] : {std::pair<const char*, double>{"int-out-of-range-i32-identity", -1000.0},
                                       {"i32-identity-lowest", -2147483648.0 + 50},
                                       {"i32-identity-highest", 2147483648.0 - 4096}}) {
            Case i = base(name, SampleType::I32, 513, 65);
            i.lo = lo;
            i.bins = lo == -1000.0 ? 2000 : 4096;
            i.hi = lo + i.bins;
            i.floatSpecials = true;
            cases.push_back(i);
        }
        Case d = base("int-out-of-range-u8-general", SampleType::U8, 513, 65, 3);
        d.identity = false;
        d.lo = 10;
        d.hi = 201;
        d.bins = 37;
        d.floatSpecials = true;
        cases.push_back(d);
    }
    return cases;
}

namespace {

std::uint16_t floatToHalf(float f)
{
    // Round to nearest even, enough for test data (the engine's own conversion is the reverse).
    std::uint32_t x;
    std::memcpy(&x, &f, 4);
    const std::uint32_t sign = (x >> 16) & 0x8000u;
    const std::uint32_t absx = x & 0x7fffffffu;
    if (absx >= 0x7f800000u)
        return std::uint16_t(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0));
    if (absx >= 0x477ff000u)
        return std::uint16_t(sign | 0x7c00u);
    if (absx < 0x38800000u) {  // subnormal or zero
        const float scaled = std::fabs(f) * 16777216.0f;  // 2^24
        return std::uint16_t(sign | std::uint32_t(std::nearbyint(scaled)));
    }
    std::uint32_t mant = absx & 0x7fffffu;
    std::uint32_t exp = (absx >> 23) - 112;
    std::uint32_t h = (exp << 10) | (mant >> 13);
    const std::uint32_t rest = mant & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1)))
        ++h;
    return std::uint16_t(sign | h);
}

struct BinDrawer {
    Distribution d;
    std::uint32_t bins;
    std::uint32_t hot;
    std::vector<double> zipfCdf;

    BinDrawer(Distribution dist, std::uint32_t b, std::mt19937_64& rng) : d(dist), bins(b)
    {
        hot = std::uniform_int_distribution<std::uint32_t>(0, b - 1)(rng);
        if (d == Distribution::Zipf) {
            zipfCdf.resize(b);
            double sum = 0;
            for (std::uint32_t k = 0; k < b; ++k)
                zipfCdf[k] = (sum += 1.0 / double(k + 1));
            for (double& v : zipfCdf)
                v /= sum;
        }
    }
    std::uint32_t draw(std::mt19937_64& rng)
    {
        std::uniform_int_distribution<std::uint32_t> any(0, bins - 1);
        switch (d) {
        case Distribution::Uniform:
        case Distribution::SortedRuns: return any(rng);
        case Distribution::Zipf: {
            const double u = std::uniform_real_distribution<double>(0, 1)(rng);
            const auto it = std::lower_bound(zipfCdf.begin(), zipfCdf.end(), u);
            // Rank k goes to a scattered bin, so the hot bins are not all at the start.
            const std::uint32_t rank = std::uint32_t(std::min<std::ptrdiff_t>(it - zipfCdf.begin(), bins - 1));
            return std::uint32_t((std::uint64_t(rank) * 2654435761u + hot) % bins);
        }
        case Distribution::Hot90: return std::uniform_int_distribution<int>(0, 9)(rng) ? hot : any(rng);
        case Distribution::Single: return hot;
        }
        return 0;
    }
};

template <typename T>
void store(void* out, std::size_t i, T v) { std::memcpy(static_cast<unsigned char*>(out) + i * sizeof(T), &v, sizeof(T)); }

}  // namespace

void fillSamples(void* out, std::size_t count, SampleType type, Distribution d, std::uint32_t bins, double lo,
                 double hi, std::mt19937_64& rng, bool specials)
{
    BinDrawer drawer(d, bins, rng);
    std::uniform_real_distribution<double> unit(0, 1);
    std::uniform_int_distribution<int> percent(0, 99);
    std::vector<double> values(count);
    const bool integer = !isFloatType(type);
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint32_t bin = drawer.draw(rng);
        double v = lo + (bin + unit(rng)) * (hi - lo) / bins;
        if (integer)
            v = std::floor(v);
        if (specials && percent(rng) < 12) {
            switch (percent(rng) % 6) {
            case 0: v = lo - 1 - unit(rng) * 100; break;
            case 1: v = hi + unit(rng) * 100; break;
            case 2: v = integer ? hi : std::nextafter(float(hi), float(lo)); break;  // just below hi
            case 3: v = integer ? lo : std::numeric_limits<double>::quiet_NaN(); break;
            case 4: v = integer ? hi - 1 : std::numeric_limits<double>::infinity(); break;
            default: v = integer ? lo - 1 : -std::numeric_limits<double>::infinity(); break;
            }
        }
        values[i] = v;
    }
    if (d == Distribution::SortedRuns)
        std::sort(values.begin(), values.end(), [](double a, double b) { return a < b || (a == a && b != b); });
    for (std::size_t i = 0; i < count; ++i) {
        const double v = values[i];
        switch (type) {
        case SampleType::U8: store<std::uint8_t>(out, i, std::uint8_t(std::clamp(v, 0.0, 255.0))); break;
        case SampleType::U16: store<std::uint16_t>(out, i, std::uint16_t(std::clamp(v, 0.0, 65535.0))); break;
        case SampleType::I32: store<std::int32_t>(out, i, std::int32_t(std::clamp(v, -2147483648.0, 2147483647.0))); break;
        case SampleType::U32: store<std::uint32_t>(out, i, std::uint32_t(std::clamp(v, 0.0, 4294967295.0))); break;
        case SampleType::F16: store<std::uint16_t>(out, i, floatToHalf(float(v))); break;
        case SampleType::F32: store<float>(out, i, float(v)); break;
        }
    }
}

SyntheticImage makeSyntheticImage(const Case& c, std::mt19937_64& rng)
{
    SyntheticImage image;
    const std::size_t sample = sampleSize(c.type);
    const std::size_t rowSamples = std::size_t(c.width) * c.channels + c.extraStrideSamples;
    const std::size_t total = rowSamples * std::size_t(c.height);
    // One spare sample so the data pointer can be offset, and so nothing is ever empty.
    image.bytes.resize((total + 1) * sample);
    fillSamples(image.bytes.data(), total, c.type, c.distribution, c.bins, c.lo, c.hi, rng, c.floatSpecials);
    if (c.everySample) {
        const double v = *c.everySample;
        void* out = image.bytes.data();
        for (std::size_t i = 0; i < total; ++i) {
            switch (c.type) {
            case SampleType::U8: store<std::uint8_t>(out, i, std::uint8_t(v)); break;
            case SampleType::U16: store<std::uint16_t>(out, i, std::uint16_t(v)); break;
            case SampleType::I32: store<std::int32_t>(out, i, std::int32_t(v)); break;
            case SampleType::U32: store<std::uint32_t>(out, i, std::uint32_t(v)); break;
            case SampleType::F16: store<std::uint16_t>(out, i, floatToHalf(float(v))); break;
            case SampleType::F32: store<float>(out, i, float(v)); break;
            }
        }
    }
    image.view.data = image.bytes.data();
    image.view.type = c.type;
    image.view.width = c.width;
    image.view.height = c.height;
    image.view.channels = c.channels;
    image.view.strideBytes = rowSamples * sample;
    image.view.roi = c.roi;
    return image;
}

HistogramRequest makeCaseRequest(const Case& c, const SyntheticImage& image, Strategy strategy)
{
    ChannelBinning b;
    b.bins = c.bins;
    b.lo = c.lo;
    b.hi = c.hi;
    b.identity = c.identity && c.hi - c.lo == c.bins;
    HistogramRequest request = makeRequest(image.view, b, strategy);
    for (int ch = 0; ch < kMaxChannels; ++ch)
        request.binning[ch].active = (c.activeMask >> ch) & 1u;
    return request;
}

std::string describeDifference(const HistogramResult& expected, const HistogramResult& actual)
{
    std::ostringstream out;
    if (expected.channels.size() != actual.channels.size()) {
        out << "channel count " << actual.channels.size() << ", expected " << expected.channels.size();
        return out.str();
    }
    for (std::size_t i = 0; i < expected.channels.size(); ++i) {
        const ChannelHistogram& e = expected.channels[i];
        const ChannelHistogram& a = actual.channels[i];
        if (e.counts.size() != a.counts.size()) {
            out << "channel " << e.channel << ": " << a.counts.size() << " bins, expected " << e.counts.size();
            return out.str();
        }
        int shown = 0;
        for (std::size_t b = 0; b < e.counts.size() && shown < 3; ++b)
            if (e.counts[b] != a.counts[b]) {
                out << "channel " << e.channel << " bin " << b << ": " << a.counts[b] << " != " << e.counts[b] << "; ";
                ++shown;
            }
        if (e.below != a.below)
            out << "channel " << e.channel << " below: " << a.below << " != " << e.below << "; ";
        if (e.above != a.above)
            out << "channel " << e.channel << " above: " << a.above << " != " << e.above << "; ";
        if (e.nan != a.nan)
            out << "channel " << e.channel << " nan: " << a.nan << " != " << e.nan << "; ";
        if (e.hasValues != a.hasValues || (e.hasValues && (e.minValue != a.minValue || e.maxValue != a.maxValue))) {
            auto range = [](const ChannelHistogram& h) {
                std::ostringstream text;
                text << std::setprecision(17);
                if (h.hasValues)
                    text << "[" << h.minValue << ", " << h.maxValue << "]";
                else
                    text << "none";
                return text.str();
            };
            out << "channel " << e.channel << " extremes: " << range(a) << " != " << range(e) << "; ";
        }
    }
    return out.str();
}

HistogramResult poisonedResult()
{
    HistogramResult poisoned;
    ChannelHistogram h;
    h.counts.assign(300, 0xdeadbeefdeadbeefull);
    h.below = h.above = h.nan = 0xdeadbeefull;
    h.hasValues = true;
    h.minValue = -1234.5;
    h.maxValue = 1234.5;
    poisoned.channels.assign(4, h);
    poisoned.samples = 0xdeadbeef;
    return poisoned;
}

}  // namespace hs::testing
