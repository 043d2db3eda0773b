"""Inputs: where an array's elements are, and how its results go back.

NumPy arrays, anything with the buffer protocol or ``__dlpack__`` (host memory), PyTorch tensors
and CuPy arrays (host or CUDA), and other ``__cuda_array_interface__`` objects (through CuPy or
PyTorch). The engine reads rows of packed elements with any row stride, so most views (crops,
steps, transposes, negative steps where order does not matter) are read in place; a layout it
cannot read is copied once by the array's own library, never read wrongly.
"""
import sys

import numpy as np

from . import _native

# NumPy dtype -> the engine's sample type, for the types it reads as they are.
ENGINE_TYPES = {
    np.dtype(np.uint8): "u8",
    np.dtype(np.uint16): "u16",
    np.dtype(np.int32): "i32",
    np.dtype(np.uint32): "u32",
    np.dtype(np.float16): "f16",
    np.dtype(np.float32): "f32",
}
SAMPLE_BYTES = {"u8": 1, "u16": 2, "i32": 4, "u32": 4, "f16": 2, "f32": 4}
_LITTLE = sys.byteorder == "little"

_torch_dtypes = None


def _torch_to_numpy_dtype(torch, dtype):
    global _torch_dtypes
    if _torch_dtypes is None:
        names = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
                 "uint16", "uint32", "uint64"]
        _torch_dtypes = {getattr(torch, n): np.dtype(n) for n in names if hasattr(torch, n)}
    try:
        return _torch_dtypes[dtype]
    except KeyError:
        raise TypeError(f"torch tensors of {dtype} are not counted (integers, bool, float16, float32 or float64)") from None


_CUDA_STREAM_LEGACY = 1  # cudaStreamLegacy


class Stream:
    """The CUDA stream a device input is ordered on: the caller's current one or the one given.

    1-D counts are enqueued on this stream itself (HistogramRequest::stream), after what the
    caller enqueued before: no synchronisation first. The 2-D counts (scopes) run on the
    engine's own stream, so for them the caller's stream is synchronised first.
    """

    __slots__ = ("lib", "_stream", "current", "device", "_handle")

    def __init__(self, lib, stream, current, device=None, handle=None):
        self.lib = lib
        self._stream = stream   # the library's stream object; made when first needed
        self.current = current  # the caller's current stream: results need no stream context
        self.device = device
        self._handle = handle

    @classmethod
    def torch_current(cls, device, handle):
        """The current torch stream of `device`, known by its raw handle: its stream object,
        which costs microseconds to make, is made only when a copy or a wait needs it."""
        return cls("torch", None, True, device, handle)

    @property
    def stream(self):
        if self._stream is None:
            import torch
            self._stream = torch.cuda.current_stream(self.device)
        return self._stream

    def synchronize(self):
        self.stream.synchronize()

    @property
    def handle(self):
        """The cudaStream_t as an int (torch: cuda_stream; CuPy: ptr). The libraries' default
        stream reads 0, which the engine takes for its own (non-blocking) stream: it is named
        here as cudaStreamLegacy (1), the legacy default stream it is."""
        if self._handle is None:
            self._handle = int(self.stream.cuda_stream if self.lib == "torch" else self.stream.ptr)
        return self._handle if self._handle else _CUDA_STREAM_LEGACY


def _torch_stream(torch, device, stream):
    if stream is None:
        return torch.cuda.current_stream(device)
    if isinstance(stream, int):
        return torch.cuda.ExternalStream(stream, device=device)
    if hasattr(stream, "cuda_stream"):      # torch.cuda.Stream
        return stream
    if hasattr(stream, "ptr"):              # cupy.cuda.Stream
        return torch.cuda.ExternalStream(stream.ptr, device=device)
    raise TypeError("stream must be a torch.cuda.Stream, a cupy.cuda.Stream or a cudaStream_t as an int")


def _cupy_stream(cupy, stream):
    if stream is None:
        return cupy.cuda.get_current_stream()
    if isinstance(stream, int):
        return cupy.cuda.ExternalStream(stream)
    if hasattr(stream, "ptr"):              # cupy.cuda.Stream
        return stream
    if hasattr(stream, "cuda_stream"):      # torch.cuda.Stream
        return cupy.cuda.ExternalStream(stream.cuda_stream)
    raise TypeError("stream must be a cupy.cuda.Stream, a torch.cuda.Stream or a cudaStream_t as an int")


