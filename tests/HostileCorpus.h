// Hostile inputs for the CLI tests, made on the spot: small files that lie, bombs that are
// small on disk, FIFOs, files that are not what their name says, names that are not UTF-8.
// Set HISTOSCOPE_CORPUS_DIR to keep the corpus tst_cli_hostile writes for manual runs.
#pragma once

#include <QByteArray>
#include <QString>

#include <cstdint>
#include <random>

namespace hostile {

// Raw bytes to a path given as bytes (io/NativePath.h's encoding is not assumed here).
bool writeBytes(const QByteArray& nativePath, const QByteArray& bytes);
// A PNG whose IHDR declares width x height pixels (RGB, 8-bit) followed by no usable data.
QByteArray pngDeclaring(std::uint32_t width, std::uint32_t height);
// A real, valid PNG of zeros: a few kilobytes on disk, width x height bytes decoded.
bool writeZeroPng(const QString& path, int width, int height);
// A multi-page TIFF of zero pages, small on disk.
bool writeZeroTiff(const QString& path, int pages, int width, int height);
// A random image, encoded by OpenCV (".png", ".jpg"...).
QByteArray randomImage(const char* extension, int width, int height, std::mt19937_64& rng);
QByteArray randomBytes(int size, std::mt19937_64& rng);
// An MP4 cut off after its opening box (`ftyp`), then `garbage` random bytes: what an aborted
// download leaves. Bare random bytes are not reliably corrupt video: FFmpeg probes content, and
// rarely random data passes for a raw H.263 stream with a decodable frame (seed 4112426967 of
// tst_cli_hostile made one; 0 of 1,500 fresh random files did). The `ftyp` box fixes the demuxer.
QByteArray cutMp4(int garbage, std::mt19937_64& rng);
// A .npy header claiming `shape` over `dataBytes` bytes of data; `descr` is quoted unless it is
// written as it is (a structured dtype's list of fields).
QByteArray npy(const QByteArray& descr, const QByteArray& shape, int dataBytes, std::mt19937_64& rng, bool quoted = true);

// A YUV4MPEG2 video (FFmpeg reads it natively) of `frames` frames of random samples, in the
// colour space `colour` ("mono16": 16-bit grey, "444alpha": Y, Cb, Cr and alpha, "mono").
QByteArray y4m(const char* colour, int width, int height, int frames, std::mt19937_64& rng);
// A valid GIF (a 1x1 image) and a valid WAV (a few samples of silence): formats OpenCV does not read.
QByteArray gif();
QByteArray wav();

// The whole corpus into `dir`; returns how many inputs it holds. Everything in it must come
// out of a batch as either counted or failed with a cause, never a crash or a hang.
int writeCorpus(const QString& dir, std::mt19937_64& rng);

}  // namespace hostile
