#!/usr/bin/env python3
"""Where a device bincount's time over its GPU phases goes, per dtype, strategy and order
(issue 19's remaining workload: the int64 vocabulary). An experiment for the H200 beside
python/bench_peers.py, whose paired_call it reuses.

    PYTHONPATH=build-gpu/python python3 scripts/keys_parts.py
"""
import importlib.util
import os
import statistics
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("bench_peers", os.path.join(here, "..", "python", "bench_peers.py"))
bp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bp)
torch, histoscope = bp.torch, bp.histoscope
from histoscope import _arrays  # noqa: E402


def parts(x, values, strategy, n=240):
    over, wall, where = bp.paired_call(lambda: histoscope.bincount(x, minlength=values, strategy=strategy), n, 10)
    return f"over {over:5.1f} us (wall {wall:.4f} ms) " + " ".join(f"{k.split()[0]}-{k.split()[-1]} {v}" for k, v in where.items())


def main():
    gen = torch.Generator(device="cuda")
    gen.manual_seed(20261130)
    keys = {d: bp.vocabulary(gen, d)[1] for d in (torch.int32, torch.int64)}
    moe = bp.moe(gen)[1]
    for d, x in keys.items():
        t = []
        for _ in range(200):
            t0 = time.perf_counter_ns()
            _arrays.torch_device_keys(x)
            t.append(time.perf_counter_ns() - t0)
        print(f"torch_device_keys {d}: {statistics.median(t) / 1e3:.2f} us")
    for d in (torch.int64, torch.int32, torch.int64):
        for s in ("auto", "replicated", "large-bins"):
            print(f"{str(d):12} {s:11}", parts(keys[d], 128_000, s), flush=True)
    print(f"{'moe int64':12} {'auto':11}", parts(moe, 64, "auto"))
    # The same int64 keys into 64 bins (small result, other strategy), and int32 copies of MoE.
    print(f"{'vocab int64':12} {'64 bins':11}", parts(keys[torch.int64] % 64, 64, "auto"))
    print(f"{'moe int32':12} {'128000':11}", parts(moe.to(torch.int32), 128_000, "auto"))
    os.sched_setaffinity(0, {3})
    print(f"{'pinned int64':12} {'auto':11}", parts(keys[torch.int64], 128_000, "auto"))
    print(f"{'pinned int32':12} {'auto':11}", parts(keys[torch.int32], 128_000, "auto"))


if __name__ == "__main__":
    main()
