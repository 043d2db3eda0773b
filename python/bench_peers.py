#!/usr/bin/env python3
"""histoscope against torch.bincount, torch.histc and cupy.bincount, in one process, on the same
CUDA tensors (scripts/h200_python.sh runs it on the GPU machine).

Workloads (issue 19): a 100 M-token vocabulary count (128 000 values, Zipf), a mixture-of-experts
routing count (64 M ids, 64 experts, skewed), and a 4K RGB frame's per-channel histograms. Each
result is first checked equal to torch.bincount, then timed after a warm-up, as the median of
many runs:
  - peers: CUDA events on the current stream around the call (their GPU time) and the
    synchronised wall time of the call;
  - histoscope: the wall time of the public call (the caller's stream synchronised first, the
    result a tensor on the device), the wall time of the engine's count alone
    (histoscope._native.count) and the engine's own GPU time (its CUDA-event phases: clear,
    tally, merge and the delivery of the result: for bincount its copy into the device tensor
    and the download of the margins, for image_histogram the download of the counts);
  - the goal's own measure (issue 19: a call's wall within 20 us of the engine's GPU time),
    paired call by call: each public call's wall minus the GPU phases the engine timed in
    that same call (histoscope._native.last_timings), median over calls; the workloads
    interleaved, one call of each per round, beside a fixed piece of pure-Python work that
    shows the host's own speed (paired_rounds).
Writes a JSON summary and a table (--out).

    PYTHONPATH=build-gpu/python python3 python/bench_peers.py --out $OUT/python_peers
"""
import argparse
import json
import os
import statistics
import sys
import time

# This script's folder holds the package's sources without the built extension: the package on
# PYTHONPATH (the build's) is the one to time.
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import numpy as np  # noqa: E402
import torch  # noqa: E402

import histoscope  # noqa: E402
from histoscope import _arrays  # noqa: E402

try:
    import cupy
except ImportError:
    cupy = None


def median_wall(fn, repeats, warmup, synchronise=True):
    """The median wall time of fn in ms: with torch.cuda.synchronize() after each call (the
    peers' walls), or of the call alone (synchronise=False: histoscope's calls return with their
    result delivered, the stream synchronised)."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        if synchronise:
            torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
        del result  # freed outside the timed call, as a caller frees a result it has used
    return statistics.median(times)


def median_events(fn, repeats, warmup):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def median_cupy_events(fn, repeats, warmup):
    for _ in range(warmup):
        fn()
    cupy.cuda.Device().synchronize()
    times = []
    for _ in range(repeats):
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, stop))
    return statistics.median(times)


def gpu_ms(t):
    """The engine's GPU phases of one count (its timings dict): clear, tally, merge, delivery."""
    return t["clear_ms"] + t["tally_ms"] + t["merge_ms"] + t["download_ms"]


PARTS = ("python before", "engine before its GPU", "wait beyond the phases", "engine after", "python after")


def host_probe():
    """A fixed piece of pure-Python work, in us: its time follows the host's own speed, which on
    a shared machine drifts (the same call's Python part doubled within one process)."""
    t0 = time.perf_counter_ns()
    total = 0
    for i in range(100):
        total += i
    return (time.perf_counter_ns() - t0) * 1e-3


