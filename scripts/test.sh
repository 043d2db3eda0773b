#!/usr/bin/env bash
# One command: install what is missing, build, and run every test (GPU tests QSKIP without a device).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh -DHISTOSCOPE_WERROR=ON
cd build
QT_QPA_PLATFORM=offscreen ctest --output-on-failure --timeout 900
