// Putting a new luminance back into a colour image: the last step of Equalize's luminance-only
// modes (global, CLAHE and matching). Adding Y' − Y to every channel (keeping Cr and Cb) pushes
// channels out of the sample range wherever the chroma is large, and clipping them one by one
// shifts the hue: matching baboon.jpg to fruits.jpg that way sent 10.75 % of the pixels to B = 0.
// Instead each pixel reaches its new luma by mixing with black (darker) or with white
// (brighter), as dimming or adding white light would:
//
//   Y' <= Y:  C' = round(C · Y' / Y)                                  every ratio to black kept
//   Y' >  Y:  C' = round(top − (top − C) · (top − Y') / (top − Y))     every ratio to white kept
//
// for each colour channel C of a pixel with luma Y (Y of OpenCV's YCrCb, BT.601, as counted) and
// new luma Y' (0 <= Y, Y' <= top; top is 255 or 65535). Equivalently C' = Y' + s · (C − Y) with one
// scale s for the three channels (Y' / Y, or (top − Y') / (top − Y)), so the hue (the direction of
// the chroma) and the new luma are kept, and no channel ever leaves the range: nothing is
// clipped, and a channel is at 0 or the top only where it was before or where Y' is. The price
// is chroma: a pixel brightened a long way loses saturation, as it nears white. Alpha is never
// changed.
#pragma once

#include "io/Frame.h"

#include <QtGlobal>

#include <array>

struct LumaRecombination {
    // Per storage channel (0..2): pixels for which keeping Cr and Cb (C + Y' − Y) would have left
    // the range below 0 / above the top, i.e. been clipped; mixing with black or white kept them in.
    std::array<quint64, 3> below{};
    std::array<quint64, 3> above{};
    quint64 wouldClip = 0;   // pixels with any channel so
};

// `colour`: 3 or 4 channels, u8 or u16. `luma` and `mapped`: one channel each, the same size and
// type: Y of every pixel and its new value. `out` (rows of `outStride` bytes, the layout of
// `colour`) receives the three colour channels; its alpha is left as it is.
LumaRecombination recombineLuma(const Frame& colour, const Frame& luma, const Frame& mapped, unsigned char* out,
                                std::size_t outStride);