class Array:
    """One input array as the engine sees it, and the library it came from."""

    __slots__ = ("obj", "lib", "pointer", "device", "dtype", "shape", "strides", "stream")

    def __init__(self, obj, lib, pointer, device, dtype, shape, strides, stream=None):
        self.obj = obj            # keeps the memory alive for the call
        self.lib = lib            # "numpy", "torch" or "cupy"
        self.pointer = pointer
        self.device = device      # -1: host memory; else the CUDA device ordinal
        self.dtype = dtype        # a NumPy dtype
        self.shape = shape
        self.strides = strides    # in bytes
        self.stream = stream      # Stream for device input

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    # -- what the library does for us: a copy in another layout or type -----------------------
    def _module(self):
        if self.lib == "torch":
            import torch
            return torch
        if self.lib == "cupy":
            import cupy
            return cupy
        return np

    def _copy(self, make):
        """The Array of `make()`, a copy the input's library makes: for device input in the
        caller's stream, finished before the engine reads it (the engine has its own stream)."""
        if self.stream is None:
            return resolve(make())
        if self.lib == "torch":
            import torch
            with torch.cuda.stream(self.stream.stream):
                out = make()
        else:
            with self.stream.stream:
                out = make()
        self.stream.synchronize()
        return resolve(out, self.stream)

    def contiguous(self):
        """A C-contiguous, aligned copy (the library's own)."""
        if self.lib == "torch":
            return self._copy(lambda: self.obj.contiguous())
        if self.lib == "cupy":
            import cupy
            return self._copy(lambda: cupy.ascontiguousarray(self.obj))
        return self._copy(lambda: np.array(self.obj, order="C", copy=True))

    def astype(self, dtype):
        """A C-contiguous copy converted to `dtype` (a NumPy dtype)."""
        dtype = np.dtype(dtype)
        if self.lib == "torch":
            import torch
            return self._copy(lambda: self.obj.to(getattr(torch, dtype.name)).contiguous())
        if self.lib == "cupy":
            import cupy
            return self._copy(lambda: cupy.ascontiguousarray(self.obj.astype(dtype)))
        return self._copy(lambda: np.ascontiguousarray(self.obj, dtype=dtype))

    def stack(self, other):
        """(N, 2) of self and other (1-D, same length), C-contiguous, in one type."""
        if self.lib != other.lib or self.device != other.device:
            raise ValueError("x and y must be arrays of one library on one device")
        dtype = np.result_type(self.dtype, other.dtype)
        if self.lib == "torch":
            import torch
            t = getattr(torch, dtype.name)
            return self._copy(lambda: torch.stack([self.obj.to(t), other.obj.to(t)], dim=-1).contiguous())
        mod = self._module()
        return self._copy(lambda: mod.ascontiguousarray(mod.stack([self.obj.astype(dtype), other.obj.astype(dtype)], axis=-1)))

    def finite_extremes(self):
        """(min, max) of the finite elements, or None: the library's reductions."""
        x = self.obj
        if self.lib == "torch":
            x = x[x.isfinite()]
            return None if x.numel() == 0 else (float(x.min()), float(x.max()))
        mod = self._module()
        x = x[mod.isfinite(x)]
        return None if x.size == 0 else (float(x.min()), float(x.max()))

    def extremes(self):
        """(min, max) as Python numbers: the library's reductions."""
        return self.obj.min().item(), self.obj.max().item()

    # -- results back in the input's kind ------------------------------------------------------
    def device_counts(self, n):
        """(tensor, pointer): n int64 elements on the input's device, uninitialised, made by its
        library in the count's stream, for the engine to write counts into (device input only)."""
        if self.lib == "torch":
            torch = _torch
            if self.stream.current:
                t = self.obj.new_empty(n, dtype=torch.int64)
            else:
                with torch.cuda.stream(self.stream.stream):
                    t = self.obj.new_empty(n, dtype=torch.int64)
            return t, t.data_ptr()
        import cupy
        with cupy.cuda.Device(self.device), self.stream.stream:
            a = cupy.empty(n, dtype=cupy.int64)
        return a, a.data.ptr

    def add_at(self, counts, index, n):
        """counts[index] += n for a device_counts tensor, in the count's stream."""
        if self.lib == "torch":
            if self.stream.current:
                counts[index] += n
            else:
                with _torch.cuda.stream(self.stream.stream):
                    counts[index] += n
            return
        import cupy
        with cupy.cuda.Device(self.device), self.stream.stream:
            counts[index] += n

    def head(self, counts, n):
        """The first n elements of a device_counts tensor: itself when it holds n, a view when
        little is left over, else a copy of its own size (a 16-bit type's 65,536-count buffer
        should not stay behind a result of ten)."""
        capacity = counts.shape[0]
        if capacity == n:
            return counts
        view = counts.narrow(0, 0, n) if self.lib == "torch" else counts[:n]
        if capacity - n <= 4096:
            return view
        if self.lib == "torch" and not self.stream.current:
            with _torch.cuda.stream(self.stream.stream):
                return view.clone()
        if self.lib == "cupy":
            import cupy
            with cupy.cuda.Device(self.device), self.stream.stream:
                return view.copy()
        return view.clone()

    def device_zeros(self, counts, begin):
        """Zeroes counts[begin:] (a device_counts tensor) in the count's stream."""
        if begin >= counts.shape[0]:
            return
        if self.lib == "torch":
            import torch
            if self.stream.current:
                counts[begin:].zero_()
            else:
                with torch.cuda.stream(self.stream.stream):
                    counts[begin:].zero_()
            return
        import cupy
        with cupy.cuda.Device(self.device), self.stream.stream:
            counts[begin:].fill(0)

    def output(self, array):
        """A NumPy result as the input's kind: a tensor on its device for torch and CuPy input
        (a result the engine already wrote into such a tensor is that tensor)."""
        if not isinstance(array, np.ndarray):
            return array
        if self.lib == "torch":
            import torch
            t = torch.from_numpy(array)
            if self.device < 0:
                return t
            if self.stream.current:
                return t.to(self.obj.device)
            with torch.cuda.stream(self.stream.stream):
                return t.to(self.obj.device)
        if self.lib == "cupy":
            import cupy
            with cupy.cuda.Device(self.device), self.stream.stream:
                return cupy.asarray(array)
        return array

    def synchronize(self):
        """Orders the count after the caller's stream (device input)."""
        if self.stream is not None:
            self.stream.synchronize()

    @property
    def stream_handle(self):
        """The caller's stream for the engine to count in (0: none, host input)."""
        return self.stream.handle if self.stream is not None else 0

    def order_library_work(self):
        """The input library's own reductions (min, max) run on its current stream: when the
        caller named another stream, that one is waited for first. The engine's counts are
        enqueued in the named stream itself and need no such wait."""
        if self.stream is not None and not self.stream.current:
            self.stream.synchronize()


