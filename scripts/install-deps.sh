#!/usr/bin/env bash
# Installs what HistoScope needs on Debian 12 or Ubuntu, skipping what is already there.
# CUDA is optional: with /usr/local/cuda present the CUDA backend is built too.
set -euo pipefail
packages=(build-essential cmake ninja-build pkg-config qt6-base-dev libopencv-dev
          gstreamer1.0-plugins-base gstreamer1.0-plugins-good xvfb xauth
          # The Python module and its tests (Debian's python3, not a pyenv one), the man pages and the .deb.
          python3-dev python3-numpy pybind11-dev python3-pytest python3-dask python3-distributed
          help2man dpkg-dev fakeroot)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "installing: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
