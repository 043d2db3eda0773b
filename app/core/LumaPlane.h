// Luma (BT.601 or BT.709) of a colour frame, as a one-channel frame of the same depth.
#pragma once

#include "io/Frame.h"
#include "app/core/HistogramSettings.h"

#include <optional>

std::optional<Frame> lumaPlane(const Frame& frame, LumaCoefficients coefficients);
