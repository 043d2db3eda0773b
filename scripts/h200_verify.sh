#!/usr/bin/env bash
# One call on the GPU machine: build the engine and benchmark (CUDA toolkit + CMake only),
# check every strategy exactly, run compute-sanitizer memcheck and racecheck, then benchmark.
# Writes its logs and a summary under $OUT (or ./h200-out when OUT is unset).
set -uo pipefail
out=${OUT:-h200-out}
mkdir -p "$out"
archs=${HISTOSCOPE_CUDA_ARCHITECTURES:-90-real}
summary="$out/summary.txt"
# Seconds per step go into the summary, so the next call can be planned inside its lease.
last=$SECONDS
stamp() { echo "time: $1 $((SECONDS - last)) s" >> "$summary"; last=$SECONDS; }
{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "commit: ${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"  # COMMIT: the tree the device tool copied
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
  nvcc --version | tail -1
} > "$summary"

cmake -S . -B build-gpu -G Ninja -DHISTOSCOPE_ENGINE_ONLY=ON -DBUILD_TESTING=OFF \
  -DHISTOSCOPE_CUDA_ARCHITECTURES="$archs" > "$out/build.log" 2>&1 &&
  cmake --build build-gpu >> "$out/build.log" 2>&1 || { echo "build: FAILED" >> "$summary"; tail -50 "$out/build.log"; exit 1; }
echo "build: ok ($archs)" >> "$summary"
stamp build
bench=build-gpu/bench/histoscope-bench

# SKIP_SELFCHECK=1 (A/B runs only): the benchmark still checks every cell it times.
if [ "${SKIP_SELFCHECK:-0}" = 1 ]; then
  echo "selfcheck: skipped (SKIP_SELFCHECK=1)" >> "$summary"
else
  "$bench" selfcheck ${SELFCHECK_ARGS:---big} > "$out/selfcheck.log" 2>&1
  grep -E "^(engine|selfcheck|big-bin)" "$out/selfcheck.log" >> "$summary"
  grep -m 20 FAIL "$out/selfcheck.log" >> "$summary"
  stamp selfcheck
fi

san_filter=${SANITIZE_FILTER:-equalize,type-,long-rows-u16,long-rows-f32,roi-x3,float-specials-f16-7,channels-3-only,channels-4-no-alpha,channels-4-u8,bins-65536-u16,dist-hot90-u8,size-1x1,stride-odd,extremes-}
[ "${SKIP_SANITIZE:-0}" = 1 ] && echo "compute-sanitizer: skipped (SKIP_SANITIZE=1)" >> "$summary"
for tool in $( [ "${SKIP_SANITIZE:-0}" = 1 ] || echo memcheck racecheck); do
  compute-sanitizer --tool $tool --error-exitcode 3 "$bench" selfcheck --filter "$san_filter" > "$out/sanitize-$tool.log" 2>&1
  rc=$?
  echo "compute-sanitizer $tool: exit $rc; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitize-$tool.log" | tail -1); $(grep -E '^selfcheck:' "$out/sanitize-$tool.log")" >> "$summary"
  stamp "$tool"
done

# The self-check and both sanitizers again under a tuning override (SELFCHECK_ENV, space-separated
# passes, '+' joins settings of one pass), for a kernel variant that the shipped rule takes only
# on some inputs (HISTOSCOPE_TUNE_PARTITION_RUNS=0: `partition`'s split without warp runs on
# every case).
for setting in ${SELFCHECK_ENV:-}; do
  name=$(echo "$setting" | sed 's/HISTOSCOPE_TUNE_//g' | tr -c 'A-Za-z0-9=.+\n' '_' | tr '=' '-')
  settings=$(echo "$setting" | tr '+' ' ')
  env $settings "$bench" selfcheck ${SELFCHECK_ARGS:---big} > "$out/selfcheck-$name.log" 2>&1
  echo "selfcheck $setting: exit $?; $(grep -E '^selfcheck:' "$out/selfcheck-$name.log")" >> "$summary"
  grep -m 20 FAIL "$out/selfcheck-$name.log" >> "$summary"
  for tool in $( [ "${SKIP_SANITIZE:-0}" = 1 ] || echo memcheck racecheck); do
    env $settings compute-sanitizer --tool $tool --error-exitcode 3 "$bench" selfcheck --filter "$san_filter" > "$out/sanitize-$tool-$name.log" 2>&1
    rc=$?
    echo "compute-sanitizer $tool $setting: exit $rc; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitize-$tool-$name.log" | tail -1); $(grep -E '^selfcheck:' "$out/sanitize-$tool-$name.log")" >> "$summary"
  done
  stamp "selfcheck $setting"
