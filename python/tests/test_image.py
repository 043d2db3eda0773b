"""image_histogram, the scopes and histogram2d against NumPy oracles on fresh random images, and
image_histogram's statistics against the CLI's own records of the same array (one definition)."""
import json
import math
import os
import subprocess

import numpy as np
import pytest

import histoscope
from conftest import sample


def numpy_statistics(values):
    """The statistics of docs/SCHEMA.md for one value per bin, from the samples themselves."""
    v = np.sort(values.astype(np.float64).ravel())
    n = v.size

    def rank(p):  # inverted CDF: the smallest x with at least p % of the samples <= x
        return v[max(0, math.ceil(p / 100 * n) - 1)]

    _, counts = np.unique(v, return_counts=True)
    p = counts / n
    return {"count": n, "min": v[0], "max": v[-1], "mean": v.mean(), "std": v.std(), "std_sample": v.std(ddof=1),
            "median": rank(50), "percentiles": {str(q): rank(q) for q in (1, 5, 25, 75, 95)},
            "entropy_bits": float(-(p * np.log2(p)).sum())}


@pytest.mark.parametrize("kind", ["uniform", "zipf", "hot", "one"])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16], ids=lambda d: np.dtype(d).name)
def test_per_channel_counts_and_exact_statistics(rng, dtype, kind):
    top = 255 if dtype == np.uint8 else 4095
    h, w = (int(v) for v in rng.integers(1, 90, 2))
    img = sample(rng, kind, h * w * 3, 0, top, dtype).reshape(h, w, 3)
    got = histoscope.image_histogram(img, bins=0 if dtype == np.uint16 else 256, range=(0, top + 1))
    assert got.binning == "identity" and [c.channel for c in got.channels] == [0, 1, 2]
    for c in range(3):
        ch = got.channels[c]
        np.testing.assert_array_equal(ch.counts, np.bincount(img[..., c].ravel(), minlength=top + 1))
        ref = numpy_statistics(img[..., c])
        s = ch.statistics
        assert s["exact"] and s["count"] == ref["count"]
        for key in ("min", "max", "median"):
            assert s[key] == ref[key], key
        assert s["percentiles"] == ref["percentiles"]
        for key in ("mean", "std", "std_sample", "entropy_bits"):
            assert s[key] == pytest.approx(ref[key], rel=1e-12, abs=1e-12), key


def test_channel_order_views_and_selection(rng):
    img = rng.integers(0, 256, (40, 30, 4), dtype=np.uint8)
    for view, expect in [(img[..., ::-1], img[..., ::-1]), (img[5:30, 2:20], img[5:30, 2:20]),
                         (img[::-1, ::2], img[::-1, ::2]), (img[..., 1], img[..., 1:2])]:
        got = histoscope.image_histogram(view)
        assert len(got.channels) == expect.shape[2]
        for c, ch in enumerate(got.channels):
            assert ch.channel == c
            np.testing.assert_array_equal(ch.counts, np.bincount(expect[..., c].ravel(), minlength=256))
    got = histoscope.image_histogram(img, channels=[3, 1])
    assert [c.channel for c in got.channels] == [1, 3]
    np.testing.assert_array_equal(got.counts[1], np.bincount(img[..., 3].ravel(), minlength=256))
    with pytest.raises(ValueError, match="outside"):
        histoscope.image_histogram(img, channels=[4])
    with pytest.raises(ValueError, match="1 to 4 channels"):
        histoscope.image_histogram(np.zeros((4, 4, 5), np.uint8))


def test_float_images_count_nan_and_infinities_apart(rng):
    img = rng.random((50, 40, 3)).astype(np.float32) * 3 - 1
    img.reshape(-1)[rng.choice(img.size, 12, replace=False)] = [np.nan] * 4 + [np.inf] * 4 + [-np.inf] * 4
    got = histoscope.image_histogram(img, bins=64)
    finite = img[np.isfinite(img)]
    # The CLI's rule: [0, 1) widened to hold every finite sample.
    assert got.lo == min(0.0, float(finite.min()))
    assert got.hi == float(np.nextafter(np.float32(finite.max()), np.float32(np.inf)))
    for c, ch in enumerate(got.channels):
        v = img[..., c]
        assert ch.nan == int(np.isnan(v).sum()) and ch.above == int(np.isposinf(v).sum())
        assert ch.below == int(np.isneginf(v).sum())
        assert ch.counts.sum() == np.isfinite(v).sum()


