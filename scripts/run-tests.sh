#!/usr/bin/env bash
# Sets up everything, builds once, and runs every test: the engine's and the CLI's, and the app's
# GUI tests under Xvfb. Tests tagged [gpu] need an NVIDIA GPU and driver; without one they are
# skipped, and this script says so. The same tests under AddressSanitizer + UBSan + LeakSanitizer,
# and the fuzz targets, are scripts/run-sanitizers.sh (a second full build: outside CI's 30
# minutes on two cores).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh

jobs=$(nproc)
if [[ -e /dev/nvidia0 ]] || ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; then
  have_gpu=1
  cub_architectures="80-real;90-real;100-real;120-real;75-virtual"
else
  have_gpu=0
  # The CUB baselines cannot run without a GPU: build them for one architecture, which still
  # compiles every one of them (nvcc's time grows with each architecture added).
  cub_architectures="80-real"
fi
cmake --preset default -DKX_CUB_ARCHITECTURES="$cub_architectures"
cmake --build --preset default -j "$jobs"

if (( have_gpu )); then
  ctest --preset default -j "$jobs"
else
  echo "No NVIDIA GPU/driver here: skipping the [gpu] tests (run them on a GPU machine, see README)."
  ctest --preset default -j "$jobs" -LE gpu
fi