done

# The SASS of `partition`'s split for 32-bit keys (SASS_SPLIT=1): each instance's opcode mix in the
# summary (scripts/sass_mix.py), its shared atomics with their modifiers (an aggregating
# ATOMS.POPC.INC and a plain ATOMS.ADD are one opcode to the mix), the listings in split-sass.txt.
if [ "${SASS_SPLIT:-0}" = 1 ]; then
  obj=$(find build-gpu -name 'PartitionKernels.cu.o' | head -1)
  if [ -n "$obj" ] && cuobjdump -sass "$obj" > "$out/partition-sass.txt" 2>&1; then
    awk '/Function : /{f = ($0 ~ /splitKernelIjLi1ENS0_14IdentityMapper/)} f' "$out/partition-sass.txt" > "$out/split-sass.txt"
    python3 scripts/sass_mix.py < "$out/split-sass.txt" >> "$summary" 2>&1
    # Per instance (warp runs: ...Lb1, without: ...Lb0), each shared atomic's full opcode and count.
    awk '/Function : /{k = (match($0, /Lb[01]/) ? substr($0, RSTART, 3) : "?")}
         /ATOMS/{match($0, /ATOMS[.A-Z0-9]*/); n[k ": " substr($0, RSTART, RLENGTH)]++}
         END {for (x in n) print "sass atoms: " x " " n[x]}' "$out/split-sass.txt" | sort >> "$summary"
    echo "sass split: $(grep -c 'Function : ' "$out/split-sass.txt") instances" >> "$summary"
  else
    echo "sass split: FAILED (no PartitionKernels object, or cuobjdump failed)" >> "$summary"
  fi
  rm -f "$out/partition-sass.txt"
fi

# A real GPU fault (the test hook's out-of-bounds kernel), then every engine's recovery: after
# the sanitizers, since the fault is on purpose.
if [ "${SKIP_FAULT:-0}" != 1 ]; then
  "$bench" fault > "$out/fault.log" 2>&1
  echo "fault: exit $?; $(grep -E '^fault check:' "$out/fault.log" | tail -1)" >> "$summary"
  grep -E '^FAIL|rebuilt engine on' "$out/fault.log" | head -10 >> "$summary"
  # The device after the faulted process has ended: a new process counts on it exactly.
  "$bench" selfcheck --filter dist- > "$out/after-fault.log" 2>&1
  echo "after the fault, a new process: exit $?; $(grep -E '^(engine|selfcheck):' "$out/after-fault.log" | tr '\n' ' ')" >> "$summary"
  nvidia-smi --query-gpu=compute_mode --format=csv,noheader | sed 's/^/compute mode: /' >> "$summary"
  stamp fault
fi

# The scopes' check (the 8K parade with every strategy included), benchmark and sanitizers
# (SCOPES=1), on this build.
if [ "${SCOPES:-0}" = 1 ]; then
  OUT="$out/scopes" BUILD_DIR=build-gpu bash bench/scopes_h200.sh > "$out/scopes.log" 2>&1
  echo "scopes: exit $?" >> "$summary"
  grep -E "scopes check:|memcheck exit|racecheck exit|check exit|bench exit|FAIL" "$out/scopes.log" | head -20 >> "$summary"
  stamp scopes
fi

