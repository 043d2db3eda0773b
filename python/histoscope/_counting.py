"""The counting functions, with NumPy's and PyTorch's names and semantics.

Everything here decides *what* to count (which view of the input, which binning) and turns the
engine's exact counts into NumPy's shapes; the counting itself, the statistics and the scopes'
integer luma/Cb/Cr are the engine's (histoscope._native, on this thread's engine).
"""
import builtins
import math
import operator

import numpy as np

from . import _arrays, _native
from ._arrays import ENGINE_TYPES, SAMPLE_BYTES, View, flat_view, image_view, resolve, torch_device_image, torch_device_keys

MAX_BINS = _native.MAX_BINS
MAX_CELLS = _native.MAX_CELLS
_NEGATIVE = "bincount counts non-negative integers: the array holds negative values"
_TYPE_RANGE = {"u8": (0, 255), "u16": (0, 65535), "i32": (-2**31, 2**31 - 1), "u32": (0, 2**32 - 1)}
# The CLI's range for integer images (io/Frame.cpp's nominal range), [lo, hi).
_NOMINAL_RANGE = {"u8": (0.0, 256.0), "u16": (0.0, 65536.0), "i32": (-32768.0, 32768.0), "u32": (0.0, 65536.0)}


def _flat(arr, type, channels=1):
    """arr and its flat view; a C-contiguous copy first when its layout is not rows of elements."""
    shape, item = arr.shape, arr.dtype.itemsize
    if len(shape) == 1 and arr.strides[0] == item and arr.pointer % SAMPLE_BYTES[type] == 0:
        view = View(arr.pointer, arr.device, type, shape[0], 1 if shape[0] else 0, 0, channels)  # the common case, quickly
        view.stream = arr.stream_handle
        return arr, view
    view = flat_view(arr, type, channels)
    if view is None:
        arr = arr.contiguous()
        view = flat_view(arr, type, channels)
    view.stream = arr.stream_handle
    return arr, view


def _image(arr, type, keep_columns=False):
    view = image_view(arr, type, keep_columns)
    if view is None:
        arr = arr.contiguous()
        view = image_view(arr, type, keep_columns)
    view.stream = arr.stream_handle   # 1-D counts only: count2d takes no stream (and synchronises)
    return arr, view


# The longest bincount result: keys are counted up to 2**32 - 1 (docs/SCHEMA.md, "Python"), so a
# longer minlength adds only zeros, and would ask for more than 32 GiB of them.
MAX_LENGTH = 2**32


def _minlength_argument(minlength):
    """minlength as an int, checked: a non-negative integer of at most MAX_LENGTH."""
    try:
        n = operator.index(minlength)
    except TypeError:
        raise TypeError(f"minlength must be an integer, not {type(minlength).__name__} "
                        "(histoscope.bincount(x, minlength) takes no weights)") from None
    if n < 0:
        raise ValueError(f"minlength must not be negative, not {n}")
    if n > MAX_LENGTH:
        raise ValueError(f"minlength must be at most 2**32 (bincount counts values up to 2**32 - 1), not {n}: "
                         f"its counts would take {8 * n / 2**40:.3g} TiB")
    return n


def _strategy_argument(strategy):
    if not isinstance(strategy, str):
        raise TypeError(f"strategy must be a strategy's name, a str (histoscope.strategies()), "
                        f"not {type(strategy).__name__}")
    return strategy


def _range_argument(range, name="range"):
    """(lo, hi) of a range argument, unpacked as NumPy unpacks it, with the argument named."""
    try:
        lo, hi = range
    except TypeError:
        raise TypeError(f"{name} must be a pair (lo, hi), not {type(range).__name__}") from None
    except ValueError:
        raise ValueError(f"{name} must be a pair (lo, hi), not {len(range)} values") from None
    return lo, hi


def _float32_binning(nbins, lo, hi, what):
    """Raises ValueError when the engine's float rule (docs/SCHEMA.md, "Python"), in float32
    arithmetic, cannot bin [lo, hi) into nbins bins: an end beyond float32, or a range so narrow
    that bins / (hi - lo) overflows float32 (where the engine's product would be inf or NaN and
    every sample would land in one bin)."""
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        flo, fhi = np.float32(lo), np.float32(hi)
        width = fhi - flo
        scale = np.float32(nbins) / width
    if not (np.isfinite(flo) and np.isfinite(fhi)):
        raise ValueError(f"{what} is beyond float32's range: the engine bins floats in float32 arithmetic")
    if not np.isfinite(width):
        raise ValueError(f"{what} is too wide for float32 arithmetic (hi - lo overflows float32, in which "
                         "the engine bins floats)")
    if not (width > 0 and np.isfinite(scale)):
        raise ValueError(f"{what} is too narrow for {nbins} bins in float32 arithmetic (the engine bins floats "
                         "in float32): fewer bins, or a wider range")


def _bins_argument(bins, allow_zero=False):
    try:
        n = operator.index(bins)
    except TypeError:
        raise TypeError("`bins` must be an integer: histoscope counts equal-width bins "
                        "(numpy.histogram's edge arrays and estimator names are not taken)") from None
    if n < (0 if allow_zero else 1):
        raise ValueError("`bins` must be positive, when an integer")
    if n > MAX_BINS:
        raise ValueError(f"`bins` is at most {MAX_BINS} (2**24), not {n}")
    return n


def _image_input(arr):
    """The input in a sample type the engine reads per channel (a converted copy otherwise)."""
    dtype = arr.dtype
    if dtype in ENGINE_TYPES:
        return arr, ENGINE_TYPES[dtype]
    if dtype.kind == "b":
        return arr.astype(np.uint8), "u8"
    if dtype.kind == "f":
        return arr.astype(np.float32), "f32"
    if dtype.kind in "iu":
        if arr.size == 0:
            return arr.astype(np.int32), "i32"
        lo, hi = arr.extremes()
        if -2**31 <= lo and hi < 2**31:
            return arr.astype(np.int32), "i32"
        if lo >= 0 and hi < 2**32:
            return arr.astype(np.uint32), "u32"
        raise ValueError(f"the engine counts integers of up to 32 bits; this {dtype} array holds values from {lo} to {hi}")
    raise TypeError(f"arrays of {dtype} are not counted (integers, bool, float16, float32 or float64)")


# ---- bincount ---------------------------------------------------------------------------------

