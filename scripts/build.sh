#!/usr/bin/env bash
# Configures and builds into ./build. Finds nvcc in /usr/local/cuda when it is not on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
args=(-S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release)
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  args+=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
fi
# Without a GPU to run them, the kernels are built as PTX only (about a minute on 2 cores instead
# of machine code for five architectures); a machine with a GPU gets the full default set.
if [ -z "${HISTOSCOPE_CUDA_ARCHITECTURES:-}" ] && ! nvidia-smi -L >/dev/null 2>&1; then
  args+=(-DHISTOSCOPE_CUDA_ARCHITECTURES=75-virtual)
elif [ -n "${HISTOSCOPE_CUDA_ARCHITECTURES:-}" ]; then
  args+=(-DHISTOSCOPE_CUDA_ARCHITECTURES="$HISTOSCOPE_CUDA_ARCHITECTURES")
fi
cmake "${args[@]}" "$@"
cmake --build build --parallel "$(nproc)"