# Optional tuning sweep: TUNE_THREADS="256 512 1024" reruns part of the matrix per block size.
for t in ${TUNE_THREADS:-}; do
  HISTOSCOPE_TUNE_THREADS=$t "$bench" run --csv "$out/tune-$t.csv" --repeats 10 --only "${TUNE_ONLY:-keys16M}" > "$out/tune-$t.log" 2>&1
  echo "tune threads=$t: exit $?" >> "$summary"
done

# Optional tuning A/B: TUNE_ENV="HISTOSCOPE_TUNE_PARTITION_WORDS=2 HISTOSCOPE_TUNE_PARTITION_WORDS=4"
# reruns part of the matrix (TUNE_ONLY, TUNE_BINS: one or more bin counts, comma-separated) once
# per setting; '+' joins settings of one pass (A=1+B=2).
for setting in ${TUNE_ENV:-}; do
  name=$(echo "$setting" | sed 's/HISTOSCOPE_TUNE_//g' | tr -c 'A-Za-z0-9=.+\n' '_' | tr '=' '-')
  env $(echo "$setting" | tr '+' ' ') "$bench" run --csv "$out/tune-$name.csv" --repeats 10 --only "${TUNE_ONLY:-keys16M}" \
    ${TUNE_BINS:+--bins $TUNE_BINS} ${TUNE_STRATEGIES:+--strategies $TUNE_STRATEGIES} > "$out/tune-$name.log" 2>&1
  echo "tune $setting: exit $?" >> "$summary"
done

# Nsight Compute evidence (NCU=1): the per-lane 8-bit kernel on a 4K RGB frame and a 64 MiB byte
# stream, and one huge-bin case (the hot cache at one million Zipf bins); NCU_SET=big swaps the
# 8-bit kernels for the big-bin tiles, NCU_SET=partition for `partition`'s two passes, and
# NCU_SET=packed for `packed`'s count and sum, NCU_SET=all takes them all.
if [ "${NCU:-0}" = 1 ]; then
  metrics=gpu__time_duration.sum,smsp__inst_executed.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed_op_global_red.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,smsp__inst_executed_op_shared_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__shared_mem_per_block_dynamic,launch__occupancy_limit_shared_mem,lts__t_sectors_op_red.sum,lts__t_sectors_op_atom.sum
  ncu_run() {  # name kernel-regex bench-args... (NCU_LAUNCHES="skip count" picks the launches)
    local name=$1 kernel=$2; shift 2
    local launches=(${NCU_LAUNCHES:-3 1})
    # NCU_EXTRA adds sections (e.g. "--section WarpStateStats --section SchedulerStats": stall reasons).
    # NCU_ENV: settings for the profiled process (e.g. a HISTOSCOPE_TUNE_ override), '+'-joined.
    env $(echo "${NCU_ENV:-}" | tr '+' ' ') ncu --clock-control none -k regex:$kernel --launch-skip ${launches[0]} --launch-count ${launches[1]:-1} --metrics $metrics \
      ${NCU_EXTRA:-} \
      "$bench" run --repeats 2 --csv "$out/ncu-$name.csv" "$@" > "$out/ncu-$name.txt" 2>&1
    echo "ncu $name: exit $?" >> "$summary"
  }
  set_=${NCU_SET:-u8}
  if [ "$set_" = u8 ] || [ "$set_" = all ]; then
    ncu_run per-lane-rgb4k perLaneKernel --only rgb4k/noise --strategies per-lane
    ncu_run per-lane-bytes64M perLaneKernel --only bytes64M/noise --strategies per-lane
    ncu_run shared-rgb4k privatizedKernel --only rgb4k/noise --strategies shared
  fi
  [ "$set_" != partition ] && ncu_run hot-cache-1M hotCacheKernel --only keys16M/zipf --bins 1000000 --strategies large-bins
  # The big-bin tiles (NCU_SET=big or all): where a tile's time goes between the read, the
  # shared atomics and the merge's 64-bit global atomics (lts__t_sectors_op_red).
  if [ "$set_" = big ] || [ "$set_" = all ]; then
    # Both tiles of the second run at 65,536 bins (58,112 + 7,427 slots), all three for tokens.
    NCU_LAUNCHES="2 2" ncu_run replicated-65536 privatizedKernel --only keys16M/uniform --bins 65536 --strategies replicated
    NCU_LAUNCHES="2 2" ncu_run replicated-gray16 privatizedKernel --only gray16/noise --strategies replicated
    NCU_LAUNCHES="3 3" ncu_run replicated-tokens privatizedKernel --only tokens128K/zipf --strategies replicated
  fi
  # `partition`: the split (read, rank, write of 16-bit places) and the bucket count, second call.
  if [ "$set_" = partition ] || [ "$set_" = all ]; then
    NCU_LAUNCHES="2 2" ncu_run partition-1M 'splitKernel|bucketCountKernel' --only keys16M/uniform --bins 1000000 --strategies partition
    NCU_LAUNCHES="2 2" ncu_run partition-gray16 'splitKernel|bucketCountKernel' --only gray16/noise --strategies partition
    # `auto`'s partition, as the matrix's 1 M cell runs it (after its skew sample).
    NCU_LAUNCHES="2 2" ncu_run partition-1M-auto 'splitKernel|bucketCountKernel' --only keys16M/uniform --bins 1000000 --strategies auto
  fi
  # `packed`: the count (read, 16-bit shared updates, settles, the row's store) and the rows' sum.
  if [ "$set_" = packed ] || [ "$set_" = all ]; then
    NCU_LAUNCHES="2 2" ncu_run packed-65536 'packedKernel|packedReduceKernel' --only keys16M/uniform --bins 65536 --strategies packed
    NCU_LAUNCHES="2 2" ncu_run packed-100000 'packedKernel|packedReduceKernel' --only keys16M/uniform --bins 100000 --strategies packed
    NCU_LAUNCHES="2 2" ncu_run packed-gray16 'packedKernel|packedReduceKernel' --only gray16/noise --strategies packed
    # Two passes a call (131,072 ids): the second call's first pass, its count and sum.
    NCU_LAUNCHES="4 2" ncu_run packed-tokens 'packedKernel|packedReduceKernel' --only tokens128K/zipf --strategies packed
  fi
  stamp ncu
