#!/usr/bin/env bash
# Sets up everything, builds, and runs every test: the default build's suite but the GUI tests,
# then every CPU test under AddressSanitizer + UBSan + LeakSanitizer, the app's GUI tests under
# Xvfb included, and every fuzz target briefly on the sanitizer build's objects.
# Tests tagged [gpu] need an NVIDIA GPU and driver; without one they are skipped, and this
# script says so.
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

# The app's GUI tests (test_app, under Xvfb) run once, in the sanitizer pass below: they are
# two thirds of a pass's time on two cores, and the sanitizer build checks more of each run.
if (( have_gpu )); then
  ctest --preset default -j "$jobs" -E '^test_app:'
else
  echo "No NVIDIA GPU/driver here: skipping the [gpu] tests (run them on a GPU machine, see README)."
  ctest --preset default -j "$jobs" -LE gpu -E '^test_app:'
fi

# The sanitizer pass (clang 14, ASan + UBSan + LeakSanitizer): every CPU test again, and the GUI
# tests under Xvfb.
cmake --preset sanitize
cmake --build --preset sanitize -j "$jobs" --target test_engine test_cli test_app kx kx-runner kernel-explorer
ctest --preset sanitize -j "$jobs" -R '^test_(engine|cli|app):' -LE gpu

# Every fuzz target briefly (ASan + UBSan, seeded from the repository's files), linked from the
# sanitizer build's objects.
scripts/fuzz.sh 5 sanitize
