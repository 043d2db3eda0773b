#!/usr/bin/env bash
# One call on the GPU machine (CUDA toolkit, CMake, python3 with NumPy, PyTorch, CuPy and pip's
# pybind11; no Qt, no OpenCV): build the engine and the Python module (HISTOSCOPE_ENGINE_ONLY,
# CUDA arch 90-real), run the Python tests with the GPU ones (torch and CuPy CUDA tensors in a
# non-default stream, checked equal to torch.bincount), then time histoscope against
# torch.bincount, torch.histc and cupy.bincount in one process (python/bench_peers.py).
# Writes its logs and a summary under $OUT (or ./h200-out when OUT is unset).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-h200-out}
mkdir -p "$out"
archs=${HISTOSCOPE_CUDA_ARCHITECTURES:-90-real}
python=${PYTHON:-$(command -v python3)}
build=${BUILD_DIR:-build-py}
summary="$out/summary.txt"
last=$SECONDS
stamp() { echo "time: $1 $((SECONDS - last)) s" >> "$summary"; last=$SECONDS; }
{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "commit: ${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"  # COMMIT: the tree the device tool copied, whose .git may be older
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
  nvcc --version | tail -1
  "$python" - <<'PY'
import sys
print("python:", sys.version.split()[0], sys.executable)
for name in ("numpy", "torch", "cupy", "pybind11", "pytest", "dask"):
    try:
        m = __import__(name)
        print(f"{name}: {m.__version__}")
    except Exception as e:
        print(f"{name}: missing ({type(e).__name__})")
PY
} > "$summary" 2>&1

pybind11_dir=$("$python" -m pybind11 --cmakedir 2>/dev/null || true)
generator=(); command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DHISTOSCOPE_ENGINE_ONLY=ON -DBUILD_TESTING=OFF \
  -DHISTOSCOPE_CUDA_ARCHITECTURES="$archs" -DPython_EXECUTABLE="$python" ${pybind11_dir:+-Dpybind11_DIR="$pybind11_dir"} \
  > "$out/build.log" 2>&1 &&
  cmake --build "$build" --target histoscope_python histoscope-bench --parallel "$(nproc)" >> "$out/build.log" 2>&1 ||
  { echo "build: FAILED" >> "$summary"; tail -60 "$out/build.log"; exit 1; }
grep -E "HistoScope: (CUDA|Python)" "$out/build.log" | sed 's/^-- /build: /' >> "$summary"
stamp build
export PYTHONPATH="$PWD/$build/python${PYTHONPATH:+:$PYTHONPATH}"
"$python" -c "import histoscope; print('device:', histoscope.device())" >> "$summary" 2>&1

# The tests, GPU ones included (the Dask ones too when dask and distributed are installed).
tests=(python/tests/test_gpu.py python/tests/test_bincount.py python/tests/test_histogram.py
       python/tests/test_inputs.py python/tests/test_image.py python/tests/test_dask.py)
if "$python" -c "import pytest" 2>/dev/null; then
  "$python" -m pytest -q -p no:cacheprovider -rA "${tests[@]}" > "$out/pytest.log" 2>&1
else
  "$python" python/tests/minipytest.py "${tests[@]}" > "$out/pytest.log" 2>&1  # no pytest here
fi
echo "tests: exit $?; $(tail -1 "$out/pytest.log")" >> "$summary"
grep -E "^(PASS|PASSED|SKIP|SKIPPED|FAIL|FAILED)" "$out/pytest.log" | grep test_gpu | sed 's/^/gpu test: /' >> "$summary"
grep -E "^(FAIL |FAILED )" "$out/pytest.log" | grep -v test_gpu | head -20 >> "$summary"
stamp tests

# The peers, in one process: medians of ${REPEATS:-50} runs after ${WARMUP:-5} warm-up runs.
"$python" python/bench_peers.py --out "$out/python_peers" --repeats "${REPEATS:-50}" --warmup "${WARMUP:-5}" \
  > "$out/bench.log" 2>&1
echo "bench: exit $?" >> "$summary"
cat "$out/python_peers.md" >> "$summary" 2>/dev/null
tail -1 "$out/bench.log" >> "$summary"
stamp bench

# Where a device call's wall goes: the CUDA floor of any synchronous call (no engine), then the
# stages of the module's own calls.
nvcc -O2 -o "$build/call_floor" scripts/call_floor.cu > /dev/null 2>&1 && "$build/call_floor" >> "$summary" 2>&1
# The engine's own share, through its public API.
"$build/bench/histoscope-bench" calls --repeats "${CALL_REPEATS:-200}" >> "$summary" 2>&1
"$python" python/profile_call.py >> "$summary" 2>&1
stamp profile
cat "$summary"
