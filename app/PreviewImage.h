// An 8-bit RGB picture of any frame for the image view, mapped from the frame's nominal range.
#pragma once

#include "Frame.h"

#include <QImage>

QImage previewImage(const Frame& frame);
