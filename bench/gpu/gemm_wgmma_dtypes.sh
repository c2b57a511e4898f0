#!/usr/bin/env bash
# A tuned gemm_wgmma config per dtype: for each dtype a sweep at 8192^3 over tile width (BN),
# m64 tiles per consumer (MT), stages, 2-block clusters and the consumers' schedule (only the
# configs valid for sm_90a), timed without baselines; then the four fastest re-timed in five
# interleaved rounds (--autotune 4), whose winner is printed as a <config/> line for
# templates/gemm_wgmma/preselected.xml. Writes OUTDIR/dtype_DTYPE.{csv,txt,err}.
# Usage: gemm_wgmma_dtypes.sh OUTDIR [DTYPE...]   (default: f16 bf16 tf32 e4m3 e5m2 i8; from the
# repository root; KX_SWEEP_SECONDS bounds each sweep, default 150)
set -uo pipefail
out=$1; shift
dtypes=("$@")
((${#dtypes[@]})) || dtypes=(f16 bf16 tf32 e4m3 e5m2 i8)
kx=${KX:-build/bin/kx}
mkdir -p "$out"
space=(--vary BN=128,256 --vary MT=1,2 --vary STAGES=3..6 --vary CLUSTER_M=1,2 --vary SCHEDULE=cooperative,pingpong)
for d in "${dtypes[@]}"; do
  # A sweep stopped by the time limit (SIGINT) keeps what it finished.
  timeout -s INT "${KX_SWEEP_SECONDS:-150}" $kx sweep gemm_wgmma --arch native --set dtype=$d --size M=8192,N=8192,K=8192 "${space[@]}" \
    --valid-only --reps 20 --warmup 5 --no-baseline -j 16 --autotune 4 --csv "$out/dtype_$d.csv" > "$out/dtype_$d.txt" 2> "$out/dtype_$d.err"
  # The winner's <config/> line goes to stderr with the autotune's report.
  echo "$d: $(grep -h -m1 '<config' "$out/dtype_$d.err" || echo "no winner (see dtype_$d.err)")"
done
