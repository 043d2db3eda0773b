"""Device input: PyTorch and CuPy CUDA tensors counted on the device, in the caller's
non-default stream, equal to torch.bincount; CPU tensors of PyTorch. Skipped where there is no
CUDA device, PyTorch or CuPy (here on CI; run by scripts/h200_python.sh on the GPU machine)."""
import numpy as np
import pytest

import histoscope

try:
    import torch
except ImportError:
    torch = None
try:
    import cupy
except ImportError:
    cupy = None

ENGINE_GPU = histoscope.device()["backend"] == "cuda"
TORCH_CUDA = torch is not None and torch.cuda.is_available()
try:
    CUPY_CUDA = cupy is not None and cupy.cuda.runtime.getDeviceCount() > 0
except Exception:  # a CuPy without a usable driver
    CUPY_CUDA = False

needs_torch_cuda = pytest.mark.skipif(not (TORCH_CUDA and ENGINE_GPU), reason="needs PyTorch with CUDA and a GPU engine")
needs_cupy = pytest.mark.skipif(not (CUPY_CUDA and TORCH_CUDA and ENGINE_GPU),
                                reason="needs CuPy and PyTorch with CUDA and a GPU engine")


def skewed(n, values, dtype, generator, hot=0.6):
    x = torch.randint(0, values, (n,), device="cuda", dtype=dtype, generator=generator)
    mask = torch.rand(n, device="cuda", generator=generator) < hot
    x[mask] = int(torch.randint(0, values, (1,), generator=generator, device="cuda"))
    return x


@pytest.fixture
def gen(rng):
    g = torch.Generator(device="cuda")
    g.manual_seed(int(rng.integers(0, 2**31)))
    return g


@pytest.mark.gpu
@needs_torch_cuda
@pytest.mark.parametrize("values", [64, 256, 50_257, 1 << 20])
@pytest.mark.parametrize("dtype", ["uint8", "int16", "int32", "int64"])
def test_torch_cuda_in_a_non_default_stream_equals_torch_bincount(gen, dtype, values):
    dtype = getattr(torch, dtype)
    if dtype == torch.uint8 and values > 256 or dtype == torch.int16 and values > 32768:
        pytest.skip("values beyond the type")
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        x = skewed(3_000_001, values, dtype, gen)
        ours = histoscope.bincount(x, minlength=values)
        ref = torch.bincount(x, minlength=values)
        assert ours.device == x.device and ours.dtype == torch.int64
        assert torch.equal(ours, ref)
        for view in (x[::2], x[1::5], x.flip(0)):
            assert torch.equal(histoscope.bincount(view, minlength=values), torch.bincount(view, minlength=values))
        no_minlength = histoscope.bincount(x)
        assert torch.equal(no_minlength, torch.bincount(x))
    stream.synchronize()


@pytest.mark.gpu
@needs_torch_cuda
def test_the_count_waits_for_the_callers_stream():
    n = 1 << 24
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        x = torch.zeros(n, dtype=torch.int32, device="cuda")
        torch.cuda._sleep(200_000_000)  # the stream is busy a while before it writes the keys
        x.fill_(5)
        ours = histoscope.bincount(x, minlength=8)
        assert ours.tolist() == [0, 0, 0, 0, 0, n, 0, 0]
    # A stream given explicitly, from a thread whose current stream is the default one.
    other = torch.cuda.Stream()
    with torch.cuda.stream(other):
        y = torch.zeros(n, dtype=torch.int32, device="cuda")
        torch.cuda._sleep(200_000_000)
        y.fill_(3)
    ours = histoscope.bincount(y, minlength=4, stream=other)
    assert ours.tolist() == [0, 0, 0, n]
    torch.cuda.synchronize()
    # The default stream (handle 0), which the engine's own non-blocking stream would not wait for.
    z = torch.zeros(n, dtype=torch.int32, device="cuda")
    torch.cuda._sleep(200_000_000)
    z.fill_(6)
    assert histoscope.bincount(z, minlength=8).tolist() == [0, 0, 0, 0, 0, 0, n, 0]
    # image_histogram and histogram (whose range comes from the library's own min and max) in a
    # stream given explicitly, written after a busy while.
    with torch.cuda.stream(other):
        img = torch.zeros((512, 512, 3), dtype=torch.uint8, device="cuda")
        torch.cuda._sleep(200_000_000)
        img.fill_(9)
        f = torch.zeros(n, dtype=torch.float32, device="cuda")
        torch.cuda._sleep(200_000_000)
        f.fill_(2.5)
    got = histoscope.image_histogram(img, stream=other)
    assert [int(c[9]) for c in got.counts] == [512 * 512] * 3
    counts, edges = histoscope.histogram(f, 4, stream=other)
    assert int(counts.sum()) == n and float(edges[0]) <= 2.5 <= float(edges[-1])
    torch.cuda.synchronize()


