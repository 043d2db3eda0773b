"""histoscope.bincount against numpy.bincount on fresh random data: every integer width, the
usual distributions, views the engine reads in place, and NumPy's errors."""
import numpy as np
import pytest

import histoscope
from conftest import sample

WIDTHS = [np.bool_, np.uint8, np.int8, np.uint16, np.int16, np.int32, np.uint32, np.int64, np.uint64]
KINDS = ["uniform", "zipf", "hot", "one", "extremes"]


def reference(x, **kwargs):
    """numpy.bincount; uint64 (which NumPy refuses to cast to intp) as int64, its values small."""
    return np.bincount(x.astype(np.int64) if x.dtype == np.uint64 else x, **kwargs)


def top_of(dtype):
    if dtype == np.bool_:
        return 1
    info = np.iinfo(dtype)
    return int(min(info.max, 300_000))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", WIDTHS, ids=lambda d: np.dtype(d).name)
def test_equals_numpy(rng, dtype, kind):
    x = sample(rng, kind, int(rng.integers(1, 50_000)), 0, top_of(dtype), dtype)
    ours = histoscope.bincount(x)
    assert ours.dtype == np.int64
    np.testing.assert_array_equal(ours, reference(x))


@pytest.mark.parametrize("dtype", WIDTHS, ids=lambda d: np.dtype(d).name)
def test_minlength_empty_and_one_element(rng, dtype):
    minlength = int(rng.integers(1, 5000))
    x = sample(rng, "uniform", 1000, 0, top_of(dtype), dtype)
    np.testing.assert_array_equal(histoscope.bincount(x, minlength=minlength), reference(x, minlength=minlength))
    empty = np.zeros(0, dtype)
    np.testing.assert_array_equal(histoscope.bincount(empty), reference(empty))
    np.testing.assert_array_equal(histoscope.bincount(empty, minlength=minlength), reference(empty, minlength=minlength))
    one = x[:1]
    np.testing.assert_array_equal(histoscope.bincount(one), reference(one))


VIEWS = {
    "step-2": lambda a: a[::2],
    "step-7": lambda a: a[1::7],
    "reversed": lambda a: a[::-1],
    "reversed-step-3": lambda a: a[::-3],
    "column-of-2d": lambda a: a[: a.size // 4 * 4].reshape(-1, 4)[:, 1],
    "unaligned-bytes": lambda a: np.frombuffer(b"\x00" + a.tobytes(), dtype=a.dtype, offset=1) if a.itemsize > 1 else a,
}


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32, np.uint32, np.int64], ids=lambda d: np.dtype(d).name)
def test_non_contiguous_views(rng, dtype, view):
    base = sample(rng, "zipf", 40_001, 0, top_of(dtype), dtype)
    x = VIEWS[view](base)
    np.testing.assert_array_equal(histoscope.bincount(x), reference(x))


def test_values_beyond_one_request_of_bins(rng):
    # More than 2^24 bins: counted in windows of 2^24 bins.
    top = (1 << 24) + int(rng.integers(1, 5000))
    x = np.concatenate([rng.integers(0, top, 10_000), [top]]).astype(np.int32)
    np.testing.assert_array_equal(histoscope.bincount(x), reference(x))


def test_a_second_pass_when_minlength_is_short(rng):
    x = rng.integers(0, 100_000, 20_000).astype(np.uint32)
    np.testing.assert_array_equal(histoscope.bincount(x, minlength=10), np.bincount(x, minlength=10))


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64], ids=lambda d: np.dtype(d).name)
def test_negative_values_raise_as_numpy(rng, dtype):
    x = sample(rng, "uniform", 1000, 0, 100, dtype)
    x[int(rng.integers(0, 1000))] = -1
    with pytest.raises(ValueError):
        reference(x)
    with pytest.raises(ValueError, match="negative"):
        histoscope.bincount(x)


