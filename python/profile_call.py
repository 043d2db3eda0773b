#!/usr/bin/env python3
"""Where the wall time of a call on a device tensor goes (issue 19's goal: within 20 us of the
engine's GPU time). Each stage of histoscope.bincount's device path is timed inside one loop
(medians of 60 calls after 10): resolving the tensor, its flat view, the result's allocation by
torch, the engine's count (count_keys; and the part of it that is not its GPU phases), checking
the margins, and the result's view. Also the general count (view.count) and the public calls,
with no synchronisation added (the calls return with their result delivered).

    PYTHONPATH=build-gpu/python python3 python/profile_call.py
"""
import collections
import os
import statistics
import sys
import time

sys.path = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import torch  # noqa: E402

import histoscope  # noqa: E402
from histoscope import _arrays, _counting  # noqa: E402


def median_us(fn, n=60):
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e6)
    return round(statistics.median(times), 1)


def stages(x, bins):
    channels = 2 if x.element_size() == 8 else 1
    type = "u32" if channels == 2 else "i32"
    guess = min(max(bins, 256), _counting.MAX_BINS)
    binnings = [(True, guess, 0.0, float(guess), True)] + ([(True, 1, 0.0, 1.0, True)] if channels == 2 else [])
    found = collections.defaultdict(list)
    for i in range(70):
        t = [time.perf_counter()]
        arr = _arrays.resolve(x)
        t.append(time.perf_counter())
        arr, view = _counting._flat(arr, type, channels)
        t.append(time.perf_counter())
        out, pointer = arr.device_counts(guess + channels - 1)
        t.append(time.perf_counter())
        top, below, above, high_above, high_max, _ = view.count_keys(guess, "auto", pointer)
        t.append(time.perf_counter())
        _counting._check_keys(x.dtype, below, high_above, high_max)
        length = max(top + 1, bins)
        t.append(time.perf_counter())
        result = arr.head(out, length)
        t.append(time.perf_counter())
        del result, out
        if i >= 10:
            for k, name in enumerate(("resolve", "flat view", "allocation", "count", "margins", "result view")):
                found[name].append((t[k + 1] - t[k]) * 1e6)
    row = {k: round(statistics.median(v), 1) for k, v in found.items()}
    arr = _arrays.resolve(x)
    arr, view = _counting._flat(arr, type, channels)
    out, pointer = arr.device_counts(guess + channels - 1)
    phases = []
    for _ in range(40):
        counted = view.count(binnings, "auto", pointer)
        phases.append(1e3 * sum(v for k, v in counted.timings.items() if k.endswith("_ms")))
    row["engine GPU phases"] = round(statistics.median(phases[10:]), 1)
    row["count beyond its GPU phases"] = round(row["count"] - row["engine GPU phases"], 1)
    row["general count (view.count)"] = median_us(lambda: view.count(binnings, "auto", pointer))
    row["histoscope.bincount"] = median_us(lambda: histoscope.bincount(x, minlength=bins))
    row["strategy"] = counted.strategy
    own = _arrays.View(view.pointer, view.device, view.type, view.width, view.height, view.stride, view.channels)
    row["count_keys in the engine's own stream"] = median_us(lambda: own.count_keys(guess, "auto", pointer))
    row["count_keys in the caller's stream"] = median_us(lambda: view.count_keys(guess, "auto", pointer))
    return row


def torch_floor(x):
    """What the least a device call must ask of torch costs here: the tensor's facts, the
    current stream, a result's allocation and a view of its head."""
    raw = torch._C._cuda_getCurrentRawStream
    return {
        "facts (is_cuda, dim, dtype, is_contiguous, numel, get_device, data_ptr)": median_us(
            lambda: (x.is_cuda, x.dim(), x.dtype, x.is_contiguous(), x.numel(), x.get_device(), x.data_ptr())),
        "raw current stream": median_us(lambda: raw(0)),
        "new_empty(257, int64)": median_us(lambda: x.new_empty(257, dtype=torch.int64)),
        "torch.empty(257, int64, device)": median_us(lambda: torch.empty(257, dtype=torch.int64, device=x.device)),
        "narrow of a 257-count result": median_us(lambda: x.narrow(0, 0, 64)),
        "a no-op native call": median_us(lambda: histoscope._native.built_with_cuda()),
    }


def main():
    gen = torch.Generator(device="cuda")
    gen.manual_seed(20261202)
    for name, x, bins in (
            ("vocab 100M int32, 128,000 values", torch.randint(0, 128_000, (100_000_000,), device="cuda",
                                                              dtype=torch.int32, generator=gen), 128_000),
            ("moe 64M int64, 64 experts", torch.randint(0, 64, (64 << 20,), device="cuda", dtype=torch.int64,
                                                        generator=gen), 64)):
        print(f"profile {name}: {stages(x, bins)}", flush=True)
        if name.startswith("moe"):
            print(f"profile torch floor: {torch_floor(x)}", flush=True)
        del x
    img = torch.randint(0, 256, (2160, 3840, 3), device="cuda", dtype=torch.uint8, generator=gen)
    arr = _arrays.resolve(img)
    arr, view = _counting._image(arr, "u8")
    binnings = [(True, 256, 0.0, 256.0, True)] * 3
    gpu = 1e3 * sum(v for k, v in view.count(binnings, "auto").timings.items() if k.endswith("_ms"))
    row = {"engine GPU phases": round(gpu, 1), "engine count alone": median_us(lambda: view.count(binnings, "auto")),
           "resolve + image view": median_us(lambda: _counting._image(_arrays.resolve(img), "u8")),
           "histoscope.image_histogram": median_us(lambda: histoscope.image_histogram(img))}
    print(f"profile 4K RGB frame: {row}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
