"""What the module takes and how: DLPack (NumPy's own __dlpack__), the buffer protocol, views
in place, the GIL released while the engine counts, one engine per thread, and the errors."""
import array
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import histoscope
from histoscope import _native
from histoscope._arrays import flat_view, resolve


class DLPackOnly:
    """An array known only by its __dlpack__ (NumPy's own) and __dlpack_device__."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, stream=None):
        return self._array.__dlpack__()

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


@pytest.mark.skipif(not hasattr(np.ndarray, "__dlpack__"), reason="NumPy without __dlpack__")
def test_dlpack_input_is_counted_in_place(rng):
    x = rng.integers(0, 5000, 100_000).astype(np.int32)
    wrapped = DLPackOnly(x)
    arr = resolve(wrapped)
    assert arr.pointer == x.__array_interface__["data"][0]  # the same memory, no copy
    np.testing.assert_array_equal(histoscope.bincount(wrapped), np.bincount(x))
    counts, edges = histoscope.histogram(DLPackOnly(x[::3]), 20)
    ref = np.histogram(x[::3], 20)
    np.testing.assert_array_equal(counts, ref[0])
    np.testing.assert_array_equal(edges, ref[1])
    img = rng.integers(0, 256, (31, 17, 3), dtype=np.uint8)
    got = histoscope.image_histogram(DLPackOnly(img))
    for c in range(3):
        np.testing.assert_array_equal(got.channels[c].counts, np.bincount(img[..., c].ravel(), minlength=256))


def test_buffer_protocol_inputs(rng):
    values = rng.integers(0, 200, 1000)
    np.testing.assert_array_equal(histoscope.bincount(array.array("i", values)), np.bincount(values))
    raw = bytes(values.astype(np.uint8))
    np.testing.assert_array_equal(histoscope.bincount(raw), np.bincount(values))
    np.testing.assert_array_equal(histoscope.bincount(memoryview(raw)[10:500]), np.bincount(values[10:500]))
    np.testing.assert_array_equal(histoscope.bincount(list(values)), np.bincount(values))


def test_views_are_read_in_place(rng):
    base = rng.integers(0, 100, (64, 80)).astype(np.uint16)
    for view in (base, base[5:40, 7:60], base[::2], base[:, 3], base[::-1, ::-1], base.T):
        arr = resolve(view)
        v = flat_view(arr, "u16")
        assert v is not None, "read in place"
        np.testing.assert_array_equal(histoscope.histogram(view, 9)[0], np.histogram(view, 9)[0])
    assert flat_view(resolve(base[::2, ::2]), "u16") is None  # two strides: copied once, then counted
    np.testing.assert_array_equal(histoscope.histogram(base[::2, ::2], 9)[0], np.histogram(base[::2, ::2], 9)[0])


def test_byte_swapped_input(rng):
    x = rng.integers(0, 3000, 5000).astype(">i4")
    np.testing.assert_array_equal(histoscope.bincount(x), np.bincount(x))


def test_the_gil_is_released_while_counting():
    # With a switch interval of an hour, the other thread runs only when this one gives the GIL
    # away of its own accord: inside the engine's count, or never.
    x = np.ones(1 << 22, np.uint8)
    started, finished = threading.Event(), threading.Event()

    def other():
        started.wait()
        finished.set()

    interval = sys.getswitchinterval()
    sys.setswitchinterval(3600)
    try:
        t = threading.Thread(target=other)
        t.start()
        started.set()
        calls = 0
        while not finished.is_set() and calls < 500:
            _native.count(x.__array_interface__["data"][0], -1, "u8", x.size, 1, 0, 1, [(True, 256, 0.0, 256.0, True)])
            calls += 1
        ran_during_a_count = finished.is_set()
    finally:
        sys.setswitchinterval(interval)
    t.join()
    assert ran_during_a_count, f"no other thread ran during {calls} counts"


def test_threads_count_at_once_each_on_its_own_engine(rng):
    arrays = [rng.integers(0, 1 + 1000 * i, 200_000).astype(np.int32) for i in range(8)]

    def work(a):
        return [histoscope.bincount(a) for _ in range(3)]

    with ThreadPoolExecutor(4) as pool:
        for a, results in zip(arrays, pool.map(work, arrays)):
            for r in results:
                np.testing.assert_array_equal(r, np.bincount(a))


def test_engine_errors_carry_the_engines_message():
    x = np.arange(100, dtype=np.uint16)
    with pytest.raises(ValueError, match="does not count u16"):
        histoscope.bincount(x, strategy="per-lane")
    with pytest.raises(ValueError, match="bin count"):
        _native.count(x.__array_interface__["data"][0], -1, "u16", 100, 1, 0, 1, [(True, 0, 0.0, 1.0, False)])
    with pytest.raises(ValueError, match="row stride"):
        _native.count(x.__array_interface__["data"][0], -1, "u16", 10, 10, 2, 1, [(True, 1, 0.0, 1.0, True)])


def test_two_step_key_counts_end_only_what_began():
    """count_keys_begin/_end (bincount's device keys, allocated while the GPU counts): an end
    with no begin is refused, an abandon with none does nothing, and without a GPU engine the
    begin says so."""
    with pytest.raises(ValueError, match="no count_keys_begin"):
        _native.count_keys_end(0, 8)
    _native.count_keys_abandon(0)
    if histoscope.device()["backend"] == "cuda":
        return
    with pytest.raises(RuntimeError, match="GPU engine"):
        _native.count_keys_begin(8, 0, "i32", 4, 1, 0, 1, 256, "auto", 0)
    with pytest.raises(ValueError, match="no count_keys_begin"):
        _native.count_keys_end(0, 8)


def test_strategies_and_device():
    names = [s["name"] for s in histoscope.strategies()]
    assert names[0] == "auto" and "cpu" in names and "cub" in names
    info = histoscope.device()
    assert info["backend"] in ("cpu", "cuda") and isinstance(info["notice"], str)
    assert info["built_with_cuda"] in (True, False)
    if info["backend"] == "cpu":
        assert all(not s["available"] for s in histoscope.strategies() if s["gpu"])


def test_docstrings_and_stubs():
    for name in ("bincount", "histogram", "histogram2d", "image_histogram", "parade", "waveform", "vectorscope",
                 "strategies", "device"):
        assert getattr(histoscope, name).__doc__, name
    import os
    folder = os.path.dirname(histoscope.__file__)
    for stub in ("__init__.pyi", "dask.pyi", "py.typed"):
        assert os.path.exists(os.path.join(folder, stub)), stub


def test_a_strategy_that_is_not_a_name_is_a_clear_type_error(rng):
    # The binding's own error listed its whole signature and the call's pointers.
    x = rng.integers(0, 100, 1000).astype(np.int32)
    img = rng.integers(0, 256, (8, 8, 3), dtype=np.uint8)
    calls = [lambda s: histoscope.bincount(x, strategy=s), lambda s: histoscope.histogram(x, strategy=s),
             lambda s: histoscope.histogram2d(x, x, strategy=s), lambda s: histoscope.image_histogram(img, strategy=s),
             lambda s: histoscope.parade(img, strategy=s), lambda s: histoscope.waveform(img, strategy=s),
             lambda s: histoscope.vectorscope(img, strategy=s)]
    for call in calls:
        for bad in (None, 0):
            with pytest.raises(TypeError, match="strategy must be a strategy's name, a str"):
                call(bad)
        call("cpu")
