// An 8-bit RGB picture of any frame for the image view, mapped from the frame's nominal range.
// Made on the decoding thread as a plain Frame, so this layer needs no Qt Gui; the GUI wraps
// its pixels in a QImage without copying them (app/gui/FrameImage.h).
#pragma once

#include "io/Frame.h"

Frame previewFrame(const Frame& frame);
