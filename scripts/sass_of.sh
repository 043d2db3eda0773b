#!/usr/bin/env bash
# Compiles one kernel source for sm_90 alone and writes the SASS of the kernels whose mangled
# name matches a pattern, with their opcode mix (scripts/sass_mix.py): the instruction count of
# a hot loop, read without a whole build (issue 21, `packed`'s count).
# usage: scripts/sass_of.sh <source.cu> <name-regex> <out.txt>
set -euo pipefail
src=$1 pattern=$2 out=$3
root=$(cd "$(dirname "$0")/.." && pwd)
obj=$(mktemp --suffix=.o)
nvcc -I "$root/gpu/src" -I "$root/gpu/cuda" -I "$root/gpu/include" -I "$(dirname "$src")" -O3 -DNDEBUG \
  -arch=sm_90 --expt-relaxed-constexpr -std=c++17 -c "$src" -o "$obj"
cuobjdump -sass "$obj" | awk -v p="$pattern" '/Function : /{f = ($0 ~ p)} f' > "$out"
python3 "$root/scripts/sass_mix.py" < "$out"
rm -f "$obj"
