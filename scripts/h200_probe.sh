#!/usr/bin/env bash
# A short H200 call for one question, between full runs of scripts/h200_all.sh: builds the engine,
# the benches and the Python module, checks the 1-D and 2-D strategies exactly (self-checks), then
# runs the experiments named in PROBES (space-separated): facade (histoscope-scopes facade), keys
# (scripts/keys_parts.py), calls (histoscope-bench calls). Summary in $OUT/probe.txt.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-h200-out}
mkdir -p "$out"
log="$out/probe.txt"
py=$(command -v python3)
{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ) commit: ${COMMIT:-unknown}"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | sed 's/^/gpu: /'
} > "$log"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHISTOSCOPE_ENGINE_ONLY=ON -DBUILD_TESTING=OFF \
  -DHISTOSCOPE_CUDA_ARCHITECTURES=90-real -DPython_EXECUTABLE="$py" -Dpybind11_DIR="$($py -m pybind11 --cmakedir)" \
  > "$out/build.log" 2>&1 &&
  cmake --build build-gpu --target histoscope_python histoscope-bench histoscope-scopes --parallel "$(nproc)" >> "$out/build.log" 2>&1 ||
  { echo "build: FAILED" >> "$log"; tail -40 "$out/build.log" >> "$log"; cat "$log"; exit 1; }
echo "build: ok" >> "$log"
if [ "${SKIP_CHECK:-0}" != 1 ]; then
  build-gpu/bench/histoscope-bench selfcheck > "$out/selfcheck.log" 2>&1
  echo "selfcheck: exit $? $(grep -E '^selfcheck:' "$out/selfcheck.log")" >> "$log"
  timeout 240 build-gpu/bench/histoscope-scopes check --quick > "$out/scopes-check.log" 2>&1
  echo "scopes check --quick: exit $? $(grep -E 'scopes check:' "$out/scopes-check.log")" >> "$log"
  grep -E "FAIL" "$out/selfcheck.log" "$out/scopes-check.log" | head -10 >> "$log"
fi
for p in ${PROBES:-facade keys}; do
  case $p in
    facade) build-gpu/bench/histoscope-scopes facade --repeats "${FACADE_REPEATS:-20}" >> "$log" 2>&1 ;;
    keys) PYTHONPATH=build-gpu/python "$py" scripts/keys_parts.py >> "$log" 2>&1 ;;
    calls) build-gpu/bench/histoscope-bench calls --repeats 200 >> "$log" 2>&1 ;;
  esac
  echo "probe $p: exit $?" >> "$log"
done
cat "$log"
