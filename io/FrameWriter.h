// Saves a frame at its native depth through OpenCV (PNG/TIFF keep 16 bits).
#pragma once

#include "Frame.h"
#include "LoadError.h"

LoadError saveFrame(const QString& path, const Frame& frame);