def cli():
    from histoscope import dask as hd
    try:
        return hd.cli_path()
    except RuntimeError:
        return None


@pytest.mark.skipif(cli() is None, reason="histoscope-cli is not built (engine-only build)")
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32], ids=lambda d: np.dtype(d).name)
def test_statistics_are_the_clis(rng, tmp_path, dtype):
    if dtype == np.float32:
        img = (rng.standard_normal((37, 23, 3)) * 2).astype(np.float32)
    else:
        img = sample(rng, "zipf", 37 * 23 * 3, 0, int(np.iinfo(dtype).max), dtype).reshape(37, 23, 3)
    path = tmp_path / "image.npy"
    np.save(path, img)
    got = histoscope.image_histogram(img)
    # The CLI bins each float channel over its own data range (docs/SCHEMA.md, "The counted
    # range"); image_histogram's default is one range for the channels, so the CLI gets that one.
    shared = ["--range", f"{got.lo!r}:{got.hi!r}"] if dtype == np.float32 else []
    run = subprocess.run([cli(), "batch", str(path), "--format", "jsonl", *shared], capture_output=True, text=True,
                         check=True)
    records = [json.loads(line) for line in run.stdout.splitlines()]
    histograms = [r for r in records if r["record"] == "histogram"]
    assert len(histograms) == 3
    for record, ch in zip(histograms, got.channels):
        assert record["counts"] == ch.counts.tolist()
        assert (record["bins"], record["lo"], record["hi"], record["binning"]) == (got.bins, got.lo, got.hi, got.binning)
        assert record["statistics"] == json.loads(json.dumps(ch.statistics))


def luma_cb_cr(img, standard):
    r, g, b = (img[..., i].astype(np.int64) for i in range(3))
    if standard == "bt601":
        y = (19595 * r + 38470 * g + 7471 * b + 32768) >> 16
        cb = 128 + ((-11058 * r - 21710 * g + 32768 * b) >> 16)
        cr = 128 + ((32768 * r - 27439 * g - 5329 * b) >> 16)
    else:
        y = (13933 * r + 46871 * g + 4732 * b + 32768) >> 16
        cb = 128 + ((-7509 * r - 25259 * g + 32768 * b) >> 16)
        cr = 128 + ((32768 * r - 29763 * g - 3005 * b) >> 16)
    return y, cb, cr


