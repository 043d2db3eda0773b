"""Shared fixtures of the Python tests: a fresh random generator per test (its seed printed, and
replayed with HISTOSCOPE_SEED=N), generators of the data shapes every function is checked on, and
a PNG writer so that the photo tests need no imaging library."""
import os
import struct
import zlib

import numpy as np
import pytest


def pytest_configure(config):
    config.addinivalue_line("markers", "dask: starts a distributed LocalCluster (CTest's python_dask)")
    config.addinivalue_line("markers", "gpu: needs a CUDA device with PyTorch or CuPy (skipped without)")
    # numpy.histogram's own notice when given bool data (histoscope converts the same way, silently).
    config.addinivalue_line("filterwarnings", "ignore:Converting input from bool:RuntimeWarning")
    config.addinivalue_line("filterwarnings", "ignore:make_current is deprecated:DeprecationWarning")


@pytest.fixture
def rng(request):
    seed = int(os.environ.get("HISTOSCOPE_SEED", np.random.SeedSequence().entropy % (2**32)))
    print(f"{request.node.name}: HISTOSCOPE_SEED={seed}")
    return np.random.default_rng(seed)


def zipf_keys(rng, n, values, s=1.1):
    """n keys over [0, values) with a bounded Zipf law (rank r has weight r^-s), ranks shuffled."""
    ranks = np.arange(1, values + 1, dtype=np.float64)
    cdf = np.cumsum(ranks ** -s)
    cdf /= cdf[-1]
    keys = np.minimum(np.searchsorted(cdf, rng.random(n)), values - 1)
    return rng.permutation(values)[keys]


def sample(rng, kind, n, lo, hi, dtype):
    """Integers in [lo, hi] of `dtype`: uniform, zipf, hot (90 % one value), one (a single
    value repeated), or the extremes of the interval only."""
    if kind == "uniform":
        out = rng.integers(lo, hi, n, endpoint=True, dtype=np.int64)
    elif kind == "zipf":
        out = lo + zipf_keys(rng, n, min(hi - lo + 1, 1 << 16)) % (hi - lo + 1)
    elif kind == "hot":
        out = rng.integers(lo, hi, n, endpoint=True, dtype=np.int64)
        out[rng.random(n) < 0.9] = rng.integers(lo, hi, endpoint=True)
    elif kind == "one":
        out = np.full(n, rng.integers(lo, hi, endpoint=True), dtype=np.int64)
    elif kind == "extremes":
        out = np.where(rng.random(n) < 0.5, lo, hi)
    else:
        raise ValueError(kind)
    return out.astype(dtype)


def write_png(path, pixels):
    """Writes an H x W (gray) or H x W x 3 (RGB) uint8 or uint16 array as a PNG."""
    pixels = np.ascontiguousarray(pixels)
    height, width = pixels.shape[:2]
    colour = 2 if pixels.ndim == 3 else 0
    depth = 16 if pixels.dtype == np.uint16 else 8
    rows = pixels.astype(">u2" if depth == 16 else np.uint8).reshape(height, -1).view(np.uint8)
    raw = b"".join(b"\x00" + rows[y].tobytes() for y in range(height))

    def chunk(tag, data):
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 1)) + chunk(b"IEND", b""))
