#!/usr/bin/env python3
"""Markdown tables and target checks from a histoscope-bench CSV (docs/PERFORMANCE.md)."""
import csv, statistics, sys
from collections import defaultdict

rows = list(csv.DictReader(open(sys.argv[1])))
cells = defaultdict(dict)
for r in rows:
    cells[(r["workload"], r["distribution"], int(r["bins"]))][r["strategy"]] = r
order = ["auto", "global-atomic", "shared", "warp-aggregated", "replicated", "run-length", "large-bins", "cub"]
print("| workload | dist | bins | read-probe | " + " | ".join(order) + " | auto picked | auto / probe | cub / auto | auto / best |")
print("|" + "---|" * (len(order) + 8))
checks = defaultdict(list)
for key, c in cells.items():
    probe = float(c["read-probe"]["median_ms"])
    t = {s: float(c[s]["median_ms"]) for s in order if s in c}
    best = min(v for s, v in t.items() if s != "auto")
    auto = t["auto"]
    line = f"| {key[0]} | {key[1]} | {key[2]} | {probe:.3f} | " + " | ".join(f"{t[s]:.3f}" for s in order)
    line += f" | {c['auto']['picked']} | {auto / probe:.2f} | {t['cub'] / auto:.2f} | {auto / best:.2f} |"
    print(line)
    w, d, b = key
    checks["auto >= cub"].append(auto <= t["cub"])
    if w == "keys16M":
        checks["cub/auto (keys)"].append(t["cub"] / auto)
        if b <= 4096:
            checks["<=4096 bins: auto <= 1.25 probe"].append((auto / probe <= 1.25, f"{d}/{b}: {auto / probe:.2f}"))
        if b >= 32768:
            checks[">=32768 bins: >= 2x cub"].append((t["cub"] / auto >= 2, f"{d}/{b}: {t['cub'] / auto:.2f}"))
    if w == "rgb4k":
        checks["rgb4k: auto <= 1.5 probe"].append((auto / probe <= 1.5, f"{d}: {auto / probe:.2f}"))
    checks["auto within 10% of best"].append((auto <= 1.10 * best, f"{w}/{d}/{b}: {auto / best:.2f}"))
print()
print(f"- auto <= cub on every cell: {all(checks['auto >= cub'])} ({sum(checks['auto >= cub'])}/{len(checks['auto >= cub'])})")
print(f"- median cub/auto over the key matrix: {statistics.median(checks['cub/auto (keys)']):.2f}")
for name in ["<=4096 bins: auto <= 1.25 probe", "rgb4k: auto <= 1.5 probe", ">=32768 bins: >= 2x cub", "auto within 10% of best"]:
    items = checks[name]
    bad = [m for ok, m in items if not ok]
    print(f"- {name}: {len(items) - len(bad)}/{len(items)} cells" + (f"; missed: {', '.join(bad)}" if bad else ""))