@pytest.mark.parametrize("standard", ["bt601", "bt709"])
def test_scopes_equal_numpy(rng, standard):
    h, w = (int(v) for v in rng.integers(2, 70, 2))
    img = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    img[rng.random((h, w)) < 0.3] = rng.integers(0, 256, 3)  # a hot colour
    columns = np.broadcast_to(np.arange(w), (h, w))
    for c, p in enumerate(histoscope.parade(img)):
        ref = np.zeros((w, 256), np.int64)
        np.add.at(ref, (columns.ravel(), img[..., c].ravel()), 1)
        assert p.channel == c and p.outside_x == (0, 0, 0)
        np.testing.assert_array_equal(p.counts, ref)
    y, cb, cr = luma_cb_cr(img, standard)
    wave = histoscope.waveform(img, standard=standard)
    ref = np.zeros((w, 256), np.int64)
    np.add.at(ref, (columns.ravel(), y.ravel()), 1)
    np.testing.assert_array_equal(wave.counts, ref)
    vs = histoscope.vectorscope(img, standard=standard)
    ref = np.zeros((256, 256), np.int64)
    np.add.at(ref, (cb.ravel(), cr.ravel()), 1)
    np.testing.assert_array_equal(vs.counts, ref)
    # BGR storage: rgb says where R, G and B are; the columns keep their order in a reversed view.
    bgr = np.ascontiguousarray(img[..., ::-1])
    np.testing.assert_array_equal(histoscope.vectorscope(bgr, standard=standard, rgb=(2, 1, 0)).counts, vs.counts)
    np.testing.assert_array_equal(histoscope.waveform(img[:, ::-1], standard=standard).counts, wave.counts[::-1])


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32, np.int64], ids=lambda d: np.dtype(d).name)
def test_histogram2d_integers_equal_numpy(rng, dtype):
    n = int(rng.integers(1, 20_000))
    x = sample(rng, "zipf", n, -100 if dtype != np.uint8 else 0, 200, dtype)
    y = sample(rng, "uniform", n, 0, 250, dtype)
    for bins, r in [(10, None), ((7, 13), None), (5, ((0.5, 120.25), (-3, 300)))]:
        counts, xe, ye = histoscope.histogram2d(x, y, bins, r)
        ref, rx, ry = np.histogram2d(x, y, bins, r)
        np.testing.assert_array_equal(xe, rx)
        np.testing.assert_array_equal(ye, ry)
        np.testing.assert_array_equal(counts, ref)
    pairs = np.stack([x, y], axis=1)  # columns of one array: counted in place
    np.testing.assert_array_equal(histoscope.histogram2d(pairs[:, 0], pairs[:, 1], 9)[0],
                                  np.histogram2d(pairs[:, 0], pairs[:, 1], 9)[0])


