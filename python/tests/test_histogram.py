"""histoscope.histogram against numpy.histogram: integer data exactly (counts and edges, NumPy's
closed last bin, any range), float data by the engine's documented rule (docs/SCHEMA.md,
"Python"), and what falls outside the bins reported, never dropped."""
import numpy as np
import pytest

import histoscope
from conftest import sample

INTEGERS = [np.bool_, np.uint8, np.int8, np.uint16, np.int16, np.int32, np.uint32, np.int64, np.uint64]
KINDS = ["uniform", "zipf", "hot", "one", "extremes"]


def interval(dtype, wide):
    if dtype == np.bool_:
        return 0, 1
    info = np.iinfo(dtype)
    if wide:
        return int(max(info.min, -2**31)), int(min(info.max, 2**32 - 1 if info.min == 0 else 2**31 - 1))
    return int(max(info.min, -5000)), int(min(info.max, 5000))


def numpy_outside(x, lo, hi):
    v = x.astype(np.float64)
    return int((v < lo).sum()), int((v > hi).sum())


def check(x, bins, range=None):
    ours = histoscope.histogram(x, bins, range)
    counts, edges = np.histogram(x, bins, range)
    np.testing.assert_array_equal(ours.edges, edges)
    assert ours.edges.dtype == edges.dtype
    np.testing.assert_array_equal(ours.counts, counts)
    below, above = numpy_outside(x, edges[0], edges[-1])
    assert (ours.below, ours.above, ours.nan) == (below, above, 0)
    assert int(ours.counts.sum()) + ours.outside == x.size


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", INTEGERS, ids=lambda d: np.dtype(d).name)
def test_integers_equal_numpy(rng, dtype, kind):
    lo, hi = interval(dtype, wide=False)
    x = sample(rng, kind, int(rng.integers(1, 20_000)), lo, hi, dtype)
    for bins in (1, 10, int(rng.integers(2, 300)), 1000):
        check(x, bins)


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.uint64], ids=lambda d: np.dtype(d).name)
def test_integers_over_a_span_wider_than_2_24(rng, dtype):
    # Bins of many values: fine bins of k integers, refined where NumPy's edges cut one.
    lo, hi = interval(dtype, wide=True)
    x = sample(rng, "uniform", 5000, lo, hi, dtype)
    for bins in (1, 10, 7, 333):
        check(x, bins)


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32, np.uint32, np.int64], ids=lambda d: np.dtype(d).name)
def test_integers_with_explicit_ranges(rng, dtype):
    lo, hi = interval(dtype, wide=False)
    x = sample(rng, "uniform", 10_000, lo, hi, dtype)
    a, b = sorted(rng.uniform(lo, hi, 2))
    for r in [(a, b), (float(lo), float(hi)), (lo - 1000.5, hi + 3.25), (0.25, 0.75), (int(a), int(a)), (-1e12, 1e12)]:
        for bins in (1, 9, 64):
            check(x, bins, r)


def test_empty_and_one_element(rng):
    for dtype in (np.uint8, np.int32, np.float32, np.float64):
        empty = np.zeros(0, dtype)
        check(empty, 10) if dtype not in (np.float32, np.float64) else None
        ours, edges = histoscope.histogram(empty, 10)
        np.testing.assert_array_equal(ours, np.histogram(empty, 10)[0])
        np.testing.assert_array_equal(edges, np.histogram(empty, 10)[1])
        one = np.array([rng.integers(0, 100)], dtype)
        ours, edges = histoscope.histogram(one, 5)
        np.testing.assert_array_equal(ours, np.histogram(one, 5)[0])
        np.testing.assert_array_equal(edges, np.histogram(one, 5)[1])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_floats_away_from_edges_equal_numpy(rng, dtype):
    # Samples at bin centres: no float rounding can move them, so the counts are NumPy's.
    bins = int(rng.integers(2, 50))
    lo = float(rng.integers(-100, 100))
    width = float(2 ** int(rng.integers(-3, 3)))
    centres = lo + width * (np.arange(bins) + 0.5)
    x = rng.choice(centres, 20_000).astype(dtype)
    x[:2] = [lo, lo + width * bins]  # the range's ends: NumPy's first and (closed) last bin
    ours = histoscope.histogram(x, bins)
    counts, edges = np.histogram(x, bins)
    np.testing.assert_array_equal(ours.counts, counts)
    np.testing.assert_array_equal(ours.edges, edges)
    assert ours.outside == 0


