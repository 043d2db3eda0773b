#!/usr/bin/env python3
"""One line per cell of the tuning passes' CSVs (h200_verify.sh, TUNE_ENV), side by side with
the main benchmark's CSV where it has the cell: median ms and x probe per strategy and setting."""
import csv
import sys
from collections import defaultdict


def main(paths):
    cells = defaultdict(dict)
    names = []
    for path in paths:
        name = path.rsplit("/", 1)[-1].removesuffix(".csv")
        names.append(name)
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                key = (row["workload"], row["distribution"], row["bins"], row["strategy"])
                picked = f" ({row['picked']})" if row.get("picked") else ""
                cells[key][name] = f"{float(row['median_ms']):.4f} ({float(row['x_probe']):.2f}x){picked}"
    print("| workload | distribution | bins | strategy | " + " | ".join(names) + " |")
    print("| --- " * (4 + len(names)) + "|")
    for key in cells:
        print("| " + " | ".join(key) + " | " + " | ".join(cells[key].get(n, "-") for n in names) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
