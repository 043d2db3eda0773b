#include "io/RawLoader.h"

#include "io/RawArray.h"

namespace {

RawLoadResult wholeFrame(const std::shared_ptr<RawArray>& array, const Error& error)
{
    RawLoadResult result;
    result.error = error;
    if (!array)
        return result;
    result.frame = array->whole();
    result.warnings = array->warnings;
    return result;
}

}  // namespace

RawLoadResult RawLoader::loadRaw(const QString& path, rawformat::RawSpec spec)
{
    Error error;
    auto array = RawArray::openRaw(path, spec, error);
    return wholeFrame(array, error);
}

RawLoadResult RawLoader::loadNpy(const QString& path)
{
    Error error;
    auto array = RawArray::openNpy(path, error);
    return wholeFrame(array, error);
}