def paired_rounds(calls, rounds, warmup):
    """Issue 19's measure for every workload at once. calls: {workload: fn}. Each round calls every
    workload once, so a slow spell of the host falls on all of them alike, where workloads timed
    one after the other each met the host as it was then. For each workload: the median, over
    rounds, of one call's own wall time minus the GPU phases the engine timed in that same call
    (histoscope._native.last_timings), in us; the median wall in ms; where that difference goes,
    from the engine's host moments (time.perf_counter's clock): Python before the engine, the
    engine before its first GPU work, the wait beyond the GPU phases (the first phase's start and
    the host's wake after the last), the engine after the wait, Python after the engine (medians
    in us over the same calls); and the median of host_probe() taken just before each call.
    Paired call by call, so the GPU's own variation between runs (clocks, the skew sample)
    cancels out."""
    for _ in range(warmup):
        for fn in calls.values():
            fn()
    torch.cuda.synchronize()
    found = {name: {"over": [], "wall": [], "probe": [], "parts": {k: [] for k in PARTS}} for name in calls}
    for _ in range(rounds):
        for name, fn in calls.items():
            f = found[name]
            f["probe"].append(host_probe())
            t0 = time.perf_counter_ns()
            result = fn()
            t1 = time.perf_counter_ns()
            del result  # the caller frees its result later, outside the call
            t = histoscope._native.last_timings()
            wall = (t1 - t0) * 1e-6
            gpu = gpu_ms(t)
            f["over"].append((wall - gpu) * 1e3)
            f["wall"].append(wall)
            if t["gpu_queued_ns"] and t["synced_ns"]:
                moments = (t0, t["entered_ns"], t["gpu_queued_ns"], t["synced_ns"], t["finished_ns"], t1)
                steps = [(b - a) * 1e-3 for a, b in zip(moments, moments[1:])]
                steps[2] -= gpu * 1e3
                for k, v in zip(PARTS, steps):
                    f["parts"][k].append(v)
    out = {}
    for name, f in found.items():
        where = {k: round(statistics.median(v), 1) for k, v in f["parts"].items() if v}
        out[name] = (statistics.median(f["over"]), statistics.median(f["wall"]), where, statistics.median(f["probe"]),
                     sorted(f["over"])[len(f["over"]) // 4], sorted(f["over"])[3 * len(f["over"]) // 4])
    return out


def paired_call(fn, repeats, warmup):
    """paired_rounds of one workload: (median over, median wall, parts)."""
    over, wall, where, _, _, _ = paired_rounds({"one": fn}, repeats, warmup)["one"]
    return over, wall, where


def engine_alone(x, bins, repeats, warmup, type=None, channels=1, binnings=None, on_device=True):
    """Wall and GPU time of the engine's count of a contiguous device tensor, without the
    module's Python layer (the same view the module passes; the counts kept on the device as
    the module keeps them, unless on_device is False). The GPU time is every phase the engine
    timed with its CUDA events: clear, tally, merge and the delivery of the result (its copy
    into the device tensor and the download of the margins, or the download of all counts)."""
    arr = _arrays.resolve(x)
    type = type or _arrays.ENGINE_TYPES.get(arr.dtype, "u32")
    view = _arrays.flat_view(arr, type, channels) if x.dim() == 1 else _arrays.image_view(arr, type)
    view.stream = arr.stream_handle
    binnings = binnings or [(True, bins, 0.0, float(bins), True)] + ([(True, 1, 0.0, 1.0, True)] if channels == 2 else [])
    out = torch.empty(sum(b[1] for b in binnings if b), dtype=torch.int64, device=x.device) if on_device else None
    gpu = []

    def run():
        counted = view.count(binnings, "auto", out.data_ptr() if on_device else 0)
        t = counted.timings
        gpu.append(gpu_ms(t))
        return counted

    wall = median_wall(run, repeats, warmup)
    return wall, statistics.median(gpu[warmup:]), run().strategy


def draw(gen, n, weights):
    """n draws of the categories 0..len(weights)-1 with these weights (inverse CDF, on the GPU)."""
    cdf = torch.cumsum(weights.double(), 0)
    cdf /= cdf[-1].clone()
    u = torch.rand(n, device="cuda", dtype=torch.float64, generator=gen)
    return torch.searchsorted(cdf, u).clamp_(max=weights.numel() - 1)


def zipf(gen, n, values, s=1.1):
    ranks = torch.arange(1, values + 1, device="cuda", dtype=torch.float64)
    keys = draw(gen, n, ranks ** -s)
    perm = torch.randperm(values, device="cuda", generator=gen)
    return perm[keys]


def vocabulary(gen, dtype):
    values = 128_000
    x = zipf(gen, 100_000_000, values).to(dtype)
    return f"vocab-100M-{str(dtype).split('.')[-1]}", x, values


def moe(gen):
    experts = 64
    n = 64 * (1 << 20)
    weights = torch.ones(experts, device="cuda", dtype=torch.float64)
    weights[:4] = 40.0  # four hot experts take most of the tokens
    x = draw(gen, n, weights)  # int64, as topk gives
    return "moe-64M-64experts", x, experts


def one_keys(name, x, values, repeats, warmup, rows, calls):
    ours = histoscope.bincount(x, minlength=values)
    ref = torch.bincount(x, minlength=values)
    exact = bool(torch.equal(ours, ref))
    row = {"workload": name, "n": x.numel(), "bins": values, "dtype": str(x.dtype), "exact_vs_torch": exact}
    row["histoscope_wall_ms"] = median_wall(lambda: histoscope.bincount(x, minlength=values), repeats, warmup)
    row["histoscope_call_ms"] = median_wall(lambda: histoscope.bincount(x, minlength=values), repeats, warmup, False)
    calls[name] = lambda: histoscope.bincount(x, minlength=values)
    channels = 2 if x.element_size() == 8 else 1
    type = "u32" if channels == 2 else None
    row["engine_wall_ms"], row["engine_gpu_ms"], row["strategy"] = engine_alone(x, values, repeats, warmup, type, channels)
    row["torch_bincount_ms"] = median_events(lambda: torch.bincount(x, minlength=values), repeats, warmup)
    row["torch_bincount_wall_ms"] = median_wall(lambda: torch.bincount(x, minlength=values), repeats, warmup)
    xf = x.float()
    row["torch_histc_ms"] = median_events(lambda: torch.histc(xf, bins=values, min=0, max=values), repeats, warmup)
    del xf
    if cupy is not None:
        cx = cupy.asarray(x)
        cexact = bool((cupy.bincount(cx, minlength=values) == cupy.asarray(ref)).all())
        row["exact_vs_cupy"] = cexact
        row["cupy_bincount_ms"] = median_cupy_events(lambda: cupy.bincount(cx, minlength=values), repeats, warmup)
        del cx
        cupy.get_default_memory_pool().free_all_blocks()
    rows.append(row)
    print(json.dumps(row), flush=True)
    return exact


def frame_4k(gen, repeats, warmup, rows, calls):
    img = torch.randint(0, 256, (2160, 3840, 3), device="cuda", dtype=torch.uint8, generator=gen)
    img[:1080] //= 2  # a darker half: not flat
    got = histoscope.image_histogram(img)
    refs = [torch.bincount(img[..., c].reshape(-1), minlength=256) for c in range(3)]
    exact = all(bool(torch.equal(torch.from_numpy(got.channels[c].counts).cuda(), refs[c])) for c in range(3))
    row = {"workload": "frame-4k-rgb8", "n": img.numel(), "bins": 256, "dtype": "torch.uint8", "exact_vs_torch": exact}
    row["histoscope_wall_ms"] = median_wall(lambda: histoscope.image_histogram(img), repeats, warmup)
    row["histoscope_call_ms"] = median_wall(lambda: histoscope.image_histogram(img), repeats, warmup, False)
    calls["frame-4k-rgb8"] = lambda: histoscope.image_histogram(img)
    binnings = [(True, 256, 0.0, 256.0, True)] * 3
    row["engine_wall_ms"], row["engine_gpu_ms"], row["strategy"] = engine_alone(img, 256, repeats, warmup, "u8",
                                                                                 binnings=binnings, on_device=False)
    row["torch_bincount_ms"] = median_events(
        lambda: [torch.bincount(img[..., c].reshape(-1), minlength=256) for c in range(3)], repeats, warmup)
    row["torch_bincount_wall_ms"] = median_wall(
        lambda: [torch.bincount(img[..., c].reshape(-1), minlength=256) for c in range(3)], repeats, warmup)
    planes = [img[..., c].float() for c in range(3)]
    row["torch_histc_ms"] = median_events(lambda: [torch.histc(p, bins=256, min=0, max=256) for p in planes], repeats, warmup)
    if cupy is not None:
        cimg = cupy.asarray(img)
        row["cupy_bincount_ms"] = median_cupy_events(
            lambda: [cupy.bincount(cimg[..., c].ravel(), minlength=256) for c in range(3)], repeats, warmup)
    rows.append(row)
    print(json.dumps(row), flush=True)
    return exact


def table(rows):
    head = ("workload", "strategy", "engine_gpu_ms", "engine_wall_ms", "histoscope_wall_ms", "histoscope_call_ms",
            "torch_bincount_ms", "torch_histc_ms", "cupy_bincount_ms")
    lines = ["| " + " | ".join(head) + " | torch/ours | cupy/ours | wall - gpu (us) | call - gpu (us) "
             "| call over its GPU, paired (us) | its quartiles (us) | host probe (us) |",
             "|" + " --- |" * (len(head) + 7)]
    for r in rows:
        cells = [str(r.get(k, "-")) if not isinstance(r.get(k), float) else f"{r[k]:.4f}" for k in head]
        ours = r["histoscope_wall_ms"]
        torch_ratio = r["torch_bincount_ms"] / ours
        cupy_ratio = r["cupy_bincount_ms"] / ours if "cupy_bincount_ms" in r else float("nan")
        lines.append("| " + " | ".join(cells) + f" | {torch_ratio:.2f} | {cupy_ratio:.2f} | "
                     f"{(ours - r['engine_gpu_ms']) * 1e3:.1f} | {(r['histoscope_call_ms'] - r['engine_gpu_ms']) * 1e3:.1f} | "
                     f"{r['call_over_gpu_us']:.1f} | {r['call_over_gpu_q1_us']:.1f}-{r['call_over_gpu_q3_us']:.1f} | "
                     f"{r['host_probe_us']:.2f} |")
    lines += ["", "Where the paired call's time over its GPU phases goes (medians, us; the workloads interleaved, "
              "one call of each per round):", "",
              "| workload | " + " | ".join(PARTS) + " |", "|" + " --- |" * (len(PARTS) + 1)]
    for r in rows:
        parts = r.get("call_over_gpu_parts_us", {})
        lines.append(f"| {r['workload']} | " + " | ".join(str(parts.get(k, "-")) for k in PARTS) + " |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="python_peers")
    ap.add_argument("--repeats", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=5)
    args = ap.parse_args()
    if not torch.cuda.is_available() or histoscope.device()["backend"] != "cuda":
        print("needs a CUDA device and a GPU engine:", histoscope.device(), file=sys.stderr)
        return 1
    gen = torch.Generator(device="cuda")
    gen.manual_seed(20261130)
    rows = []
    calls = {}  # each workload's public call, kept (with its tensor) for the paired rounds
    exact = True
    for dtype in (torch.int32, torch.int64):
        exact &= one_keys(*vocabulary(gen, dtype), args.repeats, args.warmup, rows, calls)
        torch.cuda.empty_cache()
    exact &= one_keys(*moe(gen), args.repeats, args.warmup, rows, calls)
    torch.cuda.empty_cache()
    exact &= frame_4k(gen, args.repeats, args.warmup, rows, calls)
    paired = paired_rounds(calls, 4 * args.repeats, args.warmup)
    for row in rows:
        (row["call_over_gpu_us"], row["paired_call_ms"], row["call_over_gpu_parts_us"], row["host_probe_us"],
         row["call_over_gpu_q1_us"], row["call_over_gpu_q3_us"]) = paired[row["workload"]]
    info = {"device": histoscope.device(), "torch": torch.__version__, "cuda": torch.version.cuda,
            "cupy": cupy.__version__ if cupy is not None else None, "numpy": np.__version__,
            "python": sys.version.split()[0], "repeats": args.repeats, "warmup": args.warmup, "rows": rows,
            "all_exact": exact}
    with open(args.out + ".json", "w") as f:
        json.dump(info, f, indent=1)
    text = table(rows)
    with open(args.out + ".md", "w") as f:
        f.write(text + "\n")
    print(text)
    print("all exact" if exact else "MISMATCH against torch.bincount")
    return 0 if exact else 1


if __name__ == "__main__":
    sys.exit(main())
