// Baselines on this machine's CPU: OpenCV's calcHist against HistoScope's CPU backend on a 4K
// RGB frame, and a one-thread OpenCV decode + calcHist loop over a folder of JPEGs (the yardstick
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
#include <filesystem>
#include <iostream>
#include <random>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

// Two warm-ups, then the median of `repeats` timed runs of f().
template <typename F>
double timeMedian(int repeats, F&& f)
{
    return hs::medianRunMs(2, repeats, [&] {
        const auto t0 = Clock::now();
        f();
        return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    });
}

int calcHistComparison(int repeats)
{
    std::mt19937_64 rng(std::random_device{}());
    hs::HistogramEngine cpu(hs::EngineOptions{false});
    std::cout << "4K RGB (3840x2160x3, 256 bins per channel), median of " << repeats << " runs, "
              << cv::getNumThreads() << " OpenCV threads\n";
    for (const char* kind : {"noise", "constant"}) {
        cv::Mat frame(2160, 3840, CV_8UC3);
        if (std::string(kind) == "noise")
            cv::randu(frame, cv::Scalar::all(0), cv::Scalar::all(256));
        else
            frame.setTo(cv::Scalar::all(double(37 + rng() % 180)));
        const int channels[3][1] = {{0}, {1}, {2}};
        const int histSize[] = {256};
        const float range[] = {0, 256};
        const float* ranges[] = {range};
        cv::Mat hists[3];
        const double opencvMs = timeMedian(repeats, [&] {
            for (int c = 0; c < 3; ++c)
                cv::calcHist(&frame, 1, channels[c], cv::Mat(), hists[c], 1, histSize, ranges);
        });
        hs::ImageView view;
        view.data = frame.data;
        view.type = hs::SampleType::U8;
        view.width = frame.cols;
        view.height = frame.rows;
        view.channels = 3;
        view.strideBytes = frame.step[0];
        const hs::HistogramRequest request = hs::makeRequest(view, hs::defaultBinning(hs::SampleType::U8), hs::Strategy::Cpu);
        hs::HistogramResult result, expected;
        const double oursMs = timeMedian(repeats, [&] { cpu.compute(request, result); });
        hs::referenceHistogram(request, expected);
        bool same = result == expected;
        for (int c = 0; c < 3; ++c)
            for (int b = 0; b < 256; ++b)
                same &= std::uint64_t(hists[c].at<float>(b)) == expected.channels[c].counts[b];
        const double probeMs = hs::bench::cpuReadProbeMs(frame.data, frame.total() * frame.elemSize(), repeats);
        std::cout << "  " << kind << ": OpenCV calcHist " << opencvMs << " ms, HistoScope cpu " << oursMs << " ms, "
                  << opencvMs / oursMs << "x; CPU read probe " << probeMs << " ms, HistoScope cpu " << oursMs / probeMs
                  << "x the probe" << (same ? "" : "  (MISMATCH)") << "\n";
    }
    return 0;
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
