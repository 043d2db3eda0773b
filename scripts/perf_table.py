#!/usr/bin/env python3
"""Markdown tables and target checks from a histoscope-bench CSV (docs/PERFORMANCE.md)."""
import csv, statistics, sys
from collections import defaultdict

rows = list(csv.DictReader(open(sys.argv[1])))
cells = defaultdict(dict)
for r in rows:
    cells[(r["workload"], r["distribution"], int(r["bins"]))][r["strategy"]] = r
order = ["auto", "global-atomic", "shared", "warp-aggregated", "replicated", "run-length", "large-bins", "cub", "per-lane", "partition", "packed"]
print("| workload | dist | bins | read-probe | " + " | ".join(order)
      + " | auto picked | auto / probe | cub / auto | auto / best | auto wall | wall / gpu |")
print("|" + "---|" * (len(order) + 10))
checks = defaultdict(list)
for key, c in cells.items():
    w, d, b = key
    probe = float(c["read-probe"]["median_ms"])
    t = {s: float(c[s]["median_ms"]) for s in order if s in c}
    best = min(v for s, v in t.items() if s != "auto")
    auto = t["auto"]
    wall = float(c["auto"]["wall_ms"])
    cub = t.get("cub")
    line = f"| {w} | {d} | {b} | {probe:.3f} | " + " | ".join(f"{t[s]:.3f}" if s in t else "-" for s in order)
    line += f" | {c['auto']['picked']} | {auto / probe:.2f} | " + (f"{cub / auto:.2f}" if cub else "-")
    line += f" | {auto / best:.2f} | {wall:.3f} | {wall / auto:.2f} |"
    print(line)
    name = f"{w}/{d}/{b}"
    if cub:
        checks["auto >= cub"].append((auto <= cub, f"{name}: {cub / auto:.2f}"))
    checks["auto within 10% of best"].append((auto <= 1.10 * best, f"{name}: {auto / best:.2f}"))
    if w == "keys16M" and b <= 65536:
        checks["cub/auto (keys)"].append(cub / auto)
        if b == 4096:
            checks["4096 bins: auto <= 1.25 probe"].append((auto / probe <= 1.25, f"{d}: {auto / probe:.2f}"))
        if b >= 32768:
            checks[">=32768 bins: >= 2x cub"].append((cub / auto >= 2, f"{d}/{b}: {cub / auto:.2f}"))
    if b > 65536:
        checks[">65536 bins: auto within 10% of best"].append((auto <= 1.10 * best, f"{name}: {auto / best:.2f}"))
    if c["auto"]["type"] == "u8":
        mib = int(c["auto"]["samples"]) / 2**20
        if mib >= 16:
            checks["8-bit >= 16 MiB: auto <= 1.25 probe"].append((auto / probe <= 1.25, f"{w}/{d}: {auto / probe:.2f}"))
        else:
            checks["8-bit < 16 MiB: auto <= probe + 5 us"].append(
                (auto <= probe + 0.005, f"{w}/{d}: +{1000 * (auto - probe):.1f} us"))
        if w == "bytes64M":
            checks["8-bit stream: auto >= cub"].append((auto <= cub, f"{d}: cub/auto {cub / auto:.2f}"))
    if w == "tokens128K":
        checks["128K-id tokens: auto <= 3 probe"].append((auto / probe <= 3, f"{auto / probe:.2f}"))
print()
flat = lambda name: checks[name]
for name in ["auto >= cub", "auto within 10% of best", "4096 bins: auto <= 1.25 probe", ">=32768 bins: >= 2x cub",
             ">65536 bins: auto within 10% of best", "8-bit >= 16 MiB: auto <= 1.25 probe",
             "8-bit < 16 MiB: auto <= probe + 5 us", "8-bit stream: auto >= cub", "128K-id tokens: auto <= 3 probe"]:
    items = flat(name)
    bad = [m for ok, m in items if not ok]
    print(f"- {name}: {len(items) - len(bad)}/{len(items)} cells" + (f"; missed: {', '.join(bad)}" if bad else ""))
if checks['cub/auto (keys)']:  # a run of part of the matrix may hold no key cells
    print(f"- median cub/auto over the key matrix (16 to 65,536 bins): {statistics.median(checks['cub/auto (keys)']):.2f}")