def _from_numpy(x):
    if not x.dtype.isnative:
        x = x.astype(x.dtype.newbyteorder("="))
    return Array(x, "numpy", x.__array_interface__["data"][0], -1, x.dtype, x.shape, x.strides)


_torch = None
_raw_stream = None  # torch's own accessor of a device's current cudaStream_t, where it has one
_TorchTensor = None  # torch.Tensor, once torch is imported and has that accessor (torch_device_keys)
_TORCH_KEYS = {}    # torch dtype -> (engine type, 32-bit words per key, NumPy dtype)


def _torch_module():
    global _torch, _raw_stream, _TorchTensor
    if _torch is None:
        import torch
        _raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        _torch = torch
        _TORCH_KEYS.update({torch.int32: ("i32", 1, np.dtype(np.int32)), torch.int64: ("u32", 2, np.dtype(np.int64))})
        if _raw_stream is not None:
            _TorchTensor = torch.Tensor
    return _torch


def torch_device_keys(x):
    """(pointer, device, stream handle, (type, words, dtype)) of bincount's common device input,
    a contiguous 1-D CUDA tensor of int32 or int64 keys counted in the current stream, found
    with no Array, Stream or View made (each costs a microsecond or two, on a call whose goal is
    a wall within 20 us of its GPU time); None for any other input, which takes the general path.
    """
    if type(x) is not _TorchTensor or not x.is_cuda or x.dim() != 1:
        return None
    keys = _TORCH_KEYS.get(x.dtype)
    if keys is None or x.stride(0) != 1 or x.shape[0] == 0:
        return None
    pointer = x.data_ptr()
    if pointer & 3:
        return None
    device = x.get_device()
    return pointer, device, _raw_stream(device) or _CUDA_STREAM_LEGACY, keys


