#!/usr/bin/env bash
# Everything the H200 checks, in one call of the device tool: the engine's verification
# (scripts/h200_verify.sh: build, selfcheck, sanitizers, fault, scopes, benchmark), then the
# Python module (scripts/h200_python.sh: build, pytest with the GPU tests, peers' timings).
# Summaries under $OUT/verify and $OUT/python; at most 8 files come back, so logs are tarred.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-h200-out}
mkdir -p "$out"
OUT="$out/verify" SCOPES=${SCOPES:-1} REPEATS=${REPEATS:-10} bash scripts/h200_verify.sh > "$out/verify.txt" 2>&1
echo "verify: exit $?"
# At most 8 files come back: the benchmark's plot stays behind (bench.csv holds its numbers).
rm -f "$out/verify/bench-sweep.svg"
if [ "${SKIP_PYTHON:-0}" != 1 ]; then
  OUT="$out/python" BUILD_DIR=build-gpu REPEATS=${PY_REPEATS:-30} bash scripts/h200_python.sh > /dev/null 2>&1
  echo "python: exit $?"
  (cd "$out/python" && tar czf logs.tar.gz --remove-files build.log pytest.log bench.log python_peers.md 2>/dev/null)
fi
rm -f "$out/verify.txt"
# The 2-D facade's whole call on a 4K frame, host and device input, each checked exact
# (FACADE=1), and the quick 2-D check (host and device input) under compute-sanitizer memcheck.
if [ "${FACADE:-0}" = 1 ]; then
  {
    build-gpu/bench/histoscope-scopes facade --repeats "${FACADE_REPEATS:-20}"
    echo "facade: exit $?"
    timeout 150 compute-sanitizer --tool memcheck --error-exitcode 3 build-gpu/bench/histoscope-scopes check --quick --light \
      > "$out/facade-memcheck.log" 2>&1
    echo "scopes check --quick --light under memcheck: exit $?; $(grep -E 'ERROR SUMMARY|scopes check:' "$out/facade-memcheck.log" | tr '\n' ' ')"
    rm -f "$out/facade-memcheck.log"
  } > "$out/facade.txt" 2>&1
fi
# Issue 21's 8-bit counting loops, each checked exactly, beside a read probe (U8_VARIANTS=1).
if [ "${U8_VARIANTS:-0}" = 1 ]; then
  nvcc -O3 -arch=sm_90 -o build-gpu/u8_variants scripts/u8_variants.cu > "$out/u8_variants.txt" 2>&1 &&
    build-gpu/u8_variants ${U8_REPEATS:-50} >> "$out/u8_variants.txt" 2>&1
  echo "u8 variants: exit $?"
fi
# Issue 21's big-bin question: counting layouts from 65,536 bins up (tiles, packed 16-bit
# counters, clusters over distributed shared memory), each checked exactly, beside a read probe
# (BIGBIN=1).
if [ "${BIGBIN:-0}" = 1 ]; then
  nvcc -O3 -arch=sm_90 -Xcompiler -fopenmp -o build-gpu/bigbin_variants scripts/bigbin_variants.cu > "$out/bigbin_variants.txt" 2>&1 &&
    build-gpu/bigbin_variants ${BIGBIN_REPEATS:-30} >> "$out/bigbin_variants.txt" 2>&1
  echo "bigbin variants: exit $?"
fi
# The vendor's image peer, NVIDIA NPP's nppiHistogramEven (NPP=1), where NPP is installed.
if [ "${NPP:-0}" = 1 ]; then
  {
    npp_include=$(ls -d /usr/local/cuda/include/npp.h /usr/local/cuda/targets/*/include/npp.h 2>/dev/null | head -1)
    if [ -n "$npp_include" ]; then
      nvcc -O3 -arch=sm_90 -o build-gpu/npp_peer scripts/npp_peer.cu -lnppist -lnppc && build-gpu/npp_peer ${NPP_REPEATS:-50}
      echo "npp peer: exit $?"
    else
      echo "npp peer: NPP is not installed here (no npp.h under /usr/local/cuda); libraries found: $(find /usr /opt -name 'libnppist*' 2>/dev/null | head -3 | tr '\n' ' ')"
    fi
  } > "$out/npp_peer.txt" 2>&1
fi
# The per-lane kernel's instruction mix (SASS=1): what a counted sample costs in instructions.
# `partition`'s split for 32-bit keys (SASS=partition): the mix in the summary, the full listing
# in verify/split-sass.txt.
if [ "${SASS:-0}" = partition ]; then
  obj=$(find build-gpu -name 'PartitionKernels.cu.o' | head -1)
  cuobjdump -sass "$obj" 2>&1 | awk '/Function : .*splitKernelIjLi1ENS0_14IdentityMapper/{f=1} /Function : /&&!/splitKernelIjLi1ENS0_14IdentityMapper/{f=0} f' \
    > "$out/verify/split-sass.txt"
  python3 scripts/sass_mix.py < "$out/verify/split-sass.txt" >> "$out/verify/summary.txt" 2>&1
fi
if [ "${SASS:-0}" = 1 ]; then
  obj=$(find build-gpu -name 'PerLaneKernels.cu.o' | head -1)
  cuobjdump -sass "$obj" 2>&1 | python3 scripts/sass_mix.py >> "$out/verify/summary.txt" 2>&1
fi
cat "$out/verify/summary.txt" "$out/python/summary.txt"
[ -f "$out/facade.txt" ] && cat "$out/facade.txt"
[ -f "$out/u8_variants.txt" ] && cat "$out/u8_variants.txt"
[ -f "$out/npp_peer.txt" ] && cat "$out/npp_peer.txt"
[ -f "$out/bigbin_variants.txt" ] && cat "$out/bigbin_variants.txt"