def test_bad_input():
    with pytest.raises(TypeError):
        histoscope.bincount(np.array([0.5, 1.0]))
    with pytest.raises(ValueError, match="1-D"):
        histoscope.bincount(np.zeros((2, 2), np.int32))
    with pytest.raises(ValueError, match="minlength"):
        histoscope.bincount(np.array([1, 2]), minlength=-1)
    with pytest.raises(ValueError, match="2\\*\\*32"):
        histoscope.bincount(np.array([1, 1 << 40], np.int64))
    with pytest.raises(ValueError, match="unknown strategy"):
        histoscope.bincount(np.array([1, 2], np.int32), strategy="fastest")
    if histoscope.device()["backend"] != "cuda":
        with pytest.raises(RuntimeError, match="needs a CUDA device"):
            histoscope.bincount(np.array([1, 2], np.int32), strategy="shared")


@pytest.mark.parametrize("strategy", [s["name"] for s in histoscope.strategies() if s["available"]])
def test_every_available_strategy(rng, strategy):
    x = sample(rng, "zipf", 30_000, 0, 255, np.uint8)
    np.testing.assert_array_equal(histoscope.bincount(x, strategy=strategy), reference(x))


@pytest.mark.parametrize("dtype", ["int32", "uint32", "int64"])
def test_minlength_beyond_one_pass_of_bins(rng, dtype):
    """minlength above the engine's 2**24 bins of one pass: every count, then zeros to minlength."""
    x = rng.integers(0, 1000, 10_001).astype(dtype)
    x[7] = 2**24 + 3 if dtype != "int32" else 5  # one value beyond a pass, where the type holds it
    for minlength in (2**24 + 1, 2**24 + 17):
        got = histoscope.bincount(x, minlength=minlength)
        np.testing.assert_array_equal(got, np.bincount(x, minlength=minlength))


@pytest.mark.parametrize("minlength", [2**32 + 1, 2**40, 2**63, 2**70])
def test_a_minlength_beyond_2_32_is_refused_before_any_allocation(rng, minlength):
    # NumPy tries to allocate the 8 TiB (MemoryError, or OverflowError past int64); histoscope
    # counts values up to 2**32 - 1, so a longer result is refused, with the argument named.
    x = rng.integers(0, 1000, int(rng.integers(1, 5000))).astype(np.int32)
    for keys in (x, x[:0], x.astype(np.uint8), x.astype(np.int64)):
        with pytest.raises(ValueError, match="minlength must be at most 2\\*\\*32"):
            histoscope.bincount(keys, minlength=minlength)


def test_minlength_of_the_wrong_type_names_the_argument(rng):
    x = rng.integers(0, 300, 1000)
    weights = rng.random(x.size)
    # numpy.bincount(x, weights): histoscope's second argument is minlength, and it says so.
    with pytest.raises(TypeError, match="minlength must be an integer, not ndarray .*takes no weights"):
        histoscope.bincount(x, weights)
    for bad in (None, 2.5, "3"):
        with pytest.raises(TypeError, match="minlength must be an integer"):
            histoscope.bincount(x, minlength=bad)
    # NumPy integers and 0-d arrays are integers, as to numpy.bincount.
    n = int(rng.integers(300, 5000))
    for minlength in (np.int64(n), np.uint16(n), np.array(n)):
        got = histoscope.bincount(x, minlength=minlength)
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, np.bincount(x, minlength=n))


def test_an_empty_list_counts_as_numpy_bincount_counts_it(rng):
    # numpy.bincount([]) is an empty int64 array: the list has no values, so no type to refuse.
    minlength = int(rng.integers(1, 1000))
    for empty in ([], ()):
        for kwargs, n in (({}, 0), ({"minlength": minlength}, minlength)):
            got = histoscope.bincount(empty, **kwargs)
            ref = np.bincount(empty, **kwargs)
            assert got.dtype == ref.dtype == np.int64
            np.testing.assert_array_equal(got, ref)
            assert got.shape == (n,)
    # An empty float array is still refused, as NumPy refuses it.
    with pytest.raises(TypeError):
        histoscope.bincount(np.zeros(0))
