#!/usr/bin/env bash
# Every CPU test again under clang 14 with AddressSanitizer + UBSan + LeakSanitizer (the engine's,
# the CLI's, and the app's GUI tests under Xvfb), then every fuzz target briefly on the same
# objects. A second full build and five times the GUI tests' time: run it before merging changes to
# memory handling, parsers or the app, outside CI's budget.
#   scripts/run-sanitizers.sh [FUZZ_SECONDS_PER_TARGET (default 5)]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --sanitizers
jobs=$(nproc)

cmake --preset sanitize
cmake --build --preset sanitize -j "$jobs" --target test_engine test_cli test_app kx kx-runner kernel-explorer
ctest --preset sanitize -j "$jobs" -R '^test_(engine|cli|app):' -LE gpu

# Seeded from the repository's files, linked from the sanitizer build's objects.
scripts/fuzz.sh "${1:-5}" sanitize
