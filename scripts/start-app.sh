#!/usr/bin/env bash
# Sets up everything Kernel Explorer needs, builds it and starts the app. Extra arguments go to
# the app (e.g. --screenshot shot.png).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset default >/dev/null
cmake --build --preset default
exec build/bin/kernel-explorer "$@"
