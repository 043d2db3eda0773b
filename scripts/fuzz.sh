#!/usr/bin/env bash
# Builds the libFuzzer target for the raw and .npy parsers with clang and runs it.
#   scripts/fuzz.sh [SECONDS]      (default 300)
# Needs clang (apt-get install clang). Crashes land in build-fuzz/crash-*.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-300}
mkdir -p build-fuzz/corpus
clang++ -std=c++17 -I. -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  io/fuzz/fuzz_rawformat.cpp io/RawFormat.cpp -o build-fuzz/fuzz_rawformat
# A few valid .npy headers to start from.
printf "\x93NUMPY\x01\x00\x76\x00{'descr': '<u2', 'fortran_order': False, 'shape': (2, 3), }%60s\n" "" > build-fuzz/corpus/v1.npy
printf "\x93NUMPY\x02\x00\x74\x00\x00\x00{'descr': '|u1', 'fortran_order': False, 'shape': (7,), }%55s\n" "" > build-fuzz/corpus/v2.npy
printf "\x93NUMPY\x03\x00\x74\x00\x00\x00{'descr': '>f8', 'fortran_order': True, 'shape': (1, 2, 3), }%45s\n" "" > build-fuzz/corpus/v3.npy
cd build-fuzz
./fuzz_rawformat -max_total_time="$seconds" -print_final_stats=1 corpus
