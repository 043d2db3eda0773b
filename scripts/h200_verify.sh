#!/usr/bin/env bash
# One call on the GPU machine: build the engine and benchmark (CUDA toolkit + CMake only),
# check every strategy exactly, run compute-sanitizer memcheck and racecheck, then benchmark.
# Writes its logs and a summary under $OUT (or ./h200-out when OUT is unset).
set -uo pipefail
out=${OUT:-h200-out}
mkdir -p "$out"
archs=${HISTOSCOPE_CUDA_ARCHITECTURES:-90-real}
summary="$out/summary.txt"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
  nvcc --version | tail -1
} > "$summary"

cmake -S . -B build-gpu -G Ninja -DHISTOSCOPE_ENGINE_ONLY=ON -DBUILD_TESTING=OFF \
  -DHISTOSCOPE_CUDA_ARCHITECTURES="$archs" > "$out/build.log" 2>&1 &&
  cmake --build build-gpu >> "$out/build.log" 2>&1 || { echo "build: FAILED" >> "$summary"; tail -50 "$out/build.log"; exit 1; }
echo "build: ok ($archs)" >> "$summary"
bench=build-gpu/bench/histoscope-bench

"$bench" selfcheck ${SELFCHECK_ARGS:---big} > "$out/selfcheck.log" 2>&1
grep -E "^(engine|selfcheck):" "$out/selfcheck.log" >> "$summary"
grep -m 20 FAIL "$out/selfcheck.log" >> "$summary"

san_filter=${SANITIZE_FILTER:-equalize,type-,roi-x3,float-specials-f16-7,channels-3-only,channels-4-no-alpha,bins-65536-u16,dist-hot90-u8,size-1x1,stride-odd}
for tool in memcheck racecheck; do
  compute-sanitizer --tool $tool --error-exitcode 3 "$bench" selfcheck --filter "$san_filter" > "$out/sanitize-$tool.log" 2>&1
  rc=$?
  echo "compute-sanitizer $tool: exit $rc; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitize-$tool.log" | tail -1); $(grep -E '^selfcheck:' "$out/sanitize-$tool.log")" >> "$summary"
done

# Optional tuning sweep: TUNE_THREADS="256 512 1024" reruns part of the matrix per block size.
for t in ${TUNE_THREADS:-}; do
  HISTOSCOPE_TUNE_THREADS=$t "$bench" run --csv "$out/tune-$t.csv" --repeats 10 --only "${TUNE_ONLY:-keys16M}" > "$out/tune-$t.log" 2>&1
  echo "tune threads=$t: exit $?" >> "$summary"
done

if [ "${SKIP_BENCH:-0}" != 1 ]; then
  "$bench" run --csv "$out/bench.csv" --repeats ${REPEATS:-20} ${BENCH_ARGS:-} > "$out/bench.log" 2>&1
  echo "benchmark: exit $?; $(grep -E '^benchmark:' "$out/bench.log")" >> "$summary"
fi
cat "$summary"
[ -f "$out/bench.log" ] && cat "$out/bench.log"
