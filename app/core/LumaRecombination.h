// Putting a new luminance back into a colour image: the last step of Equalize's luminance-only
// modes (global, CLAHE and matching). Adding Y' − Y to every channel keeps Cr and Cb, but where
// that pushes a channel out of the sample range, clipping it alone would shift the hue (matching
// baboon.jpg to fruits.jpg sent 10.75 % of the pixels to B = 0). There the chroma is scaled
// instead, one factor for the three channels, so the hue and the new luma are kept.
//
// For a pixel with colour channels C, luma Y (Y of OpenCV's YCrCb, BT.601, as counted) and new
// luma Y' (0 <= Y, Y' <= top, where top is 255 or 65535), the chroma is d = C − Y and
//   if every Y' + d lies in [0, top]:  C' = C + (Y' − Y)            Cr and Cb kept exactly
//   otherwise (out of range):           C' = round(Y' + s · d)       one s for the three channels
// with
//   f = the largest scale at which Y' + f · d lies in [0, top] on every channel (f < 1 here)
//   r = Y' / Y when darkening (every channel keeps its ratio to black: C' = C · Y' / Y), or
//       (top − Y') / (top − Y) when brightening (every channel keeps its ratio to white)
//   s = f · f + r · (1 − f)
// r <= s <= f, so every channel stays in range (no clamping is ever needed); s tends to 1 at the
// edge of the range, so the pixels just outside it join those inside without a step, and to r far
// outside it, where a channel ends strictly inside the range (at 0 or the top only where it was
// there before, or where Y' itself is). Alpha is never changed.
#pragma once

#include "io/Frame.h"

#include <QtGlobal>

#include <array>

struct LumaRecombination {
    // Per storage channel (0..2): pixels for which Y' + d left the range below 0 or above the top,
    // i.e. that keeping Cr and Cb would have clipped; their chroma was scaled instead.
    std::array<quint64, 3> below{};
    std::array<quint64, 3> above{};
    quint64 scaled = 0;   // pixels whose chroma was scaled (any channel out of range)
};

// `colour`: 3 or 4 channels, u8 or u16. `luma` and `mapped`: one channel each, the same size and
// type: Y of every pixel and its new value. `out` (rows of `outStride` bytes, the layout of
// `colour`) receives the three colour channels; its alpha is left as it is.
LumaRecombination recombineLuma(const Frame& colour, const Frame& luma, const Frame& mapped, unsigned char* out,
                                std::size_t outStride);
