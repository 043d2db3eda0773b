// Saves a frame at its native depth through OpenCV (PNG/TIFF keep 16 bits), whole or not at
// all (io/AtomicFile.h). The format follows the file name's extension.
#pragma once

#include "io/Frame.h"
#include "common/Error.h"

Error saveFrame(const QString& path, const Frame& frame);

// Whether OpenCV writes the format of the extension `suffix` ("png", "tif"); false when it does
// not, or when the image module cannot be loaded (`error` then says why, naming `path`).
bool canSaveFormat(const QString& path, const QString& suffix, Error& error);
