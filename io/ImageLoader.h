// Still images through OpenCV imgcodecs at native depth; a multi-page TIFF is a stack.
#pragma once

#include "io/Frame.h"
#include "common/Error.h"

#include <vector>

struct ImageLoadResult {
    std::vector<Frame> frames;   // one per page
    Error error;
    QStringList warnings;        // e.g. a truncated JPEG that still decoded
    bool ok() const { return !error.isError(); }
};

class ImageLoader {
public:
    // Every page at once, within `memoryBudget` bytes (0: io/MemoryBudget.h's default). Sources
    // that can take pages one range at a time use io/ImageFile.h instead.
    static ImageLoadResult load(const QString& path, std::uint64_t memoryBudget = 0);
    static QStringList nameFilters();  // "*.png", "*.jpg", ... as the file dialog and batch use them
    static bool isImageFile(const QString& path);
};