def bincount(x, minlength=0, *, strategy="auto", stream=None):
    """Counts of each non-negative integer value, as ``numpy.bincount`` / ``torch.bincount``.

    ``x`` is a 1-D array of non-negative integers of any width (bool, int8 to int64, uint8 to
    uint64; 64-bit values up to 2**32 - 1): a NumPy array, anything with the buffer protocol or
    ``__dlpack__``, or a PyTorch or CuPy tensor on the CPU or a CUDA device. Returns
    ``max(x.max() + 1, minlength)`` int64 counts: a tensor on the input's device for torch and
    CuPy input, a NumPy array otherwise. Negative values raise ValueError, as NumPy's do;
    ``minlength`` is at most 2**32 (a longer one raises ValueError, as a larger value does).

    Device input is counted on its device in the caller's current CUDA stream (or ``stream``:
    a torch or CuPy stream, or a cudaStream_t as an int): the engine's upload-free count is
    enqueued there, after what the stream had enqueued, with no synchronisation first, and the
    engine writes the counts straight into the result, a tensor it allocates with the input's
    library on that device: only a few margins cross the bus. Passing ``minlength`` >= the largest value + 1 counts in one pass;
    otherwise values beyond ``minlength`` (host input: beyond ``max(minlength, 256)``; no
    ``minlength``: beyond 256) take a second pass with the exact bins.

    ``strategy`` is an engine strategy (``histoscope.strategies()``), ``"auto"`` by default.
    """
    if minlength.__class__ is not int or not 0 <= minlength <= MAX_LENGTH:
        minlength = _minlength_argument(minlength)
    if strategy.__class__ is not str:
        _strategy_argument(strategy)
    keys = torch_device_keys(x) if stream is None else None
    if keys is not None:
        return _torch_keys_bincount(x, keys, minlength, strategy)
    arr = resolve(x, stream)
    if arr.ndim != 1:
        raise ValueError(f"bincount takes a 1-D array, not {arr.ndim}-D")
    if arr.size == 0 and isinstance(x, (list, tuple)):
        return np.zeros(minlength, np.int64)  # as numpy.bincount([]): no values, so no type to refuse
    dtype = arr.dtype
    if dtype.kind not in "biu":
        raise TypeError(f"bincount counts integers, not {dtype}")
    if arr.size == 0:
        return arr.output(np.zeros(minlength, np.int64))
    if arr.device >= 0:
        return _device_bincount(arr, dtype, minlength, strategy)
    item = dtype.itemsize
    if item <= 2:
        # Every value of the type in one identity pass; a signed type's negatives are the top half.
        type, values = ("u8", 256) if item == 1 else ("u16", 65536)
        arr, view = _flat(arr, type)
        table = view.count([(True, values, 0.0, float(values), True)], strategy).channels[0].counts
        if dtype.kind == "i" and table[values // 2:].any():
            raise ValueError(_NEGATIVE)
        top = int(np.flatnonzero(table)[-1])
        length = max(top + 1, minlength)
        if length <= values:
            return arr.output(table[:length])  # the engine's counts themselves, no copy
        out = np.zeros(length, np.int64)
        out[:values] = table
        return arr.output(out)
    arr, view, channels, guess, binnings = _wide_keys(arr, dtype, minlength)
    ch = _checked_keys(view.count(binnings, strategy), dtype, channels)
    top = int(ch.max_value)
    if not ch.above:
        if minlength <= guess:  # every value below guess >= minlength: the engine's counts themselves, no copy
            return arr.output(ch.counts[:max(top + 1, minlength)])
        out = np.zeros(minlength, np.int64)  # minlength beyond MAX_BINS: the rest are zeros
        out[:guess] = ch.counts
        return arr.output(out)
    out = np.zeros(max(top + 1, minlength), np.int64)
    rest = [None] if channels == 2 else []
    for lo in range(0, top + 1, MAX_BINS):
        bins = min(MAX_BINS, top + 1 - lo)
        out[lo:lo + bins] = view.count([(True, bins, float(lo), float(lo + bins), True)] + rest, strategy).channels[0].counts
    return arr.output(out)


def _key_words(dtype):
    """The engine's type and channels of 32- or 64-bit keys: 64-bit ones as two u32 words (low
    first, little-endian), their high words a second channel, so that a value outside
    [0, 2**32) is seen in the same pass."""
    item = dtype.itemsize
    if item == 4:
        return ("i32" if dtype.kind == "i" else "u32"), 1
    if item == 8:
        return "u32", 2
    raise TypeError(f"bincount counts integers of up to 64 bits, not {dtype}")


def _first_guess(minlength, device=False):
    """The first pass's bins of 32- and 64-bit keys, at most MAX_BINS: minlength, at least 256;
    on a device, minlength itself when one is given (the number of experts or classes, which
    the values do not reach), so that the result is the whole tensor the engine wrote: a view of
    its head cost a torch op (2-4 us) on every call, and a device's second pass is a fraction of
    a millisecond where the host's would be a whole count again."""
    if device and minlength > 0:
        return min(minlength, MAX_BINS)
    return min(max(minlength, 256), MAX_BINS)


def _wide_keys(arr, dtype, minlength):
    """The view of 32- or 64-bit keys and the first pass's binnings: identity bins up to a guess
    of the length (minlength, at least 256, at most MAX_BINS), and for 64-bit keys their high
    words in one bin."""
    type, channels = _key_words(dtype)
    arr, view = _flat(arr, type, channels)
    guess = _first_guess(minlength)
    high = [(True, 1, 0.0, 1.0, True)] if channels == 2 else []
    return arr, view, channels, guess, [(True, guess, 0.0, float(guess), True)] + high


def _check_keys(dtype, below, high_above, high_max):
    """Raises for a negative key or one beyond 2**32 - 1, from the first pass's margins: keys
    below 0 (32-bit), and the high words' count above 0 and their largest (64-bit)."""
    if high_above:
        if dtype.kind == "i" and high_max >= 2**31:
            raise ValueError(_NEGATIVE)
        raise ValueError("bincount counts values up to 2**32 - 1: this array holds larger ones")
    if below:
        raise ValueError(_NEGATIVE)


def _checked_keys(counted, dtype, channels):
    """The first pass's key channel, once no key is negative or beyond 2**32 - 1."""
    ch = counted.channels[0]
    high = counted.channels[1] if channels == 2 else None
    _check_keys(dtype, ch.below, high.above if high else 0, int(high.max_value) if high else 0)
    return ch


def _device_bincount(arr, dtype, minlength, strategy):
    """bincount of device input, its counts written by the engine into a tensor of the input's
    library on its device: nothing but a few margins crosses the bus. The first pass is one
    native call (count_keys) that hands back only those margins."""
    item = dtype.itemsize
    if item <= 2:
        type, values = ("u8", 256) if item == 1 else ("u16", 65536)
        arr, view = _flat(arr, type)
        out, pointer = arr.device_counts(max(values, minlength))
        top = view.count_keys(values, strategy, pointer)[0]
        arr.device_zeros(out, values)
        if dtype.kind == "i" and top >= values // 2:
            raise ValueError(_NEGATIVE)  # a signed type's negatives are the top half
        return arr.head(out, max(top + 1, minlength))
    type, channels = _key_words(dtype)
    arr, view = _flat(arr, type, channels)
    guess = _first_guess(minlength, device=True)
    out, pointer = arr.device_counts(max(guess, minlength))
    top, below, above, high_above, high_max, _ = view.count_keys(guess, strategy, pointer)
    _check_keys(dtype, below, high_above, high_max)
    if not above:
        if minlength > guess:
            arr.device_zeros(out, guess)  # minlength beyond MAX_BINS: the rest are zeros
        return arr.head(out, max(top + 1, minlength))
    out, pointer = arr.device_counts(max(top + 1, minlength))
    arr.device_zeros(out, top + 1)
    _exact_passes(view, top, channels, strategy, pointer)
    return out


def _exact_passes(view, top, channels, strategy, pointer):
    """bincount of device keys beyond the first pass's guess: identity bins [0, top] counted in
    passes of at most MAX_BINS, each written at its offset of the device counts at `pointer`."""
    rest = [None] if channels == 2 else []
    for lo in builtins.range(0, top + 1, MAX_BINS):
        bins = min(MAX_BINS, top + 1 - lo)
        view.count([(True, bins, float(lo), float(lo + bins), True)] + rest, strategy, pointer + 8 * lo)


def _torch_keys_bincount(x, keys, minlength, strategy):
    """_device_bincount of a contiguous 1-D CUDA tensor of int32 or int64 keys in the current
    stream (torch_device_keys), with torch's own calls alone around the engine's: one
    allocation, usually of the result's length, so no view of it is made either. The count is
    enqueued first and the result allocated while the GPU counts (count_keys_begin/_end)."""
    pointer, device, stream, (type, channels, dtype) = keys
    n = x.shape[0]
    guess = _first_guess(minlength, device=True)
    size = max(guess, minlength)
    _native.count_keys_begin(pointer, device, type, n, 1, 0, channels, guess, strategy, stream)
    try:
        out = x.new_empty(size, dtype=_arrays._torch.int64)
    except BaseException:
        _native.count_keys_abandon(device)
        raise
    top, below, above, high_above, high_max, _ = _native.count_keys_end(device, out.data_ptr())
    _check_keys(dtype, below, high_above, high_max)
    length = max(top + 1, minlength)
    if not above:
        if minlength > guess:
            out[guess:].zero_()  # minlength beyond MAX_BINS: the rest are zeros
        # With no minlength the first pass counted 256 bins: at most 255 are left over.
        return out if length == size else out.narrow(0, 0, length)
    out = x.new_empty(length, dtype=_arrays._torch.int64)
    if length > top + 1:
        out[top + 1:].zero_()
    view = View(pointer, device, type, n, 1, 0, channels)
    view.stream = stream
    _exact_passes(view, top, channels, strategy, out.data_ptr())
    return out


# ---- histogram --------------------------------------------------------------------------------

class Histogram(tuple):
    """``(counts, edges)`` as numpy.histogram returns them, and what the bins do not hold:
    ``below`` (samples under the range), ``above`` (over it) and ``nan``, each an exact count;
    ``outside`` is their sum. ``strategy`` is the engine strategy that counted."""

    def __new__(cls, counts, edges, below, above, nan, strategy):
        self = super().__new__(cls, (counts, edges))
        self.below, self.above, self.nan, self.strategy = int(below), int(above), int(nan), strategy
        return self

    @property
    def counts(self):
        return self[0]

    @property
    def edges(self):
        return self[1]

    @property
    def outside(self):
        return self.below + self.above + self.nan

    def __repr__(self):
        return (f"Histogram(counts={self[0]!r}, edges={self[1]!r}, below={self.below}, above={self.above}, "
                f"nan={self.nan})")


def _integer_bounds(edges):
    """Integer v lies in bin i iff b[i] <= v < b[i + 1] (NumPy's rule, its last bin closed).
    Edges beyond +-2**62 are taken at +-2**62: every value counted lies within 32 bits, and an
    edge of 1e300 would not convert to int64."""
    edges = np.clip(np.asarray(edges, dtype=np.float64), -2.0**62, 2.0**62)
    b = np.empty(edges.size, dtype=np.int64)
    b[:-1] = np.ceil(edges[:-1])
    b[-1] = math.floor(edges[-1]) + 1
    return np.maximum.accumulate(b)


class _Prefix:
    """C(b) = the number of samples below the integer b, from the engine's exact counts over
    [L, end) in bins of k integers (k = 1: one bin per value), refining a bin a bound cuts."""

    def __init__(self, view, strategy, type, lo, end, extra, cuts):
        t_lo, t_hi = _TYPE_RANGE[type]
        # Values outside the type cannot occur: the counted range stays within it (and the
        # engine's +-2^34).
        self.L = max(lo, t_lo)
        self.end = max(min(end, t_hi + 1), self.L)
        self.view, self.strategy, self.extra = view, strategy, extra
        width = self.end - self.L
        if width == 0:
            ch = view.count([(True, 1, float(self.L), float(self.L + 1), True)] + extra, strategy).channels[0]
            self.below, self.k, self.cs = ch.below, 1, np.zeros(1, np.int64)
            return
        # Bins of k integers: every bin a bound cuts costs a pass of k bins, so for a span of
        # more than 2^24 values about sqrt(span * bounds) fine bins keep the bins counted in all
        # passes few (one pass of one bin per value when the span allows).
        self.k = -(-width // MAX_BINS)
        if self.k > 1:
            fine = int(min(MAX_BINS, max(1, math.isqrt(width * max(1, cuts)))))
            self.k = -(-width // fine)
        fine = -(-width // self.k)
        ch = view.count([(True, fine, float(self.L), float(self.L + fine * self.k), self.k == 1)] + extra,
                        strategy).channels[0]
        self.below = ch.below
        self.cs = np.concatenate(([0], np.cumsum(ch.counts, dtype=np.int64)))
        self.refined = {}

    def __call__(self, bounds):
        b = np.clip(bounds, self.L, self.end) - self.L
        j, r = np.divmod(b, self.k)
        out = self.below + self.cs[j]
        # A bound inside a fine bin needs that bin's samples below it: a pass of identity bins
        # over the bin, unless the bin holds no sample. Cut bins share a pass (of at most
        # MAX_BINS values) while the values between them cost less to count than another pass
        # over the samples (a bin costs about 4 samples' time): one pass per cut bin made 10^5
        # bins of a 32-bit span take 10^5 passes, a pass per sample where the samples are few.
        cut = np.flatnonzero(r > 0)
        cut = cut[self.cs[j[cut] + 1] > self.cs[j[cut]]]
        if cut.size == 0:
            return out
        k = self.k
        starts = np.unique(j[cut])
        per = MAX_BINS // k  # fine bins one pass can cover
        gap = (self.view.width * self.view.height) // 4 + 4096
        apart = np.ones(starts.size, dtype=bool)
        apart[1:] = (np.diff(starts) - 1) * k > gap
        run_first = starts[apart][np.cumsum(apart) - 1]
        chunk = (starts - run_first) // per
        new = apart.copy()
        new[1:] |= chunk[1:] != chunk[:-1]
        heads = np.flatnonzero(new)
        firsts = starts[heads]
        lasts = starts[np.append(heads[1:] - 1, starts.size - 1)]
        group = np.searchsorted(firsts, j[cut], side="right") - 1
        order = np.argsort(group, kind="stable")
        cut, group = cut[order], group[order]
        ends = np.searchsorted(group, np.arange(firsts.size + 1))
        for g in builtins.range(firsts.size):
            first, last = int(firsts[g]), int(lasts[g])
            lo = self.L + first * k
            hi = min(self.L + (last + 1) * k, self.end)
            counts = self.view.count([(True, hi - lo, float(lo), float(hi), True)] + self.extra,
                                     self.strategy).channels[0].counts
            part = np.concatenate(([0], np.cumsum(counts, dtype=np.int64)))
            sel = cut[ends[g]:ends[g + 1]]
            out[sel] += part[b[sel] - first * k] - part[j[sel] * k - first * k]
        return out


def histogram(a, bins=10, range=None, *, strategy="auto", strict=False, stream=None):
    """``(counts, edges)`` of ``a`` over ``bins`` equal bins, as ``numpy.histogram``.

    ``a`` is any array (flattened), of integers, bool or floats, on the host or a CUDA device.
    ``range`` is ``(lo, hi)``; by default the data's min and max, as NumPy's. The last bin is
    closed, as NumPy's. Integer data gives exactly NumPy's counts. Float data follows the
    engine's float rule (docs/SCHEMA.md, "Python"): float16/float32 samples are binned in
    float32 arithmetic and float64 samples are rounded to float32 first; whole numbers on
    whole-number edges land as in NumPy, and a sample within a float32 rounding of an inner edge
    may land in the neighbouring bin.

    Nothing is dropped silently: the result carries ``below``, ``above`` and ``nan`` (exact
    counts of the samples outside the bins); ``strict=True`` raises ValueError when any exist.
    For torch and CuPy input ``counts`` and ``edges`` are tensors on the input's device.
    """
    _strategy_argument(strategy)
    nbins = _bins_argument(bins)
    if range is not None:
        range = _range_argument(range)
    arr = resolve(a, stream)
    arr.order_library_work()
    dtype = arr.dtype
    if dtype.kind == "b":
        dtype = np.dtype(np.uint8)  # as numpy.histogram converts bool
    elif dtype.kind not in "iuf":
        raise TypeError(f"histogram counts integers, bool and floats, not {dtype}")
    if dtype.kind == "f":
        counts, edges, below, above, nan, ran = _float_histogram(arr, dtype, nbins, range, strategy)
    else:
        counts, edges, below, above, nan, ran = _integer_histogram(arr, dtype, nbins, range, strategy)
    if strict and below + above + nan:
        raise ValueError(f"{below} samples fell below the range, {above} above it and {nan} were NaN "
                         "(histogram(strict=True))")
    return Histogram(arr.output(counts), arr.output(edges), below, above, nan, ran)


def _edges(dtype, nbins, first, last):
    """NumPy's own edges for this dtype and range (numpy.histogram_bin_edges, same checks)."""
    return np.histogram_bin_edges(np.empty(0, dtype=dtype), nbins, (first, last))


_FLOAT32_MAX = float(np.finfo(np.float32).max)


def _f32_key(f):
    """An order-preserving integer key of a float32: a < b as floats exactly when key(a) < key(b)."""
    bits = int(np.float32(f).view(np.uint32))
    return bits ^ 0x80000000 if bits < 0x80000000 else (~bits) & 0xffffffff


def _f32_of_key(key):
    bits = key ^ 0x80000000 if key >= 0x80000000 else (~key) & 0xffffffff
    return np.uint32(bits).view(np.float32)


def _float_bins(dtype, nbins, range):
    """NumPy's edges of the range, then ``_float_hi``'s (lo, hi, top) for them."""
    edges = _edges(dtype, nbins, *range)
    return (edges, *_float_hi(dtype, nbins, float(edges[0]), float(edges[-1]),
                              f"the range [{edges[0]}, {edges[-1]}]"))


def _float_hi(dtype, nbins, lo, last, what):
    """The engine's half-open [lo, hi) for NumPy's bins [lo, last], checked against float32; and
    ``top``, the float32 the last edge becomes (None where the rule keeps the last bin
    half-open). The samples in [hi, top] belong to NumPy's closed last bin and are counted into
    it after the engine's pass (_close_last_bin; histogram2d's closing). ``top`` is the last
    float32 at or below the last edge for float16/float32 samples, and the edge rounded to the
    nearest float32 for samples the engine sees rounded to float32 (float64, integers): rounding
    keeps their order, so a sample at or below the edge is still at or below ``top``.

    hi is the largest float32 at or below ``top`` whose scale, float32(bins) / (float32(hi) -
    float32(lo)) as the engine computes it, is at least bins / (last - lo): a sample whose offset
    from lo times the scale is exact (whole numbers on whole-number edges) lands in the bin above
    an edge it lies on, as in NumPy, not a rounding below."""
    with np.errstate(over="ignore"):
        t32 = np.float32(last)
    if math.isfinite(t32) and float(t32) > last and np.dtype(dtype) in (np.float16, np.float32):
        t32 = np.nextafter(t32, np.float32(-np.inf))
    if not math.isfinite(t32) or float(t32) >= _FLOAT32_MAX or not float(t32) > lo:
        # Beyond float32 or too narrow for it (refused below), or ending at float32's largest
        # value, above which nothing lies to close the last bin with.
        hi = min(last, _FLOAT32_MAX) if math.isfinite(t32) and float(t32) > lo else last
        _float32_binning(nbins, lo, hi, what)
        return lo, hi, None
    _float32_binning(nbins, lo, float(t32), what)
    target = nbins / (last - lo)
    flo, bins32 = np.float32(lo), np.float32(nbins)

    def scaled_enough(fhi):
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            return float(bins32 / (fhi - flo)) >= target

    # The scale only grows as hi falls: the largest hi that is scaled enough, by bisection over
    # the float32s in (lo, top] (a range near zero against a wide one can need thousands of
    # one-ulp steps).
    good, bad = _f32_key(np.nextafter(flo, np.float32(np.inf))), _f32_key(t32) + 1
    if scaled_enough(t32):
        good = bad - 1
    else:
        while bad - good > 1:
            mid = (good + bad) // 2
            if scaled_enough(_f32_of_key(mid)):
                good = mid
            else:
                bad = mid
    return lo, float(_f32_of_key(good)), float(t32)


def _close_last_bin(view, ch, lo, top, strategy):
    """The samples in [hi, top], which the engine counted above its half-open range: all of
    ``above`` when nothing beyond ``top`` was seen, else ``above`` less the samples above top,
    from a one-bin count of [lo, top] (one of [hi, top] can be too narrow for float32: top = 0)."""
    if top is None or ch.above == 0:
        return 0
    if ch.max_value <= top:
        return ch.above
    upper = _next_float_up(top)
    return ch.above - view.count([(True, 1, lo, upper, False)], strategy).channels[0].above


def _float_histogram(arr, dtype, nbins, range, strategy):
    if range is None and arr.size and arr.dtype not in ENGINE_TYPES:
        # NumPy's edges come from the data's own extremes, before they are rounded to float32.
        first, last = arr.extremes()
        if not (math.isfinite(first) and math.isfinite(last)):
            raise ValueError(f"autodetected range of [{first}, {last}] is not finite")
        range = (dtype.type(first), dtype.type(last))
    bins = _float_bins(dtype, nbins, range) if range is not None else None  # checked before a copy
    if arr.dtype not in ENGINE_TYPES:
        arr = arr.astype(np.float32)  # the engine counts f16 and f32 samples
    arr, view = _flat(arr, ENGINE_TYPES[arr.dtype])
    if range is None:
        if arr.size == 0:
            first, last = 0, 1
        else:
            ch = view.count([(True, 1, 0.0, 1.0, False)], strategy).channels[0]
            if ch.nan:
                raise ValueError("autodetected range of [nan, nan] is not finite")
            first, last = dtype.type(ch.min_value), dtype.type(ch.max_value)
            if not (math.isfinite(first) and math.isfinite(last)):
                raise ValueError(f"autodetected range of [{first}, {last}] is not finite")
        bins = _float_bins(dtype, nbins, (first, last))
    edges, lo, hi, top = bins
    binning = [(True, nbins, lo, hi, False)]
    if arr.device >= 0:  # the counts stay on the device, in a tensor of the input's library
        out, pointer = arr.device_counts(nbins)
        counted = view.count(binning, strategy, pointer)
        ch = counted.channels[0]
        closing = _close_last_bin(view, ch, lo, top, strategy)
        if closing:
            arr.add_at(out, nbins - 1, closing)
        return out, edges, ch.below, ch.above - closing, ch.nan, counted.strategy
    counted = view.count(binning, strategy)
    ch = counted.channels[0]
    counts = np.array(ch.counts, dtype=np.int64)
    closing = _close_last_bin(view, ch, lo, top, strategy)
    counts[-1] += closing
    return counts, edges, ch.below, ch.above - closing, ch.nan, counted.strategy


def _integer_histogram(arr, dtype, nbins, range, strategy):
    item = dtype.itemsize
    if item <= 2:
        # One identity pass over every value of the type, then NumPy's bins over that table.
        type, values = ("u8", 256) if item == 1 else ("u16", 65536)
        arr, view = _flat(arr, type)
        counted = view.count([(True, values, 0.0, float(values), True)], strategy)
        table = np.array(counted.channels[0].counts, dtype=np.int64)
        base = 0
        if dtype.kind == "i":
            table = np.concatenate((table[values // 2:], table[:values // 2]))
            base = -(values // 2)
        if range is None:
            nz = np.flatnonzero(table)
            range = (0, 1) if nz.size == 0 else (dtype.type(base + nz[0]), dtype.type(base + nz[-1]))
        edges = _edges(dtype, nbins, *range)
        bounds = _integer_bounds(edges)
        cs = np.concatenate(([0], np.cumsum(table)))
        below_of = cs[np.clip(bounds - base, 0, table.size)]
        total = int(cs[-1])
        return (np.diff(below_of), edges, int(below_of[0]), total - int(below_of[-1]), 0, counted.strategy)
    extra = []
    if item == 4:
        type = "i32" if dtype.kind == "i" else "u32"
        arr, view = _flat(arr, type)
    elif item == 8:
        type = "u32"
        arr, view = _flat(arr, type, 2)
        extra = [None]
    else:
        raise TypeError(f"histogram counts integers of up to 64 bits, not {dtype}")
    ran = None
    if range is None or extra:
        probe = [(True, 1, 0.0, 1.0, True)]
        counted = view.count(probe + ([(True, 1, 0.0, 1.0, True)] if extra else []), strategy)
        ran = counted.strategy
        if extra and counted.channels[1].above:
            # Not all in [0, 2**32): the library converts to a 32-bit type when the values fit.
            arr, type = _image_input(arr)
            arr, view = _flat(arr, type)
            extra = []
            counted = view.count(probe, strategy)
        ch = counted.channels[0]
        if range is None:
            range = (0, 1) if not ch.has_values else (dtype.type(int(ch.min_value)), dtype.type(int(ch.max_value)))
    edges = _edges(dtype, nbins, *range)
    bounds = _integer_bounds(edges)
    prefix = _Prefix(view, strategy, type, int(bounds[0]), int(bounds[-1]), extra, nbins)
    below_of = prefix(bounds)
    total = arr.size
    return np.diff(below_of), edges, int(below_of[0]), total - int(below_of[-1]), 0, ran or strategy


# ---- image_histogram --------------------------------------------------------------------------

class ChannelResult:
    """One channel of an image histogram: its exact counts, what fell outside, the data's
    extremes and the statistics of docs/SCHEMA.md (the engine's, keyed as a record's)."""

    __slots__ = ("channel", "_counts", "_margins", "_native", "_context", "_statistics")

    def __init__(self, channel, native, type, bit_depth):
        self.channel = channel
        # Read from the engine's channel when first asked for, as the counts and statistics are:
        # an image's call returns before its five figures per channel cross into Python.
        self._counts = self._margins = None
        self._native, self._context, self._statistics = native, (type, bit_depth), None

    def _margin(self, k):
        if self._margins is None:
            n = self._native
            present = n.has_values
            self._margins = (n.below, n.above, n.nan, n.min_value if present else None, n.max_value if present else None)
        return self._margins[k]

    below = property(lambda self: self._margin(0), doc="samples under the range")
    above = property(lambda self: self._margin(1), doc="samples over the range")
    nan = property(lambda self: self._margin(2), doc="NaN samples")
    min = property(lambda self: self._margin(3), doc="the smallest sample (None when there is none)")
    max = property(lambda self: self._margin(4), doc="the largest sample (None when there is none)")

    @property
    def counts(self):
        """int64 counts, one per bin: the engine's own (read-only: the statistics come from them)."""
        if self._counts is None:
            self._counts = self._native.counts
            self._counts.flags.writeable = False
        return self._counts

    @property
    def statistics(self):
        """The statistics of docs/SCHEMA.md, computed by the engine when first read."""
        if self._statistics is None:
            self._statistics = self._native.statistics(*self._context)
        return self._statistics

    def __reduce__(self):
        # The engine's channel does not travel (to a Dask worker, a file): its values do.
        return _channel_result, (self.channel, np.array(self.counts), self.below, self.above, self.nan, self.min,
                                 self.max, self.statistics)

    def __repr__(self):
        s = self.statistics
        return f"ChannelResult(channel={self.channel}, count={s['count']}, mean={s['mean']:.6g}, median={s['median']:.6g})"


def _channel_result(channel, counts, below, above, nan, lo, hi, statistics):
    r = ChannelResult.__new__(ChannelResult)
    r.channel, r._counts, r._margins = channel, counts, (below, above, nan, lo, hi)
    r._native, r._context, r._statistics = None, None, statistics
    counts.flags.writeable = False
    return r


class ImageHistogram:
    """Per-channel histograms of an image, in the array's channel order.

    ``counts`` is (channels, bins) int64; ``edges`` the bins+1 edges; ``channels`` the
    ChannelResult of each counted channel; ``lo``, ``hi``, ``bins`` and ``binning``
    (``"identity"``: one bin per integer value, every statistic exact; ``"uniform"``) as a
    record has them; ``type`` the counted sample type; ``strategy`` and ``timings`` the engine's.
    """

    def __init__(self, counted, lo, hi, bins, identity, type, bit_depth=None, reversed_channels=0):
        # What a caller reads is made when first read (the channels, the strategy's name and
        # reason, the counts): a frame's call returns with nothing built from the engine's result.
        self.lo, self.hi, self.bins = lo, hi, bins
        self.binning = "identity" if identity else "uniform"
        self.type = type
        self._counted = counted
        self._bit_depth = bit_depth
        self._reversed = reversed_channels  # the image's channel count when memory holds them reversed
        self._channels = self._strategy = self._reason = self._counts = self._edges = None

    @property
    def channels(self):
        """The ChannelResult of each counted channel, in the array's channel order."""
        if self._channels is None:
            n = self._reversed
            results = [ChannelResult((n - 1 - ch.channel) if n else ch.channel, ch, self.type, self._bit_depth)
                       for ch in self._counted.channels]
            if n:
                results.reverse()  # the engine's channels come in memory order
            self._channels = results
        return self._channels

    @property
    def strategy(self):
        """The strategy that ran."""
        if self._strategy is None:
            self._strategy = self._counted.strategy
        return self._strategy

    @property
    def reason(self):
        """Why ``auto`` (or the engine) chose that strategy."""
        if self._reason is None:
            self._reason = self._counted.reason
        return self._reason

    @property
    def timings(self):
        return self._counted.timings if self._counted is not None else self._timings

    def __getstate__(self):
        state = dict(self.__dict__)
        # The engine's result does not travel (to a Dask worker, a file): what it holds does.
        state["_channels"], state["_strategy"], state["_reason"] = self.channels, self.strategy, self.reason
        state["_timings"], state["_counted"] = self.timings, None
        return state

    def __setstate__(self, state):
        # A result pickled by a version that made everything in the call (before session 12)
        # holds its channels, strategy and reason under their public names.
        for name in ("channels", "strategy", "reason"):
            if name in state:
                state["_" + name] = state.pop(name)
        state.setdefault("_bit_depth", None)
        state.setdefault("_reversed", 0)
        self.__dict__.update(state)

    @property
    def counts(self):
        """(channels, bins) int64, made when first read."""
        if self._counts is None:
            self._counts = (np.stack([c.counts for c in self.channels]) if self.channels
                            else np.zeros((0, self.bins), np.int64))
        return self._counts

    @property
    def edges(self):
        if self._edges is None:
            self._edges = np.linspace(self.lo, self.hi, self.bins + 1)
        return self._edges

    def __repr__(self):
        return (f"ImageHistogram(channels={[c.channel for c in self.channels]}, bins={self.bins}, "
                f"range=[{self.lo}, {self.hi}), binning={self.binning!r}, type={self.type!r})")


def _channel_list(channels, count):
    if channels is None:
        return list(builtins.range(count))
    try:
        channels = [operator.index(channels)]  # one channel: an int, a NumPy integer, a 0-d array
    except TypeError:
        try:
            channels = list(channels)
        except TypeError:
            raise TypeError(f"channels must be a channel index or a sequence of them, not "
                            f"{type(channels).__name__}") from None
    chosen = []
    for c in channels:
        try:
            c = operator.index(c)
        except TypeError:
            raise TypeError(f"channels must be integer channel indices, not {type(c).__name__}") from None
        if not 0 <= c < count:
            raise ValueError(f"channel {c} is outside the image's {count} channel(s)")
        if c in chosen:
            raise ValueError(f"channel {c} is listed twice")
        chosen.append(c)
    if not chosen:
        raise ValueError("no channel to count")
    return sorted(chosen)


def _next_float_up(x):
    return float(np.nextafter(np.float32(x), np.float32(np.inf)))


def image_histogram(img, bins=256, range=None, channels=None, *, bit_depth=None, strategy="auto", stream=None):
    """Per-channel histograms and statistics of an H x W or H x W x C image (C = 1 to 4).

    Counted as ``histoscope-cli histogram`` counts a file: ``range`` is ``(lo, hi)``, half-open;
    by default the type's range (uint8 [0, 256), uint16 [0, 65536), int32 [-32768, 32768),
    uint32 [0, 65536); floats [0, 1), widened to hold every finite sample). ``bins`` = 0 counts
    one bin per integer value. ``channels`` lists the channels to count (array indices; all by
    default). ``bit_depth`` (10, 12, 14...) sets the clipping points of integer data held in a
    wider type. Samples outside the range and NaN are counted per channel (``below``,
    ``above``, ``nan``). The statistics are the engine's (docs/SCHEMA.md "Statistics"): the
    same numbers the CLI writes. int8/int16/int64 images are counted as int32, float64 ones as
    float32 (a converted copy).
    """
    if strategy.__class__ is not str:
        _strategy_argument(strategy)
    if bins.__class__ is int and bins == 256 and range is None and channels is None and bit_depth is None and stream is None:
        fast = torch_device_image(img)
        if fast is not None:
            return _torch_u8_image(fast, strategy)
    if range is not None:
        range = _range_argument(range)
    arr = resolve(img, stream)
    arr.order_library_work()
    if arr.ndim not in (2, 3):
        raise ValueError(f"an image is an H x W or H x W x C array, not {arr.ndim}-D")
    count = arr.shape[2] if arr.ndim == 3 else 1
    if not 1 <= count <= 4:
        raise ValueError(f"an image has 1 to 4 channels, not {count}")
    if bit_depth is not None:  # checked now: the statistics that use it are computed when read
        try:
            bit_depth = operator.index(bit_depth)
        except TypeError:
            raise TypeError(f"bit_depth must be an integer, not {bit_depth.__class__.__name__}") from None
        if not 1 <= bit_depth <= 32:
            raise ValueError(f"bit_depth must be 1 to 32, not {bit_depth}")
    chosen = _channel_list(channels, count)
    nbins = _bins_argument(bins, allow_zero=True)
    arr, type = _image_input(arr)
    arr, view = _image(arr, type)
    integer = type not in ("f16", "f32")
    memory = [(count - 1 - c) if view.reversed else c for c in chosen]
    if range is None:
        if integer:
            lo, hi = _NOMINAL_RANGE[type]
        else:
            probe = [(True, 1, 0.0, 1.0, False) if c in memory else None for c in builtins.range(count)]
            found = [ch for ch in view.count(probe, strategy).channels if ch.has_values]
            extremes = None
            if found:
                extremes = (min(ch.min_value for ch in found), max(ch.max_value for ch in found))
                if not (math.isfinite(extremes[0]) and math.isfinite(extremes[1])):
                    extremes = arr.finite_extremes()
            if extremes is None or (extremes[0] >= 0 and extremes[1] < 1):
                lo, hi = 0.0, 1.0
            else:
                lo, hi = min(0.0, extremes[0]), (_next_float_up(extremes[1]) if extremes[1] >= 1 else 1.0)
    else:
        lo, hi = (float(v) for v in range)
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
            raise ValueError(f"range [{lo}, {hi}) is empty or not finite")
        if integer and not math.ceil(lo) < math.ceil(hi):
            raise ValueError(f"range [{lo}, {hi}) holds no integer")
    if not integer and nbins:
        _float32_binning(nbins, lo, hi, f"the range [{lo}, {hi})")
    if nbins == 0:
        if not integer:
            raise ValueError("bins=0 (one bin per value) needs integer data")
        values = math.ceil(hi) - math.ceil(lo)
        if values > MAX_BINS:
            raise ValueError(f"one bin per value over [{lo}, {hi}) would need {values} bins, more than {MAX_BINS}")
        nbins, identity = values, True
    else:
        identity = integer and math.ceil(hi) - math.ceil(lo) == nbins
    binnings = [(True, nbins, lo, hi, identity) if c in memory else None for c in builtins.range(count)]
    counted = view.count(binnings, strategy)
    b = counted.channels[0].binning
    upper = b[2] + b[1] if b[4] else b[3]
    return ImageHistogram(counted, b[2], upper, nbins, identity, type, bit_depth, count if view.reversed else 0)


_U8_IDENTITY = (True, 256, 0.0, 256.0, True)


def _torch_u8_image(fast, strategy):
    """image_histogram's defaults on a contiguous uint8 CUDA tensor in the current stream
    (torch_device_image): the general path's count and result, with nothing made on the way."""
    pointer, device, stream, height, width, count = fast
    counted = _native.count(pointer, device, "u8", width, height, width * count, count, [_U8_IDENTITY] * count,
                            strategy, strategy == "cpu", stream, 0)
    return ImageHistogram(counted, 0.0, 256.0, 256, True, "u8")


# ---- 2-D: histogram2d and the scopes ----------------------------------------------------------

class Histogram2D:
    """One exact 2-D histogram: ``counts`` (x bins, y bins) of the pixels inside both ranges,
    ``slots`` the engine's full grid with each axis' below/above/NaN margins (docs/SCOPES.md),
    ``x_edges``/``y_edges``, the axes' quantities, ``outside_x``/``outside_y`` (below, above,
    nan) and the strategy that counted."""

    def __init__(self, grid, counted, channel=None):
        self.slots = np.array(grid.slots, dtype=np.int64)
        self.x_quantity, self.x_channel, xb, xlo, xhi, xid = grid.x
        self.y_quantity, self.y_channel, yb, ylo, yhi, yid = grid.y
        self.counts = self.slots[:xb, :yb]
        self.x_edges = np.linspace(xlo, xlo + xb if xid else xhi, xb + 1)
        self.y_edges = np.linspace(ylo, ylo + yb if yid else yhi, yb + 1)
        self.outside_x = tuple(int(v) for v in self.slots[xb:].sum(axis=1))
        self.outside_y = tuple(int(v) for v in self.slots[:, yb:].sum(axis=0))
        self.channel = channel
        self.strategy = counted.strategy
        self.timings = counted.timings

    def __repr__(self):
        return (f"Histogram2D({self.x_quantity} x {self.y_quantity}, bins {self.counts.shape}, "
                f"in range {int(self.counts.sum())}, strategy {self.strategy!r})")


def _scope_arguments(standard, rgb, bins, bins_name, strategy):
    """The scopes' arguments checked, each named, before the engine's binding sees them."""
    _strategy_argument(strategy)
    if not isinstance(standard, str):
        raise TypeError(f"standard must be \"bt709\" or \"bt601\", not {type(standard).__name__}")
    try:
        rgb = list(rgb)
    except TypeError:
        raise TypeError(f"rgb must be three channel indices (R, G, B), not {type(rgb).__name__}") from None
    if len(rgb) != 3:
        raise ValueError(f"rgb must be three channel indices (R, G, B), not {len(rgb)}")
    try:
        n = operator.index(bins)
    except TypeError:
        raise TypeError(f"{bins_name} must be an integer, not {type(bins).__name__}") from None
    if not 0 <= n <= MAX_BINS:
        raise ValueError(f"{bins_name} must be 0 (the default) to {MAX_BINS}, not {n}")
    return rgb, n


def _scope(img, kind, parade, standard, rgb, bins, strategy, stream, bins_name="column_bins"):
    rgb, bins = _scope_arguments(standard, rgb, bins, bins_name, strategy)
    arr = resolve(img, stream)
    if arr.ndim not in (2, 3):
        raise ValueError(f"an image is an H x W or H x W x C array, not {arr.ndim}-D")
    count = arr.shape[2] if arr.ndim == 3 else 1
    arr.synchronize()
    arr, type = _image_input(arr)
    arr, view = _image(arr, type, keep_columns=True)

    def mem(c):
        c = operator.index(c)
        if not 0 <= c < count:
            raise ValueError(f"channel {c} is outside the image's {count} channel(s)")
        return (count - 1 - c) if view.reversed else c

    parade_mem = [mem(c) for c in parade] if parade is not None else []
    rgb_mem = [mem(c) for c in rgb] if count >= 3 else [0, 1, 2]
    pairs = _native.scope_pairs(kind, type, view.width, view.channels, parade_mem, standard, rgb_mem, bins)
    counted = view.count2d(pairs, strategy, standard, rgb_mem)
    grids = counted.histograms
    if kind == "parade":
        return [Histogram2D(g, counted, channel=c) for g, c in zip(grids, parade)]
    return Histogram2D(grids[0], counted)


def parade(img, channels=None, *, column_bins=0, strategy="auto", stream=None):
    """RGB parade: one (column, value) histogram per channel of an image (all by default), as
    the engine's scopes count them (docs/SCOPES.md). ``column_bins`` = 0: one bin per column."""
    arr = resolve(img, stream)
    count = arr.shape[2] if arr.ndim == 3 else 1
    return _scope(arr, "parade", _channel_list(channels, count), "bt709", (0, 1, 2), column_bins, strategy, stream)


def waveform(img, *, standard="bt709", rgb=(0, 1, 2), column_bins=0, strategy="auto", stream=None):
    """Luma waveform: the (column, Y') histogram of an RGB(A) image, Y' by the standard's
    exact integer formula (``"bt709"`` or ``"bt601"``; docs/SCOPES.md). ``rgb``: the array
    channels holding R, G and B."""
    return _scope(img, "waveform", None, standard, rgb, column_bins, strategy, stream)


def vectorscope(img, *, standard="bt709", rgb=(0, 1, 2), bins=0, strategy="auto", stream=None):
    """Vectorscope: the (Cb, Cr) histogram of an RGB(A) image, exact integer chroma codes of
    the standard (docs/SCOPES.md); ``bins`` per axis (0: 256)."""
    return _scope(img, "vectorscope", None, standard, rgb, bins, strategy, stream, "bins")


def _pair_view(ax, ay):
    """x and y as channels of one interleaved view: in place when they are columns of one
    array (x = a[:, i], y = a[:, j]), else an (N, 2) copy."""
    item = ax.dtype.itemsize
    if (ax.dtype == ay.dtype and ax.dtype in ENGINE_TYPES and ax.device == ay.device and ax.strides == ay.strides
            and ax.size > 1):
        step = ax.strides[0]
        delta = ay.pointer - ax.pointer
        base = min(ax.pointer, ay.pointer)
        channels = abs(delta) // item + 1 if delta % item == 0 else 0
        if delta and 2 <= channels <= 4 and step > 0 and step >= channels * item:
            type = ENGINE_TYPES[ax.dtype]
            if base % item == 0 and step % item == 0:
                cx, cy = (0, channels - 1) if delta > 0 else (channels - 1, 0)
                if step == channels * item:
                    return ax, View(base, ax.device, type, ax.size, 1, 0, channels), cx, cy
                return ax, View(base, ax.device, type, 1, ax.size, step, channels), cx, cy
    both, type = _image_input(ax.stack(ay))
    return both, View(both.pointer, both.device, type, both.shape[0], 1, 0, 2), 0, 1


def _histogram2d_edges(ax, ay, bins, given, found, n):
    """The edge arrays numpy.histogram2d returns, from the installed NumPy itself: its histogramdd
    takes linspace over a range taken from the data as scalars of the pair's common type, and
    over a given one as given, so the edges' type follows that NumPy's promotion rules (NumPy 2
    returns float32 edges of float32 data where NumPy 1 returns float64)."""
    common = np.result_type(ax.dtype, ay.dtype)
    outer = []
    for axis in builtins.range(2):
        if given[axis] is not None:
            outer.append(tuple(given[axis]))
        elif n == 0:
            outer.append((0, 1))
        else:  # the data's extremes: NumPy widens a one-value axis itself, in its own arithmetic
            outer.append((common.type(found[axis][0]), common.type(found[axis][1])))
    return list(np.histogramdd(np.empty((0, 2), dtype=common), bins, outer)[1])


def histogram2d(x, y, bins=10, range=None, *, strategy="auto", stream=None):
    """``(counts, x_edges, y_edges)`` of the pairs (x[i], y[i]), as ``numpy.histogram2d``.

    ``bins`` is an int or (x bins, y bins); ``range`` is ``((xlo, xhi), (ylo, yhi))``, by default
    each axis' min and max. Each axis' last bin is closed, as NumPy's. Integer data gives NumPy's
    counts exactly while (x values) x (y values) of the range fit in 2**24 cells; beyond, the
    engine's integer rule applies. Floats are binned per axis as ``histogram`` bins them: a
    sample on an edge lands as in NumPy (docs/SCHEMA.md, "Python"). The result carries
    ``outside``: the pairs in no bin (either value outside its range, or NaN).
    """
    _strategy_argument(strategy)
    ax, ay = resolve(x, stream), resolve(y, stream)
    if ax.ndim != 1 or ay.ndim != 1 or ax.size != ay.size:
        raise ValueError("x and y must be 1-D arrays of one length")
    if isinstance(bins, (tuple, list)):
        if len(bins) != 2:
            raise TypeError(f"`bins` must be an integer or a pair of them (x bins, y bins), not {len(bins)} values: "
                            "histoscope counts equal-width bins (numpy.histogram2d's edge arrays are not taken)")
        bx, by = (_bins_argument(b) for b in bins)
    else:
        bx = by = _bins_argument(bins)
    ranges = [None, None]
    given = [None, None]  # each axis' range as the caller wrote it, for NumPy's own edges
    found = [None, None]  # each other axis' extremes in the data
    if range is not None:
        ranges = list(range)
        given = list(ranges)
        if len(ranges) != 2:
            raise ValueError(f"range must have one entry per dimension, (x range, y range), not {len(ranges)}")
        for axis, r in enumerate(ranges):
            if r is not None:
                lo, hi = _range_argument(r, "each axis' range")
                if not (np.isfinite(lo) and np.isfinite(hi)):
                    raise ValueError(f"supplied range of [{lo}, {hi}] is not finite")
                ranges[axis] = (lo, hi)
    for a in (ax, ay):
        if a.dtype.kind not in "biuf":
            raise TypeError(f"histogram2d counts integers, bool and floats, not {a.dtype}")
    ax.synchronize()
    keep, view, cx, cy = _pair_view(ax, ay)
    integer = view.type not in ("f16", "f32")
    n = ax.size
    if not integer and n:
        for axis, a in enumerate((ax, ay)):
            if ranges[axis] is None and a.dtype not in (np.float16, np.float32):
                # Counted as float32: NumPy's edges come from the data's own extremes, before
                # they are rounded (as histogram's; float64 data, or integers beside floats).
                lo, hi = (float(v) for v in a.extremes())
                if not (math.isfinite(lo) and math.isfinite(hi)):
                    raise ValueError(f"autodetected range of [{lo}, {hi}] is not finite")
                ranges[axis] = found[axis] = (lo, hi)
    chans = None

    def extremes():  # one pass: each axis' channel, with its min and max
        probe = [None] * view.channels
        probe[cx] = probe[cy] = (True, 1, 0.0, 1.0, integer)
        return {ch.channel: ch for ch in view.count(probe, strategy).channels}

    if any(r is None for r in ranges):
        chans = extremes()
        for axis, c in enumerate((cx, cy)):
            if ranges[axis] is None:
                ch = chans[c]
                if n == 0:
                    ranges[axis] = (0.0, 1.0)
                    continue
                if ch.nan:
                    raise ValueError("autodetected range of [nan, nan] is not finite")  # NumPy's words
                if not (math.isfinite(ch.min_value) and math.isfinite(ch.max_value)):
                    raise ValueError(f"autodetected range of [{ch.min_value}, {ch.max_value}] is not finite")
                lo, hi = ch.min_value, ch.max_value
                found[axis] = (lo, hi)
                ranges[axis] = (lo - 0.5, hi + 0.5) if lo == hi else (lo, hi)
    for lo, hi in ranges:
        if float(lo) > float(hi):
            raise ValueError("max must be larger than min in range parameter.")
    edges = _histogram2d_edges(ax, ay, (bx, by), given, found, n)
    if integer:
        bounds = [_integer_bounds(e) for e in edges]
        t_lo, t_hi = _TYPE_RANGE[view.type]
        limits = [(t_lo, t_hi)] * 2
        spans = widths = None
        for attempt in builtins.range(2):
            spans = [(max(int(b[0]), lo), max(min(int(b[-1]), hi + 1), max(int(b[0]), lo)))
                     for b, (lo, hi) in zip(bounds, limits)]
            widths = [max(1, e - s) for s, e in spans]
            if widths[0] * widths[1] <= MAX_CELLS or attempt:
                break
            # More cells than one count holds over the range within the type: the data's own
            # extremes bound them too (no sample lies outside), often to few enough.
            chans = chans or extremes()
            limits = [(int(chans[c].min_value), int(chans[c].max_value)) if n else (0, 0) for c in (cx, cy)]
        if widths[0] * widths[1] <= MAX_CELLS:
            pairs = [(("channel", cx, widths[0], float(spans[0][0]), float(spans[0][0] + widths[0]), True),
                      ("channel", cy, widths[1], float(spans[1][0]), float(spans[1][0] + widths[1]), True))]
            counted = view.count2d(pairs, strategy)
            grid = np.array(counted.histograms[0].slots, dtype=np.int64)[:widths[0], :widths[1]]
            if spans[0][1] == spans[0][0]:
                grid[:] = 0  # no integer inside the x range
            if spans[1][1] == spans[1][0]:
                grid[:] = 0
            S = np.zeros((widths[0] + 1, widths[1] + 1), np.int64)
            S[1:, 1:] = grid.cumsum(0).cumsum(1)
            ix = np.clip(bounds[0] - spans[0][0], 0, widths[0])
            iy = np.clip(bounds[1] - spans[1][0], 0, widths[1])
            counts = S[np.ix_(ix[1:], iy[1:])] - S[np.ix_(ix[:-1], iy[1:])] - S[np.ix_(ix[1:], iy[:-1])] \
                + S[np.ix_(ix[:-1], iy[:-1])]
            return _Histogram2DResult(ax.output(counts), ax.output(edges[0]), ax.output(edges[1]),
                                      n - int(counts.sum()), counted.strategy)
        axes = [("channel", c, nb, float(b[0]), float(b[-1]), False) for c, nb, b in zip((cx, cy), (bx, by), bounds)]
        counted = view.count2d([tuple(axes)], strategy)
        counts = np.array(counted.histograms[0].slots, dtype=np.int64)[:bx, :by]
        return _Histogram2DResult(ax.output(counts), ax.output(edges[0]), ax.output(edges[1]), n - int(counts.sum()),
                                  counted.strategy)
    # Floats: each axis as histogram's, [lo, hi) in the engine and [hi, top] closed into the last bin.
    bounds = [_float_hi(a.dtype, nb, float(e[0]), float(e[-1]), f"the {name} range [{e[0]}, {e[-1]}]")
              for a, nb, e, name in zip((ax, ay), (bx, by), edges, "xy")]
    main = [("channel", c, nb, lo, hi, False) for c, nb, (lo, hi, _) in zip((cx, cy), (bx, by), bounds)]
    counted = view.count2d([tuple(main)], strategy)
    grid = np.array(counted.histograms[0].slots, dtype=np.int64)
    counts = grid[:bx, :by].copy()
    closing = [top is not None for _, _, top in bounds]
    if any(closing) and n:
        # The x bins' slot bx + 1 (and y's by + 1) counts the samples at or above hi: exactly the
        # closing ones where nothing lies above top (always, on a range taken from the data).
        chans = chans or extremes()
        beyond = [close and chans[c].max_value > top for close, c, (_, _, top) in zip(closing, (cx, cy), bounds)]

        # Where samples lie above top, the closing range is `above` less `above` of a count that
        # bins that axis as one bin over [lo, top] (slot 2: above top); one bin over [hi, top]
        # can be too narrow for float32 (top = 0).
        def recount(x_closed, y_closed):
            axes = [main[a] if not closed else ("channel", (cx, cy)[a], 1, bounds[a][0], _next_float_up(bounds[a][2]),
                                                   False)
                    for a, closed in enumerate((x_closed, y_closed))]
            return np.array(view.count2d([tuple(axes)], strategy).histograms[0].slots, dtype=np.int64)

        rx = recount(True, False) if beyond[0] else None
        ry = recount(False, True) if beyond[1] else None
        if closing[0]:
            counts[bx - 1, :] += grid[bx + 1, :by] - (rx[2, :by] if beyond[0] else 0)
        if closing[1]:
            counts[:, by - 1] += grid[:bx, by + 1] - (ry[:bx, 2] if beyond[1] else 0)
        if closing[0] and closing[1]:
            # Both closing ranges: (x >= hi, y >= hi) less (x above top, y >= hi) less (x >= hi,
            # y above top) plus (both above top).
            corner = grid[bx + 1, by + 1]
            if beyond[0]:
                corner -= rx[2, by + 1]
            if beyond[1]:
                corner -= ry[bx + 1, 2]
            if beyond[0] and beyond[1]:
                corner += recount(True, True)[2, 2]
            counts[bx - 1, by - 1] += corner
    return _Histogram2DResult(ax.output(counts), ax.output(edges[0]), ax.output(edges[1]), n - int(counts.sum()),
                              counted.strategy)


class _Histogram2DResult(tuple):
    """``(counts, x_edges, y_edges)`` as numpy.histogram2d returns them; ``outside`` counts
    the pairs in no bin."""

    def __new__(cls, counts, xedges, yedges, outside, strategy):
        self = super().__new__(cls, (counts, xedges, yedges))
        self.outside, self.strategy = int(outside), strategy
        return self


# ---- what runs where --------------------------------------------------------------------------

def strategies():
    """The engine's strategies: ``[{"name", "gpu", "available"}]``, ``auto`` first. A GPU
    strategy is available when this process sees a CUDA device."""
    gpu = _native.cuda_device_count() > 0 and _native.built_with_cuda()
    return [{"name": name, "gpu": is_gpu, "available": gpu or not is_gpu} for name, is_gpu in _native.strategies()]


def device(index=0):
    """Where counting runs: ``{"backend": "cuda" | "cpu", "notice", "built_with_cuda",
    "cuda_devices"}``, and for a GPU its ``name``, ``compute_capability``,
    ``multiprocessors``, ``memory_bytes`` and ``l2_bytes``."""
    return _native.engine_info(index)
