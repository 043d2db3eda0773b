#!/usr/bin/env bash
# Builds a libFuzzer target with clang (ASan + UBSan) and runs it.
#   scripts/fuzz.sh [SECONDS] [TARGET]     SECONDS default 300; TARGET rawformat (default) or records
#   rawformat: the raw and .npy parsers and the image header reader (io/fuzz/fuzz_rawformat.cpp);
#              links the system Qt Core
#   records:   the record reader, JSON Lines and CSV, with a write/read round-trip of every
#              record it accepts (app/core/fuzz/fuzz_recordreader.cpp); links the system Qt Core
# Needs clang (apt-get install clang). Crashes land in build-fuzz/crash-*.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-300}
target=${2:-rawformat}
flags=(-std=c++20 -I. -Igpu/include -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined)
mkdir -p "build-fuzz/corpus-$target"
case "$target" in
rawformat)
  # The parsers' errors are common/Error.h values, so Qt Core comes along (not instrumented).
  clang++ "${flags[@]}" -fPIC $(pkg-config --cflags Qt6Core) io/fuzz/fuzz_rawformat.cpp io/RawFormat.cpp io/ImageHeader.cpp \
    $(pkg-config --libs Qt6Core) -o build-fuzz/fuzz_rawformat
  # A few valid .npy headers to start from.
  printf "\x93NUMPY\x01\x00\x76\x00{'descr': '<u2', 'fortran_order': False, 'shape': (2, 3), }%60s\n" "" > build-fuzz/corpus-$target/v1.npy
  printf "\x93NUMPY\x02\x00\x74\x00\x00\x00{'descr': '|u1', 'fortran_order': False, 'shape': (7,), }%55s\n" "" > build-fuzz/corpus-$target/v2.npy
  printf "\x93NUMPY\x03\x00\x74\x00\x00\x00{'descr': '>f8', 'fortran_order': True, 'shape': (1, 2, 3), }%45s\n" "" > build-fuzz/corpus-$target/v3.npy
  # And image headers for the header reader.
  c=build-fuzz/corpus-$target
  cp resources/samples/sample.png $c/
  printf 'II*\0\010\0\0\0\002\0\0\001\003\0\001\0\0\0\100\0\0\0\001\001\004\0\001\0\0\0\040\0\0\0\0\0\0\0' > $c/page.tif
  printf '\377\330\377\300\0\021\010\0\020\0\040\003\001\021\0\002\021\0\003\021\0\377\332\0\010\001\001\0\0\077\0\022\377\000\064\377\320\377\331' > $c/tiny.jpg
  printf 'P5\n# comment\n16 8\n65535\n' > $c/head.pgm
  printf '#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 8 +X 16\n' > $c/head.hdr
  ;;
records)
  # Qt's headers want position-independent code; Qt itself is not instrumented.
  clang++ "${flags[@]}" -fPIC $(pkg-config --cflags Qt6Core) app/core/fuzz/fuzz_recordreader.cpp \
    app/core/RecordCodec.cpp app/core/RecordReader.cpp app/core/CsvReader.cpp io/NativePath.cpp \
    gpu/src/HistogramStatistics.cpp gpu/src/HistogramTypes.cpp $(pkg-config --libs Qt6Core) -o build-fuzz/fuzz_records
  # Seeds in both encodings and both schema versions, as batch and the previous release wrote them.
  c=build-fuzz/corpus-$target
  printf '%s\n' '{"bins":4,"binning":"identity","channel":"R","counts":[1,2,0,9],"file":"a,\"b\".png","frame":3,"hi":4,"lo":0,"record":"histogram","schema":"histoscope.histogram/2","statistics":{"above":1,"below":0,"count":12,"nan":0}}' \
    '{"failed":0,"files":1,"frames":1,"record":"summary","records":1,"schema":"histoscope.histogram/2"}' > $c/v2.jsonl
  printf '%s\n' '{"bins":2,"channel":"gray","counts":[5,5],"file":"x","hi":2,"lo":0,"schema":"histoscope.histogram/1","statistics":{"above":0,"below":0,"count":10,"max":1,"nan":0}}' > $c/v1.jsonl
  printf 'schema,record,file,frame,channel,bins,lo,hi,binning,count,mean,std,median,min,max,below,above,nan,c0,c1\r\nhistoscope.histogram/2,histogram,"two\nlines, ""q""",,B,2,0,1,uniform,3,0.5,0,0.5,0,1,0,0,0,1,2\r\nhistoscope.histogram/2,summary,records=1;files=1;failed=0;frames=1,,,,,,,,,,,,,,,,,\r\n' > $c/v2.csv
  printf 'schema,file,frame,channel,bins,lo,hi,count,mean,std,median,min,max,below,above,nan,c0\nhistoscope.histogram/1,a.png,,gray,1,0,1,7,0,0,0,0,0,0,0,0,7\n' > $c/v1.csv
  ;;
*)
  echo "unknown target '$target' (rawformat or records)" >&2
  exit 2
  ;;
esac
cd build-fuzz
# Qt keeps some allocations for the process's life; they are not leaks of the code under test.
ASAN_OPTIONS=detect_leaks=0 "./fuzz_$target" -max_total_time="$seconds" -max_len=65536 -print_final_stats=1 "corpus-$target"