def torch_device_image(x):
    """(pointer, device, stream handle, height, width, channels) of image_histogram's common
    device input, a contiguous non-empty H x W or H x W x C (C = 1 to 4) uint8 CUDA tensor counted
    in the current stream, found with no Array, Stream or View made (as torch_device_keys);
    None for any other input, which takes the general path."""
    if type(x) is not _TorchTensor or not x.is_cuda or x.dtype is not _torch.uint8:
        return None
    shape = x.shape
    if len(shape) == 3:
        height, width, channels = shape
        if not 1 <= channels <= 4:
            return None
    elif len(shape) == 2:
        (height, width), channels = shape, 1
    else:
        return None
    if not height or not width or not x.is_contiguous():
        return None
    device = x.get_device()
    return x.data_ptr(), device, _raw_stream(device) or _CUDA_STREAM_LEGACY, height, width, channels


def _from_torch(t, stream):
    # Every step here is on the path of a device tensor's call: the accessors are the cheap ones
    # (get_device, is_cuda, the raw current stream), about 3 us in all where the plain ones
    # took 10.
    torch = _torch or _torch_module()
    dtype = _torch_dtypes.get(t.dtype) if _torch_dtypes else None
    if dtype is None:
        dtype = _torch_to_numpy_dtype(torch, t.dtype)
    item = dtype.itemsize
    strides = tuple(s * item for s in t.stride())
    if not t.is_cuda:
        if t.device.type != "cpu":
            raise TypeError(f"torch tensors on {t.device.type} are not counted (CPU or CUDA)")
        return Array(t, "torch", t.data_ptr(), -1, dtype, tuple(t.shape), strides)
    device = t.get_device()
    if not isinstance(stream, Stream):
        if stream is None and _raw_stream is not None:
            stream = Stream.torch_current(device, _raw_stream(device))
        else:
            stream = Stream("torch", _torch_stream(torch, device, stream), stream is None, device)
    return Array(t, "torch", t.data_ptr(), device, dtype, tuple(t.shape), strides, stream)


def _from_cupy(a, stream):
    import cupy
    if not isinstance(a, cupy.ndarray):
        a = cupy.asarray(a)
    dtype = a.dtype
    if not dtype.isnative:
        raise TypeError("CuPy arrays of non-native byte order are not counted")
    if not isinstance(stream, Stream):
        stream = Stream("cupy", _cupy_stream(cupy, stream), stream is None)
    return Array(a, "cupy", a.data.ptr, a.device.id, dtype, a.shape, a.strides, stream)


def _from_cuda_interface(x, stream):
    try:
        import cupy
        return _from_cupy(cupy.asarray(x), stream)
    except ImportError:
        pass
    try:
        import torch
        return _from_torch(torch.as_tensor(x, device="cuda"), stream)
    except ImportError:
        raise TypeError("a __cuda_array_interface__ array is counted through CuPy or PyTorch; neither is installed") from None


def resolve(x, stream=None):
    """The Array of any supported input (no copy)."""
    if isinstance(x, np.ndarray):
        return _from_numpy(x)
    if isinstance(x, Array):
        return x
    module = type(x).__module__
    if module.startswith("torch"):
        return _from_torch(x, stream)
    if module.startswith("cupy"):
        return _from_cupy(x, stream)
    if hasattr(x, "__cuda_array_interface__"):
        return _from_cuda_interface(x, stream)
    if hasattr(x, "__dlpack__"):
        device = x.__dlpack_device__()[0] if hasattr(x, "__dlpack_device__") else 1
        if device in (1, 3):  # kDLCPU, kDLCUDAHost: host memory NumPy can wrap
            return _from_numpy(np.from_dlpack(x))
        for name, lib in (("torch", "torch"), ("cupy", "cupy")):
            try:
                mod = __import__(name)
            except ImportError:
                continue
            return resolve(mod.from_dlpack(x), stream)
        raise TypeError("a CUDA DLPack tensor is counted through PyTorch or CuPy; neither is installed")
    try:
        return _from_numpy(np.asarray(memoryview(x)))
    except TypeError:
        pass
    return _from_numpy(np.asarray(x))