@pytest.mark.gpu
@needs_torch_cuda
def test_float_samples_on_edges_on_the_device(gen):
    # The closed last bin is added to the device counts in the caller's stream: from `above`
    # (nothing beyond the range) and from a one-bin count (samples beyond it).
    other = torch.cuda.Stream()
    with torch.cuda.stream(other):
        x = torch.arange(11.0, device="cuda")
        ours = histoscope.histogram(x, 10)
        keys = torch.randint(-10, 111, (300_001,), device="cuda", generator=gen).float()
        beyond = histoscope.histogram(keys, 20, (0, 100))
    other.synchronize()
    np.testing.assert_array_equal(ours.counts.cpu().numpy(), np.histogram(np.arange(11.0), 10)[0])
    host = keys.cpu().numpy()
    np.testing.assert_array_equal(beyond.counts.cpu().numpy(), np.histogram(host, 20, (0, 100))[0])
    assert (beyond.below, beyond.above) == (int((host < 0).sum()), int((host > 100).sum()))


@pytest.mark.gpu
@needs_torch_cuda
def test_torch_cuda_histograms_and_images(gen, rng):
    x = torch.randn(1_000_003, device="cuda", generator=gen)
    ours = histoscope.histogram(x, 100, (-3.0, 3.0))
    host = histoscope.histogram(x.cpu().numpy(), 100, (-3.0, 3.0), strategy="cpu")
    assert ours.counts.device == x.device
    np.testing.assert_array_equal(ours.counts.cpu().numpy(), host.counts)
    assert (ours.below, ours.above, ours.nan) == (host.below, host.above, host.nan)
    keys = torch.randint(-50, 700, (500_001,), device="cuda", dtype=torch.int32, generator=gen)
    counts, edges = histoscope.histogram(keys, 37)
    ref = np.histogram(keys.cpu().numpy(), 37)
    np.testing.assert_array_equal(counts.cpu().numpy(), ref[0])
    np.testing.assert_array_equal(edges.cpu().numpy(), ref[1])
    img = torch.randint(0, 256, (2160, 3840, 3), device="cuda", dtype=torch.uint8, generator=gen)
    got = histoscope.image_histogram(img)
    host_img = img.cpu().numpy()
    for c in range(3):
        np.testing.assert_array_equal(got.channels[c].counts, np.bincount(host_img[..., c].ravel(), minlength=256))
    crop = img[100:900, 200:1800]
    got = histoscope.image_histogram(crop, channels=[2])
    np.testing.assert_array_equal(got.counts[0], np.bincount(host_img[100:900, 200:1800, 2].ravel(), minlength=256))
    wave = histoscope.waveform(img[:64, :80])
    np.testing.assert_array_equal(wave.counts, histoscope.waveform(host_img[:64, :80], strategy="cpu").counts)


@pytest.mark.gpu
@needs_torch_cuda
def test_negative_cuda_values_raise():
    x = torch.tensor([0, 3, -1], device="cuda")
    with pytest.raises(ValueError, match="negative"):
        histoscope.bincount(x)


@pytest.mark.gpu
@needs_cupy
@pytest.mark.parametrize("values", [64, 50_257])
def test_cupy_in_a_non_default_stream_equals_torch_bincount(values):
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        x = cupy.random.randint(0, values, 2_000_003, dtype=cupy.int32)
        x[::3] = values // 2
        ours = histoscope.bincount(x, minlength=values)
        assert isinstance(ours, cupy.ndarray) and ours.dtype == cupy.int64
        assert bool((ours == cupy.bincount(x, minlength=values)).all())
        ref = torch.bincount(torch.as_tensor(x, device="cuda"), minlength=values)
    stream.synchronize()
    assert torch.equal(torch.as_tensor(ours, device="cuda"), ref)


def test_torch_cpu_tensors(rng):
    if torch is None:
        pytest.skip("PyTorch is not installed")
    x = torch.from_numpy(rng.integers(0, 1000, 100_000))
    ours = histoscope.bincount(x)
    assert isinstance(ours, torch.Tensor) and ours.device.type == "cpu"
    assert torch.equal(ours, torch.bincount(x))
    assert torch.equal(histoscope.bincount(x[::3]), torch.bincount(x[::3]))


