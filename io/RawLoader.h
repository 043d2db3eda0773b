// Headerless raw files and NumPy .npy arrays as one frame (io/RawArray.h maps and converts).
#pragma once

#include "io/Frame.h"
#include "common/Error.h"
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