def engine_rule(x, bins, lo, hi):
    """The documented float rule (docs/SCHEMA.md, "Python"), in NumPy float32 arithmetic: top is
    the last float32 at or below hi (float64 samples: hi rounded to nearest); hi' the largest float32 at or below top whose scale
    bins / (hi' - lo) in float32 is at least bins / (hi - lo); bin = floor((v - lo) * scale)
    for v in [lo, hi'), the last bin clamped, and [hi', top] in the last bin as well; below lo,
    above top and NaN counted apart."""
    lo, hi = float(lo), float(hi)  # NumPy's edges, in float64 (float16 edges of float16 data too)
    v = x.astype(np.float32)
    flo = np.float32(lo)
    top = np.float32(hi)  # float64 samples are rounded to nearest, and so is their last edge
    if float(top) > hi and x.dtype != np.float64:
        top = np.nextafter(top, np.float32(-np.inf))
    fhi = top
    while float(np.float32(bins) / (fhi - flo)) < bins / (hi - lo):
        fhi = np.nextafter(fhi, np.float32(-np.inf))
    scale = np.float32(bins) / (fhi - flo)
    finite = ~np.isnan(v)
    inside = finite & (v >= flo) & (v < fhi)
    idx = np.minimum(((v[inside] - flo) * scale).astype(np.int64), bins - 1)
    counts = np.bincount(idx, minlength=bins)
    counts[-1] += int((finite & (v >= fhi) & (v <= top)).sum())
    return counts, int((finite & (v < flo)).sum()), int((finite & (v > top)).sum()), int((~finite).sum())


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_samples_on_edges_land_as_numpys(rng, dtype):
    # Whole numbers on whole-number edges, common in float data: NumPy's bins exactly, the
    # closed last bin included, whether the range's scale rounds up or down in float32.
    x = np.arange(11.0).astype(dtype)
    np.testing.assert_array_equal(histoscope.histogram(x, 10).counts, np.histogram(x, 10)[0])
    # (-5000, 1): hi' lies thousands of float32 steps below the last edge.
    for lo, width, bins in [(0, 5, 20), (-50, 10, 10), (0, 1, 64), (3, 7, 9), (-8, 25, 4), (0, 3, 33), (-100, 25, 8),
                            (-5000, 1667, 3)]:
        hi = lo + width * bins
        v = rng.integers(lo - 5, hi + 6, 20_000).astype(dtype)
        v[:3] = [lo, hi, hi]  # both ends present
        ours = histoscope.histogram(v, bins, (lo, hi))
        np.testing.assert_array_equal(ours.counts, np.histogram(v, bins, (lo, hi))[0])
        assert (ours.below, ours.above, ours.nan) == (int((v < lo).sum()), int((v > hi).sum()), 0)
        inside = v[(v >= lo) & (v <= hi)]  # the default range: the data's own extremes
        np.testing.assert_array_equal(histoscope.histogram(inside, bins).counts, np.histogram(inside, bins)[0])