@pytest.mark.gpu
@needs_torch_cuda
def test_device_counts_stay_on_the_device_and_match_numpy(gen):
    """The engine writes device input's counts into a tensor on the device: every length rule,
    the zero tail past an 8-bit type's values, the error cases, and no result aliasing another."""
    small = torch.randint(0, 200, (100_003,), device="cuda", dtype=torch.uint8, generator=gen)
    host = small.cpu().numpy()
    for minlength in (0, 17, 256, 1000):
        got = histoscope.bincount(small, minlength=minlength)
        assert got.device == small.device
        np.testing.assert_array_equal(got.cpu().numpy(), np.bincount(host, minlength=minlength))
    wide = torch.randint(0, 70_000, (300_007,), device="cuda", dtype=torch.int32, generator=gen)
    for minlength in (0, 300, 70_000, 100_000):
        got = histoscope.bincount(wide, minlength=minlength)
        np.testing.assert_array_equal(got.cpu().numpy(), np.bincount(wide.cpu().numpy(), minlength=minlength))
    first, second = histoscope.bincount(wide), histoscope.bincount(wide[: 1000])
    assert int(first.sum()) == wide.numel() and int(second.sum()) == 1000
    for bad in (torch.tensor([1, -3], device="cuda", dtype=torch.int8),
                torch.tensor([1, -3], device="cuda", dtype=torch.int16),
                torch.tensor([1, -3], device="cuda", dtype=torch.int64)):
        with pytest.raises(ValueError, match="negative"):
            histoscope.bincount(bad)
    with pytest.raises(ValueError, match="2\\*\\*32"):
        histoscope.bincount(torch.tensor([1, 2**33], device="cuda", dtype=torch.int64))
    f = torch.rand(200_001, device="cuda", generator=gen) * 10 - 1
    got = histoscope.histogram(f, 64, (0.0, 8.0))
    ref = histoscope.histogram(f.cpu().numpy(), 64, (0.0, 8.0), strategy="cpu")
    assert got.counts.device == f.device
    np.testing.assert_array_equal(got.counts.cpu().numpy(), ref.counts)
    assert (got.below, got.above, got.nan) == (ref.below, ref.above, ref.nan)


@pytest.mark.gpu
@needs_torch_cuda
def test_device_counts_past_one_pass_of_bins(gen):
    """Values and minlength beyond the engine's 2**24 bins of one pass: counts written at each
    pass's offset, zeros to minlength, and a small 16-bit result not held in a 65,536-count buffer."""
    x = torch.randint(0, 1000, (200_003,), device="cuda", dtype=torch.int32, generator=gen)
    x[::1000] = 2**24 + 9  # a second pass
    for minlength in (0, 2**24 + 100):
        got = histoscope.bincount(x, minlength=minlength)
        np.testing.assert_array_equal(got.cpu().numpy(), np.bincount(x.cpu().numpy(), minlength=minlength))
    y = torch.randint(0, 1000, (100_001,), device="cuda", dtype=torch.int64, generator=gen)
    got = histoscope.bincount(y, minlength=2**24 + 1)  # the high words' bin must not show at 2**24
    np.testing.assert_array_equal(got.cpu().numpy(), np.bincount(y.cpu().numpy(), minlength=2**24 + 1))
    small = torch.randint(0, 10, (5_000,), device="cuda", dtype=torch.int16, generator=gen)
    got = histoscope.bincount(small)
    assert got.numel() == 10 and got.untyped_storage().nbytes() == 10 * 8
    assert torch.equal(got, torch.bincount(small))


@pytest.mark.gpu
@needs_torch_cuda
@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_contiguous_keys_come_back_in_the_tensor_the_engine_wrote(gen, dtype):
    """bincount's common call (contiguous int32/int64 CUDA keys, the current stream, minlength
    covering the values): the result is the whole tensor the engine wrote, every bin written
    over the memory the allocator hands back (poisoned first), equal to the general path's."""
    dtype = getattr(torch, dtype)
    values = 5000
    x = skewed(1_000_003, values, dtype, gen)
    poison = torch.full((values,), -7, dtype=torch.int64, device="cuda")
    del poison  # the caching allocator hands this block to the next result of its size
    got = histoscope.bincount(x, minlength=values)
    assert got.numel() == values and got.storage_offset() == 0 and got.untyped_storage().nbytes() == values * 8
    assert torch.equal(got, torch.bincount(x, minlength=values))
    general = histoscope.bincount(x, minlength=values, stream=torch.cuda.current_stream())
    assert torch.equal(general, got)
    top = int(x.max())
    assert torch.equal(histoscope.bincount(x), torch.bincount(x)) and histoscope.bincount(x).numel() == top + 1