fi

if [ "${SKIP_BENCH:-0}" != 1 ]; then
  "$bench" run --csv "$out/bench.csv" --repeats ${REPEATS:-20} ${BENCH_ARGS:-} > "$out/bench.log" 2>&1
  echo "benchmark: exit $?; $(grep -E '^benchmark:' "$out/bench.log")" >> "$summary"
  stamp benchmark
fi
# Peers a user would pick instead (PEERS=1): torch.bincount and cupy.bincount on the same keys,
# checked equal to our counts first (bench/peers.py).
if [ "${PEERS:-0}" = 1 ]; then
  python3 bench/peers.py --bench "$bench" --out "$out/peers.csv" --repeats ${PEERS_REPEATS:-20} > "$out/peers.log" 2>&1
  echo "peers: exit $?; $(tail -1 "$out/peers.log")" >> "$summary"
  stamp peers
fi
# The tuning passes side by side with the benchmark, one line a cell (scripts/tune_table.py).
if [ -n "${TUNE_ENV:-}" ]; then
  python3 scripts/tune_table.py $(ls "$out"/tune-*.csv) $( [ -f "$out/bench.csv" ] && echo "$out/bench.csv") > "$out/tune-table.md" 2>&1
fi
# At most 8 files come back from the machine: the logs travel as one archive.
(cd "$out" && tar czf logs.tar.gz --remove-files $(ls | grep -vE '^(summary.txt|bench.csv|bench.log|bench-sweep.svg|peers.csv|peers.log|tune-table.md|logs.tar.gz)$'))
cat "$summary"
if [ -f "$out/bench.log" ]; then cat "$out/bench.log"; fi
