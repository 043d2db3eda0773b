#include "io/ImageLoader.h"

#include "io/ImageFile.h"
#include "io/MemoryBudget.h"

#include <QFileInfo>

QStringList ImageLoader::nameFilters()
{
    return {"*.png", "*.jpg", "*.jpeg", "*.tif", "*.tiff", "*.bmp", "*.webp", "*.pgm", "*.ppm", "*.pnm",
            "*.pbm", "*.pfm", "*.exr", "*.hdr", "*.jp2"};
}

bool ImageLoader::isImageFile(const QString& path)
{
    const QString suffix = "*." + QFileInfo(path).suffix().toLower();
    return nameFilters().contains(suffix);
}

ImageLoadResult ImageLoader::load(const QString& path, std::uint64_t memoryBudget)
{
    ImageLoadResult result;
    const std::uint64_t budget = memoryBudget ? memoryBudget : defaultMemoryBudget();
    auto file = ImageFile::open(path, budget, result.error);
    if (!file)
        return result;
    std::uint64_t total = 0;
    for (int p = 0; p < file->pageCount(); ++p)
        total += file->pageBytes(p);
    if (total > budget) {
        result.error = Error::make(ErrorKind::TooLarge, path,
                                   QStringLiteral("its %1 pages take %2 decoded, more than the memory budget of %3")
                                       .arg(file->pageCount()).arg(formatBytes(total), formatBytes(budget)));
        return result;
    }
    if (file->decode(0, file->pageCount(), result.frames, result.error))
        result.warnings = file->warnings;
    return result;
}
