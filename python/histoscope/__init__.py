"""HistoScope from Python: exact histograms of NumPy arrays, PyTorch and CuPy tensors (CPU or
CUDA), images and Dask arrays, counted by the HistoScope engine (on the GPU when there is one).

    >>> import numpy as np, histoscope
    >>> histoscope.bincount(np.array([0, 1, 1, 3]))
    array([1, 2, 0, 1])

Functions: bincount, histogram, histogram2d, image_histogram, parade, waveform, vectorscope,
strategies, device; histoscope.dask for Dask arrays and folders of images. Each thread counts on
an engine of its own; the GIL is released while the engine counts. Bad input raises ValueError
or TypeError, an engine or device fault RuntimeError, with the engine's message.
"""
import atexit as _atexit

from . import _native
from ._config import VERSION as __version__
from ._counting import (ChannelResult, Histogram, Histogram2D, ImageHistogram, bincount, device, histogram,
                        histogram2d, image_histogram, parade, strategies, vectorscope, waveform)

__all__ = ["bincount", "histogram", "histogram2d", "image_histogram", "parade", "waveform", "vectorscope",
           "strategies", "device", "Histogram", "Histogram2D", "ImageHistogram", "ChannelResult", "__version__"]

# The main thread's engines go before the interpreter (and the CUDA runtime) is torn down.
_atexit.register(_native.release_engines)
