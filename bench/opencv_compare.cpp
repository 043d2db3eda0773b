// Baselines on this machine's CPU: OpenCV's calcHist against HistoScope's CPU backend on 4K gray,
// RGB and RGBA frames of noise, one colour and a smooth gradient, and a one-thread OpenCV decode + calcHist loop over a folder of JPEGs (the yardstick
// for `histoscope-cli batch`). Needs OpenCV, so it is not part of the GPU-only build.
#include "bench/CpuReadProbe.h"
#include "histoscope/HistogramEngine.h"
#include "histoscope/ReferenceHistogram.h"
#include "histoscope/RunTiming.h"

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <random>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

// Two warm-ups, then the median of `repeats` timed runs of f(). Each side is timed in a block of
// its own: timed alternately, each call can meet the other library's worker threads still
// spinning (OpenCV's TBB pool, the backend's OpenMP team), and both ran slower and less steadily.
template <typename F>
double timeMedian(int repeats, F&& f)
{
    return hs::medianRunMs(2, repeats, [&] {
        const auto t0 = Clock::now();
        f();
        return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    });
}

// A 4K frame of `channels` 8-bit channels: uniform noise, one colour, or a smooth gradient (runs
// of equal pixels some ten to twenty long, as in skies and shaded walls).
cv::Mat makeFrame(const std::string& kind, int channels, std::mt19937_64& rng)
{
    cv::Mat frame(2160, 3840, CV_8UC(channels));
    if (kind == "noise") {
        cv::randu(frame, cv::Scalar::all(0), cv::Scalar::all(256));
    } else if (kind == "constant") {
        frame.setTo(cv::Scalar::all(double(37 + rng() % 180)));
    } else {
        for (int y = 0; y < frame.rows; ++y) {
            unsigned char* row = frame.ptr(y);
            for (int x = 0; x < frame.cols; ++x) {
                const int v[4] = {x * 256 / frame.cols, y * 256 / frame.rows, (x + y) * 128 / (frame.cols + frame.rows),
                                  255 - x * 64 / frame.cols};
                for (int c = 0; c < channels; ++c)
                    row[x * channels + c] = static_cast<unsigned char>(v[channels == 1 ? 0 : c]);
            }
        }
    }
    return frame;
}

// OpenCV's calcHist (once per channel, as an application would call it) and HistoScope's CPU
// backend on the same frame, one after the other; every count is checked against the reference.
int calcHistComparison(int repeats)
{
    std::mt19937_64 rng(std::random_device{}());
    hs::HistogramEngine cpu(hs::EngineOptions{false});
    std::cout << "4K 8-bit frames (3840x2160, 256 bins per channel), medians of " << repeats
              << " runs after two warm-ups, " << cv::getNumThreads() << " OpenCV threads\n"
              << "frame            OpenCV calcHist  HistoScope cpu  x OpenCV  read probe  x probe\n";
    bool allSame = true;
    for (int channels : {3, 1, 4}) {
        for (const char* kind : {"noise", "constant", "smooth"}) {
            const cv::Mat frame = makeFrame(kind, channels, rng);
            const int histSize[] = {256};
            const float range[] = {0, 256};
            const float* ranges[] = {range};
            std::vector<cv::Mat> hists(channels);
            hs::ImageView view;
            view.data = frame.data;
            view.type = hs::SampleType::U8;
            view.width = frame.cols;
            view.height = frame.rows;
            view.channels = channels;
            view.strideBytes = frame.step[0];
            const hs::HistogramRequest request =
                hs::makeRequest(view, hs::defaultBinning(hs::SampleType::U8), hs::Strategy::Cpu);
            hs::HistogramResult result, expected;
            const double opencvMs = timeMedian(repeats, [&] {
                for (int c = 0; c < channels; ++c)
                    cv::calcHist(&frame, 1, &c, cv::Mat(), hists[c], 1, histSize, ranges);
            });
            const double oursMs = timeMedian(repeats, [&] { cpu.compute(request, result); });
            hs::referenceHistogram(request, expected);
            bool same = result == expected;
            for (int c = 0; c < channels; ++c)
                for (int b = 0; b < 256; ++b)
                    same &= std::uint64_t(hists[c].at<float>(b)) == expected.channels[c].counts[b];
            allSame &= same;
            const double probeMs = hs::bench::cpuReadProbeMs(frame.data, frame.total() * frame.elemSize(), repeats);
            const char* layout = channels == 1 ? "gray" : channels == 3 ? "RGB" : "RGBA";
            std::printf("%-5s %-9s  %10.2f ms  %11.2f ms  %7.2fx  %7.2f ms  %6.1fx%s\n", layout, kind, opencvMs, oursMs,
                        opencvMs / oursMs, probeMs, oursMs / probeMs, same ? "" : "  (MISMATCH)");
            std::fflush(stdout);
        }
    }
    return allSame ? 0 : 1;
}

int generate(const std::string& dir, int count)
{
    std::filesystem::create_directories(dir);
    cv::RNG rng(12345);
    for (int i = 0; i < count; ++i) {
        cv::Mat image(1080, 1920, CV_8UC3);
        // Smooth structure plus grain, so JPEG sizes resemble photographs rather than noise.
        cv::Mat small(27, 48, CV_8UC3);
        rng.fill(small, cv::RNG::UNIFORM, 0, 256);
        cv::resize(small, image, image.size(), 0, 0, cv::INTER_CUBIC);
        cv::Mat grain(image.size(), CV_8UC3);
        rng.fill(grain, cv::RNG::NORMAL, 0, 6);
        image += grain;
        cv::imwrite(dir + "/frame" + std::to_string(1000 + i) + ".jpg", image, {cv::IMWRITE_JPEG_QUALITY, 90});
    }
    std::cout << "wrote " << count << " 1080p JPEGs to " << dir << "\n";
    return 0;
}

int folderBaseline(const std::string& dir)
{
    cv::setNumThreads(1);
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
        if (entry.path().extension() == ".jpg")
            files.push_back(entry.path().string());
    std::sort(files.begin(), files.end());
    const auto t0 = Clock::now();
    std::uint64_t checksum = 0;
    for (const std::string& f : files) {
        const cv::Mat image = cv::imread(f, cv::IMREAD_UNCHANGED);
        const int histSize[] = {256};
        const float range[] = {0, 256};
        const float* ranges[] = {range};
        for (int c = 0; c < image.channels(); ++c) {
            cv::Mat h;
            cv::calcHist(&image, 1, &c, cv::Mat(), h, 1, histSize, ranges);
            checksum += std::uint64_t(h.at<float>(128));
        }
    }
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    std::cout << "OpenCV one-thread decode + calcHist: " << files.size() << " images in " << s << " s, "
              << double(files.size()) / s << " images/s (checksum " << checksum << ")\n";
    return 0;
}

}  // namespace

int main(int argc, char** argv)
{
    const std::string command = argc > 1 ? argv[1] : "";
    if (command == "calchist")
        return calcHistComparison(argc > 2 ? std::stoi(argv[2]) : 20);
    if (command == "generate" && argc > 3)
        return generate(argv[2], std::stoi(argv[3]));
    if (command == "folder" && argc > 2)
        return folderBaseline(argv[2]);
    std::cerr << "usage: histoscope-opencv-compare calchist [REPEATS] | generate DIR COUNT | folder DIR\n";
    return 2;
}