def test_histogram2d_floats_at_bin_centres_equal_numpy(rng):
    centres = np.arange(8) + 0.5
    x = rng.choice(centres, 5000).astype(np.float32)
    y = rng.choice(centres * 2, 5000).astype(np.float32)
    x[0], y[0] = np.nan, 1.0
    result = histoscope.histogram2d(x, y, 8, ((0, 8), (0, 16)))
    ref, _, _ = np.histogram2d(x, y, 8, ((0, 8), (0, 16)))
    np.testing.assert_array_equal(result[0], ref)
    assert result.outside == 1


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
                                   np.uint64, np.float16, np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_every_type_against_numpy(rng, dtype):
    lo, hi = {"b": (0, 1), "u": (0, 255), "i": (-100, 27 if dtype == np.int8 else 155), "f": (-100, 155)}[np.dtype(dtype).kind]
    img = sample(rng, "zipf", 23 * 19 * 2, lo, hi, np.int64).reshape(23, 19, 2).astype(dtype)
    bins = int(rng.integers(1, 40))
    got = histoscope.image_histogram(img, bins=bins, range=(lo, hi + 1))
    for c in range(2):
        v = img[..., c].astype(np.float64).ravel()
        ref = np.histogram(v, bins, (lo, hi + 1))[0] if np.dtype(dtype).kind == "f" else None
        if ref is None:  # integers: bin = floor((v - lo) * bins / (hi + 1 - lo)), exact
            ref = np.bincount(((v.astype(np.int64) - lo) * bins) // (hi + 1 - lo), minlength=bins)
        np.testing.assert_array_equal(got.channels[c].counts, ref)
        assert got.channels[c].statistics["count"] == v.size


def test_empty_and_single_pixel_images(rng):
    empty = np.zeros((0, 7, 3), np.uint8)
    got = histoscope.image_histogram(empty)
    assert got.counts.shape == (3, 256) and got.counts.sum() == 0
    assert got.channels[0].min is None and got.channels[0].statistics["count"] == 0
    pixel = rng.integers(0, 256, (1, 1, 3), dtype=np.uint8)
    got = histoscope.image_histogram(pixel)
    for c in range(3):
        s = got.channels[c].statistics
        assert s["median"] == s["min"] == s["max"] == pixel[0, 0, c] and s["percentiles"]["1"] == pixel[0, 0, c]
    assert histoscope.vectorscope(pixel).counts.sum() == 1
    np.testing.assert_array_equal(histoscope.parade(pixel)[1].counts[0], np.eye(256, dtype=np.int64)[pixel[0, 0, 1]])


def test_histogram2d_empty_and_one_pair(rng):
    for n in (0, 1):
        x = rng.integers(0, 50, n).astype(np.int32)
        y = rng.integers(0, 50, n).astype(np.int32)
        counts, xe, ye = histoscope.histogram2d(x, y, 4)
        ref, rx, ry = np.histogram2d(x, y, 4)
        np.testing.assert_array_equal(counts, ref)
        np.testing.assert_array_equal(xe, rx)
        np.testing.assert_array_equal(ye, ry)


def test_a_result_pickles_with_its_values_and_its_counts_are_read_only(rng):
    import pickle
    img = rng.integers(0, 256, (37, 41, 3), dtype=np.uint8)
    got = histoscope.image_histogram(img)
    with pytest.raises(ValueError):
        got.channels[0].counts[0] = 5  # the statistics are computed from these very counts
    back = pickle.loads(pickle.dumps(got))
    for c in range(3):
        expected = np.bincount(img[..., c].ravel(), minlength=256)
        np.testing.assert_array_equal(back.channels[c].counts, expected)
        np.testing.assert_array_equal(back.counts[c], expected)
        assert back.channels[c].statistics == got.channels[c].statistics
        assert back.channels[c].statistics["mean"] == pytest.approx(img[..., c].mean(), rel=1e-12)
    np.testing.assert_array_equal(back.edges, np.linspace(0, 256, 257))
    # A result pickled before anything was read from it: its channels, strategy and reason are
    # made on the way out, so nothing it would have shown is lost.
    fresh = histoscope.image_histogram(img[..., ::-1])
    back = pickle.loads(pickle.dumps(fresh))
    assert back.strategy == got.strategy and back.strategy in [s["name"] for s in histoscope.strategies()]
    assert back.reason and back.reason == fresh.reason
    assert set(back.timings) == set(got.timings)
    assert [c.channel for c in back.channels] == [0, 1, 2]
    for c in range(3):
        np.testing.assert_array_equal(back.channels[c].counts, np.bincount(img[..., 2 - c].ravel(), minlength=256))
    # The state a result pickled before session 12 carries (everything made in the call, under
    # public names) still loads.
    old_state = {"channels": back.channels, "lo": 0.0, "hi": 256.0, "bins": 256, "binning": "identity",
                 "type": "u8", "strategy": "cpu", "reason": "an older reason", "_counted": None,
                 "_counts": None, "_edges": None, "_timings": {"tallyMs": 1.0}}
    older = histoscope.ImageHistogram.__new__(histoscope.ImageHistogram)
    older.__setstate__(old_state)
    assert (older.strategy, older.reason, older.timings) == ("cpu", "an older reason", {"tallyMs": 1.0})
    np.testing.assert_array_equal(older.counts, back.counts)


def test_bit_depth_sets_the_clipping_points_and_is_checked_at_once(rng):
    img = rng.integers(0, 4096, (64, 80), dtype=np.uint16)
    img[:3] = 4095
    got = histoscope.image_histogram(img, bins=0, bit_depth=12)  # one bin per value: the clipping is exact
    s = got.channels[0].statistics
    assert s["clipped_high"] == pytest.approx(np.count_nonzero(img == 4095) / img.size, rel=1e-12)
    assert s["clipped_low"] == pytest.approx(np.count_nonzero(img == 0) / img.size, rel=1e-12)
    with pytest.raises(TypeError, match="bit_depth"):
        histoscope.image_histogram(img, bit_depth=12.0)
    with pytest.raises(ValueError, match="bit_depth"):
        histoscope.image_histogram(img, bit_depth=0)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_histogram2d_floats_on_edges_land_as_numpys(rng, dtype):
    # Samples exactly on the edges (quarters on quarter edges), the last one included: NumPy puts
    # an inner edge's sample in the bin above it and the last edge's in the last bin.
    n = 6000
    x = (rng.integers(0, 11, n) * 0.25).astype(dtype)
    y = (rng.integers(-8, 9, n) * 0.5).astype(dtype)
    x[:2], y[:2] = (0, 2.5), (-4, 4)  # the data's extremes are the default range's ends
    for bins, r in ((10, None), ((10, 16), None), ((5, 8), ((0, 2.5), (-4, 4))),
                    # data beyond the last edge on x, on y, on both: the closing range counted apart
                    (10, ((0, 2.0), (-4, 4))), (8, ((0, 2.5), (-4, 3))), ((4, 6), ((0, 1.75), (-2, 2.5)))):
        result = histoscope.histogram2d(x, y, bins, r)
        ref, rx, ry = np.histogram2d(x, y, bins, r)
        np.testing.assert_array_equal(result[0], ref, err_msg=f"bins {bins}, range {r}")
        np.testing.assert_array_equal(result[1], rx)
        np.testing.assert_array_equal(result[2], ry)
        assert result.outside == n - int(ref.sum())


def test_histogram2d_last_edge_at_zero_with_data_above(rng):
    # The closing range [hi, top] of a last edge at 0 is one float32 wide: it is taken as `above`
    # less the samples above top (a one-bin count of [hi, top] was refused as too narrow).
    n = 3000
    x = (rng.integers(-8, 5, n) * 0.25).astype(np.float32)  # up to 1.0, beyond the last edge 0
    y = (rng.integers(-4, 9, n) * 0.5).astype(np.float32)
    x[:3], y[:3] = (0, np.inf, np.nan), (0, 0, 1)
    for bins, r in ((4, ((-2, 0), (-2, 4))), ((4, 3), ((-2, 0), (-2, 0))), (2, ((0, 1), (-2, 0)))):
        result = histoscope.histogram2d(x, y, bins, r)
        ref, _, _ = np.histogram2d(x, y, bins, r)
        np.testing.assert_array_equal(result[0], ref, err_msg=f"bins {bins}, range {r}")
        assert result.outside == n - int(ref.sum())
    got = histoscope.histogram(x, 8, (-2, 0))
    np.testing.assert_array_equal(got[0], np.histogram(x, 8, (-2, 0))[0])


def test_histogram2d_float64_default_range_has_numpys_edges(rng):
    # Counted as float32, but the edges come from the float64 data's own extremes, as
    # histogram's do (docs/SCHEMA.md): they were float32-rounded extremes' edges before.
    bins = int(rng.integers(2, 30))
    lo, width = rng.uniform(-10, 10), rng.uniform(0.01, 3)
    k = rng.integers(0, bins, 5000)
    x = lo + width * (k + 0.5)  # bin centres: no float32 rounding moves them
    x[:2] = lo, lo + width * bins  # the range's ends
    y = rng.integers(2**24, 2**30, x.size).astype(np.int32)  # integers float32 cannot all hold, beside floats
    result = histoscope.histogram2d(x, y, (bins, 7))
    ref, rx, ry = np.histogram2d(x, y, (bins, 7))
    np.testing.assert_array_equal(result[1], rx)
    np.testing.assert_array_equal(result[2], ry)
    np.testing.assert_array_equal(result[0].sum(axis=1), ref.sum(axis=1))  # x's bins: NumPy's counts
    assert result.outside == 0 and result[0].dtype == np.int64
    # NaN in the data: NumPy's error and words.
    x[int(rng.integers(0, x.size))] = np.nan
    for a, b in ((x, y), (x.astype(np.float32), y.astype(np.float32))):
        with pytest.raises(ValueError, match="autodetected range of \\[nan, nan\\] is not finite"):
            histoscope.histogram2d(a, b)


def test_histogram2d_arguments_are_checked_and_named(rng):
    x, y = rng.integers(0, 50, 100), rng.integers(0, 50, 100)
    for r in ([(0, np.inf), None], [(np.nan, 1), (0, 1)]):
        with pytest.raises(ValueError, match="supplied range of \\[.*\\] is not finite"):
            np.histogram2d(x, y, 5, r)
        with pytest.raises(ValueError, match="supplied range of \\[.*\\] is not finite"):
            histoscope.histogram2d(x, y, 5, r)
    with pytest.raises(ValueError, match="one entry per dimension"):
        histoscope.histogram2d(x, y, 5, [(0, 10)])
    with pytest.raises(TypeError, match="range must be a pair"):
        histoscope.histogram2d(x, y, 5, (0, 10))
    for bins in ((3,), (3, 4, 5)):
        with pytest.raises(TypeError, match="`bins` must be an integer or a pair of them"):
            histoscope.histogram2d(x, y, bins)
    # Edges beyond int64 on integer data (an OverflowError before): NumPy's counts.
    for r in ([(-1e300, 1e300), (0, 50)], [(0, 50), (-1e19, 2.0**64)]):
        counts, xe, ye = histoscope.histogram2d(x, y, 5, r)
        ref, rx, ry = np.histogram2d(x, y, 5, r)
        np.testing.assert_array_equal(counts, ref)
        np.testing.assert_array_equal(xe, rx)


def test_float_ranges_too_narrow_for_float32_bins_raise(rng):
    # bins / (hi - lo) beyond float32: every sample landed in the first bin, silently.
    tiny = (rng.integers(0, 4, 200) * 1e-45).astype(np.float32)
    with pytest.raises(ValueError, match="too narrow for 4 bins"):
        histoscope.histogram2d(tiny, tiny, 4)
    img = tiny.reshape(10, 20)
    with pytest.raises(ValueError, match="too narrow for 256 bins"):
        histoscope.image_histogram(img, range=(0, 1e-44))
    got = histoscope.image_histogram(img, bins=2, range=(0, 1e-30))  # a range float32 can scale
    assert got.counts.sum() == img.size


def test_channels_given_as_numpy_integers(rng):
    img = rng.integers(0, 256, (31, 17, 4), dtype=np.uint8)
    c = int(rng.integers(0, 4))
    for channels in (np.int64(c), np.uint8(c), np.array(c), np.array([c]), [np.int32(c)]):
        got = histoscope.image_histogram(img, channels=channels)
        assert [ch.channel for ch in got.channels] == [c]
        np.testing.assert_array_equal(got.counts[0], np.bincount(img[..., c].ravel(), minlength=256))
        scope = histoscope.parade(img, channels)
        assert [h.channel for h in scope] == [c]
        assert scope[0].counts.sum() == img.shape[0] * img.shape[1]
    with pytest.raises(TypeError, match="channels must be a channel index or a sequence of them, not float"):
        histoscope.image_histogram(img, channels=1.0)
    with pytest.raises(TypeError, match="channels must be integer channel indices, not str"):
        histoscope.image_histogram(img, channels="rgb")


def test_scope_arguments_are_checked_and_named(rng):
    img = rng.integers(0, 256, (9, 11, 3), dtype=np.uint8)
    for fn, name in ((histoscope.parade, "column_bins"), (histoscope.waveform, "column_bins"),
                     (histoscope.vectorscope, "bins")):
        for bad in (-1, 2**40):
            with pytest.raises(ValueError, match=f"{name} must be 0 \\(the default\\) to 16777216, not {bad}"):
                fn(img, **{name: bad})
        with pytest.raises(TypeError, match=f"{name} must be an integer, not float"):
            fn(img, **{name: 1.5})
    for fn in (histoscope.waveform, histoscope.vectorscope):
        with pytest.raises(ValueError, match="rgb must be three channel indices \\(R, G, B\\), not 2"):
            fn(img, rgb=(0, 1))
        with pytest.raises(TypeError, match="standard must be"):
            fn(img, standard=None)
    # Valid arguments still count every pixel.
    assert histoscope.waveform(img, rgb=np.array([2, 1, 0]), column_bins=np.int64(4)).counts.sum() == 99
