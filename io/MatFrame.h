// The one place that turns OpenCV matrices into Frames (kept out of Frame.h so that widgets/
// never sees OpenCV). The Frame keeps the matrix alive: no pixel copy.
#pragma once

#include "io/Frame.h"
#include "common/Error.h"

#include <opencv2/core.hpp>

#include <optional>

// Converts depths the engine does not count (8/16-bit signed, 64-bit float) into ones it does;
// `note` says what was done. Returns nullopt with `error` set for what cannot be counted.
std::optional<Frame> frameFromMat(cv::Mat mat, const QString& source, Error& error, QString* note = nullptr);
