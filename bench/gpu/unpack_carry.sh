#!/usr/bin/env bash
# Copies the carried binaries (.carry/bin) into build/bin, decompressing the ones carried as
# NAME.xz: compressed, the app, kx, kx-runner and test_gpu take about 6 MiB instead of 28, which
# leaves room for .gl (about 35 MiB) within a carry limit of 64 MiB.
# Usage, from the repository root:  bench/gpu/unpack_carry.sh [CARRY_DIR]   (default .carry)
set -euo pipefail
carry=${1:-.carry}
mkdir -p build/bin
for f in "$carry"/bin/*; do
  case $f in
    *.xz) n=build/bin/$(basename "$f" .xz); xz -dc "$f" > "$n"; chmod +x "$n" ;;
    *) cp -f "$f" build/bin/ ;;
  esac
done
