// Finds and loads the codec modules, each the first time it is needed, and hands out what they
// make: the video module (histoscope_video: OpenCV's videoio, io/VideoDecoder.h) when the first
// video or live source is opened, the image module (histoscope_image: OpenCV's imgcodecs,
// io/ImageCodecs.h) when the first still image is decoded or written.
//
// Why modules: libopencv_videoio links GStreamer, FFmpeg and their codecs, libopencv_imgcodecs
// links GDAL, GDCM, Poppler, HDF5 and more: together about 220 shared objects, which ld.so loaded
// and initialised on every start of every program (0.44 s of a 0.44 s `histoscope-cli --help`
// here, 248 objects). The programs link neither; the modules, which do, are loaded with QLibrary
// when a file needs them, so --help, merge, .npy and raw data start in a few tens of ms.
//
// Each module is looked for, in order, in $HISTOSCOPE_MODULE_DIR when set (and then only there),
// in the installed layout relative to the running program (bin/../<libdir>/histoscope/), and in
// this build's own lib/histoscope/. A module that cannot be found or loaded is an Error naming
// the file being opened, the module's path and the loader's cause (dlerror's text), never a crash.
// A module is loaded once per process and never unloaded (what it made lives as long as the process).
#pragma once

#include "io/ImageCodecs.h"
#include "io/VideoDecoder.h"
#include "common/Error.h"

#include <QStringList>

#include <memory>

namespace codecmodule {

// A new video decoder for `source`; null with `error` set when the video module cannot be loaded.
std::unique_ptr<VideoDecoder> createVideoDecoder(const QString& source, Error& error);

// The still-image codecs; null with `error` set (naming `source`) when the image module cannot be loaded.
const ImageCodecs* imageCodecs(const QString& source, Error& error);

// The folders searched, in order.
QStringList searchPath();

}  // namespace codecmodule