def test_float64_default_range_keeps_every_sample(rng):
    # The data's maximum is NumPy's last edge; rounded to float32 it must stay in the last bin,
    # also where float32(max) lies above max.
    np.testing.assert_array_equal(histoscope.histogram(np.array([0, .05, .1]), 10).counts,
                                  np.histogram(np.array([0, .05, .1]), 10)[0])
    for _ in range(50):
        x = rng.standard_normal(int(rng.integers(2, 2000))) * 10 ** rng.uniform(-3, 3)
        ours = histoscope.histogram(x, int(rng.integers(1, 100)), strict=True)
        assert ours.counts.sum() == x.size and ours.counts[-1] >= 1 and ours.counts[0] >= 1


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_floats_follow_the_documented_rule(rng, dtype):
    x = (rng.standard_normal(50_000) * 10 ** rng.uniform(-2, 3)).astype(dtype)
    for bins, r in [(10, None), (int(rng.integers(2, 500)), None), (33, (-1.0, 2.5))]:
        ours = histoscope.histogram(x, bins, r)
        edges = np.histogram_bin_edges(x, bins, r)
        counts, below, above, nan = engine_rule(x, bins, edges[0], edges[-1])
        np.testing.assert_array_equal(ours.edges, edges)
        np.testing.assert_array_equal(ours.counts, counts)
        assert (ours.below, ours.above, ours.nan) == (below, above, nan)
        # NumPy's own counts differ only by samples within a float32 rounding of an inner edge
        # (float16 samples, as coarse as NumPy's float16 edges, sit on them far more often).
        if dtype != np.float16:
            assert np.abs(ours.counts - np.histogram(x, bins, r)[0]).sum() <= 2 * max(1, x.size // 10_000)


def test_nan_and_infinities_are_counted_apart(rng):
    x = rng.random(10_000).astype(np.float32)
    special = rng.choice(x.size, 30, replace=False)
    x[special[:10]] = np.nan
    x[special[10:20]] = np.inf
    x[special[20:]] = -np.inf
    ours = histoscope.histogram(x, 16, (0.0, 1.0))
    finite = x[np.isfinite(x)]
    np.testing.assert_array_equal(ours.counts, np.histogram(finite, 16, (0.0, 1.0))[0])
    assert (ours.below, ours.above, ours.nan) == (10, 10, 10)
    with pytest.raises(ValueError, match="strict"):
        histoscope.histogram(x, 16, (0.0, 1.0), strict=True)
    # NumPy refuses to find a range from data with NaN or an infinity: so does histoscope.
    for bad in (np.nan, np.inf):
        y = x.copy()
        y[~np.isfinite(y)] = 0.5
        y[0] = bad
        with pytest.raises(ValueError, match="autodetected range"):
            np.histogram(y)
        with pytest.raises(ValueError, match="autodetected range"):
            histoscope.histogram(y)


@pytest.mark.parametrize("view", ["2d", "transposed", "step", "reversed-2d", "broadcast"])
def test_any_shape_and_view(rng, view):
    base = rng.integers(0, 1000, (120, 70)).astype(np.int32)
    x = {"2d": base, "transposed": base.T, "step": base[::3, 1::2], "reversed-2d": base[::-1, ::-2],
         "broadcast": np.broadcast_to(base[0], (5, 70))}[view]
    check(x, 17)


def test_bad_arguments():
    x = np.arange(10)
    with pytest.raises(ValueError, match="positive"):
        histoscope.histogram(x, 0)
    with pytest.raises(TypeError, match="integer"):
        histoscope.histogram(x, [0, 1, 2])
    with pytest.raises(ValueError, match="max must be larger than min"):
        histoscope.histogram(x, 5, (3, 1))
    with pytest.raises(ValueError, match="not finite"):
        histoscope.histogram(x, 5, (0, np.inf))
    with pytest.raises(TypeError):
        histoscope.histogram(np.array(["a", "b"]))


class PassCounter:
    """Counts the engine's 1-D counts (histoscope._native.count) while in a with block, and
    stops the call that would exceed `limit` (a runaway number of passes fails at once)."""

    def __init__(self, limit):
        from histoscope import _native
        self.native, self.limit, self.passes = _native, limit, 0

    def __enter__(self):
        self.original = self.native.count

        def count(*args, **kwargs):
            self.passes += 1
            assert self.passes <= self.limit, f"more than {self.limit} passes over the data"
            return self.original(*args, **kwargs)

        self.native.count = count
        return self

    def __exit__(self, *exc):
        self.native.count = self.original


@pytest.mark.parametrize("case", ["sparse-full-span", "dense-corner", "fractional-range"])
def test_integers_over_a_wide_span_in_many_bins_take_few_passes(rng, case):
    # A span wider than 2^24 values is counted in fine bins of k values, and each fine bin that
    # one of NumPy's bin edges cuts is refined by a pass over the data: 10^5 bins once took 10^5
    # passes (minutes for a thousand samples). Only the cut bins that hold samples need one, and
    # neighbouring ones share a pass.
    if case == "sparse-full-span":
        x = rng.integers(-2**31, 2**31, 2000, dtype=np.int64).astype(np.int32)
        bins, r = 200_000, None
    elif case == "dense-corner":  # most samples in [0, 2^20), one near 2^32: cut bins side by side
        x = np.append(rng.integers(0, 2**20, 200_000), 2**32 - 1 - int(rng.integers(0, 100))).astype(np.uint32)
        bins, r = 100_000, None
    else:
        x = rng.integers(-2**40, 2**40, 5000, dtype=np.int64) % (2**32) - 2**31
        bins, r = int(rng.integers(50_000, 150_000)), (-2**31 - 0.75, 2**31 + 0.5)
    with PassCounter(limit=300) as counter:
        ours = histoscope.histogram(x, bins, r)
    counts, edges = np.histogram(x, bins, r)
    np.testing.assert_array_equal(ours.edges, edges)
    np.testing.assert_array_equal(ours.counts, counts)
    assert int(ours.counts.sum()) + ours.outside == x.size
    assert counter.passes >= 2


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32, np.uint32, np.int64], ids=lambda d: np.dtype(d).name)
def test_integers_with_ranges_beyond_int64(rng, dtype):
    # NumPy's edges of such a range do not convert to int64 (an OverflowError before): every
    # sample lies within 32 bits, so the counts are NumPy's.
    lo, hi = interval(dtype, wide=False)
    x = sample(rng, "uniform", int(rng.integers(1, 10_000)), lo, hi, dtype)
    for r in [(-1e300, 1e300), (-1e20, float(hi) / 2), (float(lo), 2.0**70), (-2.0**63 - 4096, 2.0**64)]:
        for bins in (1, 10, int(rng.integers(2, 64))):
            check(x, bins, r)


