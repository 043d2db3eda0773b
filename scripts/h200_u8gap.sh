#!/usr/bin/env bash
# Issue 21's open 8-bit question in one device call: where does the per-lane kernel's time go
# beyond the read probe? The engine's tally phase (CUDA events in the benchmark) beside Nsight
# Compute's kernel duration for the same kernel and for the probe's kernel, and the counting
# loops of scripts/u8_variants.cu (each checked exactly) beside the engine's shape.
# Writes a summary and the raw logs under $OUT (or ./h200-out).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-h200-out}
mkdir -p "$out"
summary="$out/u8gap_summary.txt"
last=$SECONDS
stamp() { echo "time: $1 $((SECONDS - last)) s" >> "$summary"; last=$SECONDS; }
{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)  commit: ${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null)}"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
} > "$summary"

mkdir -p build-gpu
nvcc -O3 -arch=sm_90 -o build-gpu/u8_variants scripts/u8_variants.cu > "$out/u8_variants.txt" 2>&1 &
variants_build=$!
cmake -S . -B build-gpu -G Ninja -DHISTOSCOPE_ENGINE_ONLY=ON -DBUILD_TESTING=OFF \
  -DHISTOSCOPE_CUDA_ARCHITECTURES=90-real > "$out/build.log" 2>&1 &&
  cmake --build build-gpu --target histoscope-bench >> "$out/build.log" 2>&1 || { echo "build: FAILED" >> "$summary"; tail -40 "$out/build.log"; exit 1; }
wait $variants_build || echo "u8_variants build: FAILED" >> "$summary"
stamp build
bench=build-gpu/bench/histoscope-bench

# The benchmark's 8-bit image and stream cells, per-lane and auto, with the probe of each.
"$bench" run --csv "$out/u8gap_bench.csv" --repeats ${REPEATS:-50} --only "${ONLY:-rgb}" --strategies auto,per-lane,cub \
  > "$out/bench.log" 2>&1
echo "bench rgb: exit $?; $(grep -E '^benchmark:' "$out/bench.log")" >> "$summary"
"$bench" run --csv "$out/u8gap_bench_bytes.csv" --repeats ${REPEATS:-50} --only bytes64M --strategies auto,per-lane,cub \
  >> "$out/bench.log" 2>&1
echo "bench bytes: exit $?; $(grep -E '^benchmark:' "$out/bench.log" | tail -1)" >> "$summary"
stamp bench

# Nsight Compute: the probe's kernel and the per-lane kernel, several launches each.
metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,smsp__inst_executed.sum,smsp__inst_executed_op_shared_atom.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,sm__cycles_active.avg,gpc__cycles_elapsed.max
for cell in rgb4k/noise bytes64M/noise rgb8k/noise rgb1080p/noise; do
  name=${cell%%/*}
  ncu --clock-control none -k regex:'perLaneKernel|readProbeKernel' --launch-skip 2 --launch-count 8 --metrics $metrics \
    "$bench" run --repeats 3 --only "$cell" --strategies per-lane > "$out/ncu-$name.txt" 2>&1
  echo "ncu $cell: exit $?" >> "$summary"
  python3 - "$out/ncu-$name.txt" >> "$summary" <<'EOF'
import re, sys
kernel, rows = None, {}
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"\s+(\w+Kernel)", line)
    if m:
        kernel = m.group(1)
    m = re.match(r"\s+(gpu__time_duration.sum|dram__throughput\S+|smsp__inst_executed.sum)\s+(\S+)\s+([\d.,]+)", line)
    if m and kernel:
        rows.setdefault((kernel, m.group(1)), []).append(m.group(3).replace(",", ""))
for (k, metric), values in sorted(rows.items()):
    print(f"  {k:18s} {metric:50s} {' '.join(values)}")
EOF
done
stamp ncu

build-gpu/u8_variants ${U8_REPEATS:-50} >> "$out/u8_variants.txt" 2>&1
echo "u8 variants: exit $?" >> "$summary"
stamp u8_variants

python3 - "$out/u8gap_bench.csv" "$out/u8gap_bench_bytes.csv" >> "$summary" <<'EOF'
import csv, sys
for path in sys.argv[1:]:
    probe = {}
    for r in csv.DictReader(open(path)):
        key = (r["workload"], r["distribution"], r["bins"])
        if r["strategy"] == "read-probe":
            probe[key] = float(r["median_ms"])
        elif key in probe:
            ms = float(r["median_ms"])
            print(f"{r['workload']:10s} {r['distribution']:9s} {r['bins']:>4s} {r['strategy']:9s} {ms*1000:7.2f} us  probe {probe[key]*1000:6.2f}  x {ms/probe[key]:.3f}  {r['exact']}")
EOF
cat "$summary"
grep -E 'exact|MISMATCH|read-probe' "$out/u8_variants.txt"
