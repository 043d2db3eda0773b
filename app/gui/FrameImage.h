// Wraps an 8-bit RGB frame (a preview made off the GUI thread) in a QImage that shares its
// pixels: the QImage keeps the frame's memory alive and no pixel is copied on the GUI thread.
#pragma once

#include "io/Frame.h"

#include <QImage>

QImage frameImage(const Frame& rgb);