class View:
    """An interleaved view the engine counts: rows of `width` pixels of `channels` samples."""

    __slots__ = ("pointer", "device", "type", "width", "height", "stride", "channels", "reversed", "stream")

    def __init__(self, pointer, device, type, width, height, stride, channels, reversed=False):
        self.stream = 0          # the caller's CUDA stream (an int) to count in; 0: the engine's
        self.pointer = pointer
        self.device = device
        self.type = type
        self.width = width
        self.height = height
        self.stride = stride
        self.channels = channels
        self.reversed = reversed  # the channels lie in memory in reverse order

    def count(self, binnings, strategy, out=0):
        """The engine's count; `out` (device memory, an int): where the counts stay."""
        return _native.count(self.pointer, self.device, self.type, self.width, self.height, self.stride,
                             self.channels, binnings, strategy, strategy == "cpu", self.stream, out)

    def count_keys(self, bins, strategy, out):
        """bincount's first pass into device counts at `out`: (max, below, above, high_above,
        high_max, strategy), nothing else made (_native.count_keys)."""
        return _native.count_keys(self.pointer, self.device, self.type, self.width, self.height, self.stride,
                                  self.channels, bins, strategy, self.stream, out)

    def count2d(self, pairs, strategy, standard="bt709", rgb=(0, 1, 2)):
        return _native.count2d(self.pointer, self.device, self.type, self.width, self.height, self.stride,
                               self.channels, pairs, standard, list(rgb), strategy, strategy == "cpu")


def _aligned(pointer, stride, sample):
    return pointer % sample == 0 and stride % sample == 0


def flat_view(arr, type, channels=1):
    """Every element of `arr`, in some order, as rows of pixels (one element each, of `channels`
    samples of `type`); None when the layout is not rows of packed elements."""
    item = arr.dtype.itemsize
    pointer = arr.pointer
    dims = []
    for n, s in zip(arr.shape, arr.strides):
        if n == 0:
            return View(pointer, arr.device, type, 0, 0, 0, channels)
        if n == 1:
            continue
        if s < 0:  # the order of the elements does not change their counts
            pointer += (n - 1) * s
            s = -s
        if s == 0:
            return None  # a broadcast: each view element counts, so it must be materialised
        dims.append((n, s))
    dims.sort(key=lambda d: d[1], reverse=True)
    merged = []
    for n, s in dims:
        if merged and merged[-1][1] == n * s:
            merged[-1] = (merged[-1][0] * n, s)
        else:
            merged.append((n, s))
    sample = SAMPLE_BYTES[type]
    if pointer % sample:
        return None
    if not merged:
        return View(pointer, arr.device, type, 1, 1, 0, channels)
    if len(merged) == 1:
        n, s = merged[0]
        if s == item:
            return View(pointer, arr.device, type, n, 1, 0, channels)
        if s > item and s % sample == 0:
            return View(pointer, arr.device, type, 1, n, s, channels)  # one element per row
        return None
    if len(merged) == 2:
        (rows, row_stride), (width, s) = merged
        if s == item and row_stride >= width * item and row_stride % sample == 0:
            return View(pointer, arr.device, type, width, rows, row_stride, channels)
    return None


def image_view(arr, type, keep_columns=False):
    """An H x W or H x W x C array as an interleaved image view; None when its pixels are not
    packed rows. Rows (and, unless keep_columns, columns) may run backwards; channels may too,
    which the view records."""
    if arr.ndim not in (2, 3):
        raise ValueError(f"an image is an H x W or H x W x C array, not {arr.ndim}-D")
    height, width = arr.shape[0], arr.shape[1]
    channels = arr.shape[2] if arr.ndim == 3 else 1
    if not 1 <= channels <= 4:
        raise ValueError(f"an image has 1 to 4 channels, not {channels}")
    item = arr.dtype.itemsize
    if height == 0 or width == 0:
        return View(arr.pointer, arr.device, type, width, height, 0, channels)
    rs, cs = arr.strides[0], arr.strides[1]
    ks = arr.strides[2] if arr.ndim == 3 else item
    pointer = arr.pointer
    reversed_channels = False
    if channels > 1 and ks == -item:
        pointer += (channels - 1) * ks
        reversed_channels = True
    elif channels > 1 and ks != item:
        return None
    pixel = channels * item
    if width > 1 and cs < 0 and not keep_columns:
        pointer += (width - 1) * cs
        cs = -cs
    if width > 1 and cs != pixel:
        return None
    if height > 1 and rs < 0:
        pointer += (height - 1) * rs
        rs = -rs
    if height <= 1:
        rs = width * pixel
    if rs < width * pixel or not _aligned(pointer, rs, SAMPLE_BYTES[type]):
        return None
    return View(pointer, arr.device, type, width, height, rs, channels, reversed_channels)
