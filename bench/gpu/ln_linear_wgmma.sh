#!/usr/bin/env bash
# LayerNorm + Linear on Hopper: the GPU tests of ln_linear_wgmma, then its configs, the mma.sync
# ln_linear and gemm_wgmma (the GEMM alone, same shape) against the unfused pair (LayerNorm
# kernel + cuBLAS) timed in the same process.
# Usage (repository root, binaries carried): bench/gpu/ln_linear_wgmma.sh OUTDIR [CONFIG...]
# KX_SIZE=M=32768,N=128,K=4096 runs the configs at that problem instead of the default (the
# comparisons after them stay at theirs); KX_SKIP_TESTS=1 leaves the GPU tests out.
set -u
out=${1:?OUTDIR}; shift
mkdir -p "$out"
if [[ -z ${KX_SKIP_TESTS:-} ]]; then
  KX_GPU_TEMPLATES=ln_linear_wgmma timeout 240 build/bin/test_gpu \
    "every template's default config*,every parameter value*,every combination*,every preset of every template*" > "$out/test_gpu_ln_linear_wgmma.txt" 2>&1
  echo "test_gpu rc=$?: $(tail -2 "$out/test_gpu_ln_linear_wgmma.txt" | head -1)"
fi
runs="$out/ln_linear_wgmma_runs.jsonl"
run() {  # template label [kx options...]
  local t=$1 label=$2; shift 2
  timeout 120 kx run "$t" --arch native --reps 50 --warmup 10 --json "$@" > /tmp/r.json 2> /tmp/r.err
  python3 bench/gpu/run_line.py /tmp/r.json /tmp/r.err "$t" "$label" | tee -a "$runs" | python3 bench/gpu/ln_linear_line.py
}
configs=("$@")
[[ ${#configs[@]} -eq 0 ]] && configs=("BN=256" "STAGES=3" "STAGES=2" "BN=128" "BN=128,STAGES=6" "BN=128,STAGES=4" "PERSISTENT=0" "GROUP_M=16" "GROUP_M=4" "dtype=bf16")
size=()
[[ -n ${KX_SIZE:-} ]] && size=(--size "$KX_SIZE")
for cfg in "${configs[@]}"; do run ln_linear_wgmma "$cfg${KX_SIZE:+ at $KX_SIZE}" --set "$cfg" "${size[@]}"; done
[[ -n ${KX_SIZE:-} ]] && exit 0
run ln_linear_wgmma "4096^3" --size M=4096,N=4096,K=4096
run ln_linear default
run gemm_wgmma "16384x4096x4096" --size M=16384,N=4096,K=4096
run ln_linear_wgmma "again: default" --set BN=256
