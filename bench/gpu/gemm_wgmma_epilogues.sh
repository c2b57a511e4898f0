#!/usr/bin/env bash
# gemm_wgmma: the default and its fused epilogues (bias, activations, a residual, scaling), each
# against cuBLASLt with as much of the epilogue as it fuses, timed in the same run.
# Usage: gemm_wgmma_epilogues.sh OUTDIR   (from the repository root, after building)
set -uo pipefail
out=$1; mkdir -p "$out"; : > "$out/template_runs.jsonl"
for cfg in "" "epilogue=relu,d0=bias" "epilogue=gelu_tanh,d0=bias" "epilogue=gelu_erf,d0=bias" "epilogue=silu,d0=residual" \
           "d0=residual,scale=scaled" "dtype=bf16,epilogue=gelu_tanh,d0=residual" "dtype=e4m3,epilogue=relu,d0=bias"; do
  label=${cfg:-default}; set_arg=(); [[ -n $cfg ]] && set_arg=(--set "$cfg")
  build/bin/kx run gemm_wgmma --arch native "${set_arg[@]}" --reps 30 --warmup 5 --json > /tmp/kx-one.json 2> /tmp/kx-one.err
  python3 bench/gpu/run_line.py /tmp/kx-one.json /tmp/kx-one.err gemm_wgmma "$label" >> "$out/template_runs.jsonl"
done
python3 bench/gpu/summarize_templates.py "$out/template_runs.jsonl" > "$out/templates.md"