@pytest.mark.gpu
@needs_torch_cuda
def test_a_begun_key_count_left_behind_does_not_stop_the_next(gen):
    """A two-step key count abandoned between its steps (an allocation that raised), or begun
    twice: the engine drains it, and the next bincount is exact."""
    from histoscope import _native
    x = skewed(300_001, 1000, torch.int32, gen)
    stream = torch.cuda.current_stream().cuda_stream or 1
    _native.count_keys_begin(x.data_ptr(), 0, "i32", x.numel(), 1, 0, 1, 1000, "auto", stream)
    _native.count_keys_abandon(0)
    assert torch.equal(histoscope.bincount(x, minlength=1000), torch.bincount(x, minlength=1000))
    _native.count_keys_begin(x.data_ptr(), 0, "i32", x.numel(), 1, 0, 1, 1000, "auto", stream)
    with pytest.raises(ValueError, match="finish"):
        _native.count_keys_begin(x.data_ptr(), 0, "i32", x.numel(), 1, 0, 1, 1000, "auto", stream)
    _native.count_keys_abandon(0)
    assert torch.equal(histoscope.bincount(x, minlength=1000), torch.bincount(x, minlength=1000))
    out = torch.full((1000,), -3, dtype=torch.int64, device="cuda")
    _native.count_keys_begin(x.data_ptr(), 0, "i32", x.numel(), 1, 0, 1, 1000, "auto", stream)
    top, below, above, high_above, high_max, strategy = _native.count_keys_end(0, out.data_ptr())
    assert torch.equal(out, torch.bincount(x, minlength=1000))
    assert (top, below, above, high_above) == (int(x.max()), 0, 0, 0)


@pytest.mark.gpu
@needs_torch_cuda
@pytest.mark.parametrize("shape", [(480, 640), (480, 640, 1), (1080, 1920, 3), (333, 517, 4)])
def test_image_defaults_on_cuda_equal_the_general_path(gen, shape):
    """image_histogram's defaults on a contiguous uint8 CUDA tensor (the path with nothing made on
    the way) give what the general path gives, field for field, in a non-default stream too."""
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        img = torch.randint(0, 256, shape, device="cuda", dtype=torch.uint8, generator=gen)
        img[: shape[0] // 3] //= 3  # darker rows: not flat
        fast = histoscope.image_histogram(img)
        general = histoscope.image_histogram(img, stream=torch.cuda.current_stream())
        host = img.cpu().numpy()
    planes = host.reshape(-1, 1 if len(shape) == 2 else shape[2])
    assert (fast.lo, fast.hi, fast.bins, fast.binning, fast.type) == (general.lo, general.hi, general.bins,
                                                                     general.binning, general.type)
    np.testing.assert_array_equal(fast.edges, general.edges)
    assert len(fast.channels) == planes.shape[1]
    for c, (a, b) in enumerate(zip(fast.channels, general.channels)):
        np.testing.assert_array_equal(a.counts, np.bincount(planes[:, c], minlength=256))
        np.testing.assert_array_equal(a.counts, b.counts)
        assert (a.channel, a.below, a.above, a.nan) == (b.channel, b.below, b.above, b.nan) == (c, 0, 0, 0)
        assert (a.min, a.max) == (b.min, b.max) == (int(planes[:, c].min()), int(planes[:, c].max()))
        assert a.statistics == b.statistics


@pytest.mark.gpu
@needs_torch_cuda
def test_shapes_counted_in_turn_stay_exact(gen):
    # A training loop counts token ids and expert ids in turn: `auto` keeps a skew estimate per
    # shape (bins beyond shared memory sample it), and none may steer another shape's count wrong.
    keys = {
        "tokens int32": skewed(3_000_000, 150_000, torch.int32, gen),
        "tokens int64": skewed(2_000_000, 200_003, torch.int64, gen, hot=0.3),
        "uniform int32": torch.randint(0, 1 << 20, (1_000_000,), device="cuda", dtype=torch.int32, generator=gen),
        "experts int64": skewed(4_000_000, 64, torch.int64, gen),
        "wide int32": torch.randint(0, 400_000, (500_000,), device="cuda", dtype=torch.int32, generator=gen),
    }
    expected = {name: torch.bincount(x) for name, x in keys.items()}
    for _ in range(12):  # past the engine's reuse of an estimate (8 calls) and its four shapes
        for name, x in keys.items():
            got = histoscope.bincount(x)
            assert torch.equal(got, expected[name]), name


@pytest.mark.gpu
@needs_torch_cuda
@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("minlength", [1, 10, 64, 255])
def test_small_minlength_is_the_whole_result_or_a_second_pass(gen, dtype, minlength):
    """A device's first pass counts minlength bins (the experts of a router): values under it
    come back in the whole tensor the engine wrote (poisoned first); a value at or past it takes
    the exact second pass."""
    dtype = getattr(torch, dtype)
    x = skewed(700_001, minlength, dtype, gen)
    poison = torch.full((minlength,), -7, dtype=torch.int64, device="cuda")
    del poison
    got = histoscope.bincount(x, minlength=minlength)
    assert got.numel() == minlength and got.storage_offset() == 0 and got.untyped_storage().nbytes() == minlength * 8
    assert torch.equal(got, torch.bincount(x, minlength=minlength))
    x[::997] = minlength + 300  # past the first pass's bins
    got = histoscope.bincount(x, minlength=minlength)
    assert got.numel() == minlength + 301
    assert torch.equal(got, torch.bincount(x, minlength=minlength))
