#!/usr/bin/env bash
# gemm_wgmma in every layout (A and B each k-major or mn-major), f16 and bf16, at 4096^3 and
# 8192^3, each against cuBLASLt in the same layout, timed in the same run.
# Usage: gemm_wgmma_layouts.sh OUTDIR   (from the repository root, after building)
set -uo pipefail
out=$1; mkdir -p "$out"; : > "$out/template_runs.jsonl"
for size in 4096 8192; do
  for dtype in f16 bf16; do
    for layout in rcr rrr crr ccr; do
      build/bin/kx run gemm_wgmma --arch native --set "dtype=$dtype,layout=$layout" --size "M=$size,N=$size,K=$size" \
        --reps 30 --warmup 5 --json > /tmp/kx-one.json 2> /tmp/kx-one.err
      python3 bench/gpu/run_line.py /tmp/kx-one.json /tmp/kx-one.err gemm_wgmma "$dtype $layout ${size}^3" >> "$out/template_runs.jsonl"
    done
  done
done
python3 bench/gpu/summarize_templates.py "$out/template_runs.jsonl" > "$out/templates.md"
