// Headerless raw files and NumPy .npy arrays, memory-mapped: a key file larger than memory is
// paged in by the OS as the engine reads it, never loaded whole. Native little-endian types
// are counted in place; big-endian, i16 and f64 data are converted into a copy.
#pragma once

#include "io/Frame.h"
#include "io/Error.h"
#include "io/RawFormat.h"

struct RawLoadResult {
    Frame frame;
    Error error;
    QStringList warnings;
    bool ok() const { return !error.isError(); }
};

class RawLoader {
public:
    static RawLoadResult loadRaw(const QString& path, rawformat::RawSpec spec);
    static RawLoadResult loadNpy(const QString& path);
};
