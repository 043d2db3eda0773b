#!/usr/bin/env python3
"""Peers a user would pick instead of HistoScope: torch.bincount and cupy.bincount on the same
keys, on the same GPU. For each workload the keys are written to a file, counted by
`histoscope-bench keys` (auto, exact counts written out), checked equal to torch's and cupy's
counts, then each peer is timed with CUDA events after a warm-up (median of the runs).

    python3 bench/peers.py --bench build/bench/histoscope-bench --out peers.csv
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

try:
    import torch
except ImportError:  # the script still runs the other peer
    torch = None
try:
    import cupy
except ImportError:
    cupy = None


def make_keys(rng, n, bins, dist):
    if dist == "uniform":
        return rng.integers(0, bins, n, dtype=np.uint32)
    if dist == "zipf":
        # Zipf s = 1.1 over the bins, by inverse CDF of a bounded power law, shuffled ranks.
        ranks = np.arange(1, bins + 1, dtype=np.float64)
        p = ranks ** -1.1
        p /= p.sum()
        keys = rng.choice(bins, size=n, p=p).astype(np.uint32)
        perm = rng.permutation(bins).astype(np.uint32)
        return perm[keys]
    if dist == "hot":  # 90 % one key, the rest uniform
        keys = rng.integers(0, bins, n, dtype=np.uint32)
        keys[rng.random(n) < 0.9] = bins // 3
        return keys
    raise ValueError(dist)


def time_cuda(fn, repeats, sync, event):
    for _ in range(3):
        fn()
    sync()
    times = []
    for _ in range(repeats):
        start, stop = event(), event()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) if hasattr(start, "elapsed_time") else cupy.cuda.get_elapsed_time(start, stop))
    return float(np.median(times))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True)
    ap.add_argument("--out", default="peers.csv")
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    rng = np.random.default_rng(20261130)
    workloads = [(n, bins, dist)
                 for n, bins in [(1 << 26, 256), (1 << 26, 4096), (1 << 26, 65536), (100_000_000, 128_000),
                                 (1 << 26, 1_000_000), (1 << 26, 16_000_000)]
                 for dist in ("uniform", "zipf", "hot")]
    if args.quick:
        workloads = workloads[:3]
    rows = []
    mismatches = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n, bins, dist in workloads:
            keys = make_keys(rng, n, bins, dist)
            path = os.path.join(tmp, "keys.bin")
            counts_path = os.path.join(tmp, "counts.bin")
            keys.tofile(path)
            out = subprocess.run([args.bench, "keys", path, "--type", "u32", "--bins", str(bins), "--counts", counts_path,
                                  "--repeats", str(args.repeats)], check=True, capture_output=True, text=True).stdout
            ours = json.loads(out.strip().splitlines()[-1])
            our_counts = np.fromfile(counts_path, dtype=np.uint64)
            row = {"keys": n, "bins": bins, "distribution": dist, "histoscope_ms": ours["gpu_ms"],
                   "histoscope_wall_ms": ours["wall_ms"], "probe_ms": ours["probe_ms"], "auto_ran": ours["ran"]}
            if torch is not None and torch.cuda.is_available():
                # int32, the bytes our engine reads (torch.bincount takes any integer type).
                t = torch.from_numpy(keys.astype(np.int32)).cuda()
                ref = torch.bincount(t, minlength=bins).cpu().numpy().astype(np.uint64)
                exact = np.array_equal(ref, our_counts)
                mismatches += not exact
                row["torch_exact"] = exact
                row["torch_ms"] = time_cuda(lambda: torch.bincount(t, minlength=bins), args.repeats, torch.cuda.synchronize,
                                            lambda: torch.cuda.Event(enable_timing=True))
                row["torch_over_histoscope"] = row["torch_ms"] / ours["gpu_ms"]
                del t
                torch.cuda.empty_cache()
            if cupy is not None:
                c = cupy.asarray(keys)
                ref = cupy.bincount(c, minlength=bins).get().astype(np.uint64)
                exact = np.array_equal(ref, our_counts)
                mismatches += not exact
                row["cupy_exact"] = exact
                row["cupy_ms"] = time_cuda(lambda: cupy.bincount(c, minlength=bins), args.repeats,
                                           cupy.cuda.Device().synchronize, lambda: cupy.cuda.Event())
                row["cupy_over_histoscope"] = row["cupy_ms"] / ours["gpu_ms"]
                del c
                cupy.get_default_memory_pool().free_all_blocks()
            rows.append(row)
            print(json.dumps(row), flush=True)
    fields = sorted({k for r in rows for k in r}, key=lambda k: list(rows[0]).index(k) if k in rows[0] else 99)
    with open(args.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)
    print(f"{len(rows)} workloads, {mismatches} count mismatches", flush=True)
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
