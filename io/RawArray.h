// A headerless raw file or a .npy array, memory-mapped (io/MappedFile.h): a key file larger
// than memory is paged in by the OS as the engine reads it, never loaded whole. Native
// little-endian, aligned samples are counted in place; big-endian, unaligned, i16 and f64
// samples are converted, either all at once (whole()) or a bounded chunk at a time (chunk()).
#pragma once

#include "common/Error.h"
#include "io/Frame.h"
#include "io/MappedFile.h"
#include "io/RawFormat.h"

#include <QStringList>

#include <optional>
#include <utility>
#include <vector>

class RawArray {
public:
    static std::shared_ptr<RawArray> openRaw(const QString& path, rawformat::RawSpec spec, Error& error);
    static std::shared_ptr<RawArray> openNpy(const QString& path, Error& error);

    const rawformat::RawSpec& spec() const { return m_spec; }
    bool convertsSamples() const;
    std::uint64_t pixelCount() const { return std::uint64_t(m_spec.width) * std::uint64_t(m_spec.height); }
    // The whole array as one frame of its shape: in place, or converted into one copy.
    Frame whole() const;
    // Pixels [first, first + count) converted into a copy, as one row.
    Frame chunk(std::uint64_t first, std::uint64_t count) const;
    // Per channel, the smallest and largest finite samples as counted (after conversion), read
    // through in bounded chunks; a channel without a finite sample unset.
    std::vector<std::optional<std::pair<double, double>>> finiteExtremes(std::uint64_t chunkPixels) const;
    // False (error set) when the file shrank while it was mapped: what was read is not the data.
    bool intact(Error& error) const;
    QStringList warnings;

private:
    Frame convert(std::uint64_t first, std::uint64_t count, qint64 width, qint64 height) const;
    static std::shared_ptr<RawArray> make(std::shared_ptr<MappedFile> mapped, rawformat::RawSpec spec, Error& error);

    std::shared_ptr<MappedFile> m_mapped;
    rawformat::RawSpec m_spec;
};