def test_range_must_be_a_pair():
    x = np.arange(10)
    with pytest.raises(ValueError, match="range must be a pair \\(lo, hi\\), not 3 values"):
        histoscope.histogram(x, 5, (0, 1, 2))
    with pytest.raises(TypeError, match="range must be a pair \\(lo, hi\\), not int"):
        histoscope.histogram(x, 5, 3)
    with pytest.raises(ValueError, match="range must be a pair"):
        histoscope.image_histogram(np.zeros((2, 2), np.uint8), range=(0, 1, 2))


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_a_range_too_narrow_for_float32_bins_raises(rng, dtype):
    # bins / (hi - lo) beyond float32: the engine's product would be inf or NaN and every sample
    # land in one bin (float64 [1e-50, 3e-50] counted [n, 0, 0, 0] where NumPy spreads them).
    scale = 1e-50 if dtype == np.float64 else 1e-45
    x = (rng.integers(0, 4, 1000) * scale).astype(dtype)
    x[:2] = 0, 3 * scale
    # NumPy 2.5 refuses the float32 subnormal range itself, in its edges, with its own words.
    narrow = "too narrow for 4 bins in float32|Too many bins for data range"
    with pytest.raises(ValueError, match=narrow):
        histoscope.histogram(x, 4)
    with pytest.raises(ValueError, match="too narrow|Too many bins for data range"):
        histoscope.histogram(np.abs(rng.standard_normal(100)).astype(dtype), 10, (0.0, 1e-44))
    # A range float32 holds is counted as before (samples at bin centres: NumPy's counts).
    centres = (rng.integers(0, 4, 1000) + 0.5).astype(dtype)
    ours = histoscope.histogram(centres, 4, (0, 4))
    np.testing.assert_array_equal(ours.counts, np.histogram(centres, 4, (0, 4))[0])


def test_a_float_range_beyond_float32_names_the_range(rng):
    x = rng.standard_normal(100)
    with pytest.raises(ValueError, match="range \\[.*\\] is beyond float32's range"):
        histoscope.histogram(x, 10, (-1e300, 1e300))
    with pytest.raises(ValueError, match="beyond float32's range"):
        histoscope.histogram(np.append(x, 1e300), 10)  # the default range: the data's max
