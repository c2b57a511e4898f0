#!/usr/bin/env bash
# Sets up everything, builds, and runs every test: the default build's whole suite (GUI tests
# under Xvfb included), then the engine and CLI tests again under AddressSanitizer + UBSan.
# Tests tagged [gpu] need an NVIDIA GPU and driver; without one they are skipped, and this
# script says so.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh

jobs=$(nproc)
cmake --preset default
cmake --build --preset default -j "$jobs"

if [[ -e /dev/nvidia0 ]] || ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; then
  ctest --preset default -j "$jobs"
else
  echo "No NVIDIA GPU/driver here: skipping the [gpu] tests (run them on a GPU machine, see README)."
  ctest --preset default -j "$jobs" -LE gpu
fi

# The sanitizer pass: engine and CLI. The preset also builds the app, but its GUI tests do not
# pass under LeakSanitizer yet (leaks attributed to an unloaded Mesa driver; README "Sanitizers").
cmake --preset sanitize
cmake --build --preset sanitize -j "$jobs" --target test_engine test_cli kx kx-runner
ctest --preset sanitize -j "$jobs" -R '^test_(engine|cli):' -LE gpu

# Every fuzz target briefly (clang 14 + ASan + UBSan, seeded from the repository's files).
scripts/fuzz.sh 5
