#!/bin/bash
# The scopes' H200 run, in one call: build (engine only), the 2-D self-check, the scopes
# benchmark, then compute-sanitizer memcheck and racecheck on the quick self-check. Output under
# $OUT (scopes_summary.txt, scopes.csv, *.log). Run from the tree's root.
set -o pipefail
OUT=${OUT:-/tmp/scopes-out}
mkdir -p "$OUT"
t0=$(date +%s)
stamp() { echo "time: $1 $(( $(date +%s) - t0 )) s" | tee -a "$OUT/steps.log"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
nvcc --version | tail -1 | tee -a "$OUT/gpu.txt"
# BUILD_DIR: reuse the engine build of scripts/h200_verify.sh from the same machine (one build per lease).
B=${BUILD_DIR:-b}
if [ -z "${BUILD_DIR:-}" ]; then
  cmake -S . -B b -G Ninja -DHISTOSCOPE_ENGINE_ONLY=ON -DHISTOSCOPE_CUDA_ARCHITECTURES=90-real -DCMAKE_BUILD_TYPE=Release > "$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
fi
cmake --build "$B" -j16 --target histoscope-scopes >> "$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
stamp build
[ "${SKIP_CHECK:-0}" = 1 ] || timeout ${CHECK_TIMEOUT:-240} ./$B/bench/histoscope-scopes check ${CHECK_ARGS:-} > "$OUT/check.log" 2>&1; echo "check exit $?" | tee -a "$OUT/steps.log"
grep -E "FAIL|scopes check" "$OUT/check.log" | head -20
stamp check
timeout ${BENCH_TIMEOUT:-200} ./$B/bench/histoscope-scopes bench --out "$OUT/scopes" --repeats ${REPEATS:-30} > "$OUT/bench.log" 2>&1; echo "bench exit $?" | tee -a "$OUT/steps.log"
stamp bench
timeout 80 compute-sanitizer --tool memcheck --error-exitcode 3 ./$B/bench/histoscope-scopes check --quick --light > "$OUT/memcheck.log" 2>&1
echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY|scopes check' "$OUT/memcheck.log" | tr '\n' ' ')" | tee -a "$OUT/steps.log"
stamp memcheck
timeout ${RACECHECK_TIMEOUT:-200} compute-sanitizer --tool racecheck --error-exitcode 3 ./$B/bench/histoscope-scopes check --quick --light --gpu-only > "$OUT/racecheck.log" 2>&1
echo "racecheck exit $?: $(grep -E 'RACECHECK SUMMARY|scopes check' "$OUT/racecheck.log" | tr '\n' ' ')" | tee -a "$OUT/steps.log"
stamp racecheck
grep -A10 "best per scope" "$OUT/bench.log"
