#!/usr/bin/env bash
# Skinny GEMMs (M = 16 ... 128 rows, N = K = 4096 and 8192; a decode step's projections) with
# Split-K, on gemm_mma (mma.sync) or gemm_wgmma (wgmma + TMA): at each shape a seeded sample of
# tiles x stages x Split-K is swept, and the default and the sweep's fastest passing config then
# run against cuBLASLt, timed in the same process. Writes the sweeps' CSVs, the winners, JSON
# lines and a Markdown table to OUTDIR.
# Usage: gemm_skinny.sh OUTDIR [DTYPE] [TEMPLATE]   (default f16 and gemm_mma; KX_SWEEP_SECONDS
# limits each sweep, KX_SWEEP_SAMPLE sets the sample size, default 400; KX_SKINNY_SHAPES the
# shapes, default all six)
set -uo pipefail
out=$1
dtype=${2:-f16}
template=${3:-gemm_mma}
kx=build/bin/kx
mkdir -p "$out"
if [[ $template == gemm_wgmma ]]; then
  # A and B swapped, so that M is the wgmma's narrow N (16 to 128) and N its 64-row side.
  keys=(SWAP_AB STORE BN CONSUMERS MT CLUSTER_M STAGES SPLITK)
  space=(--vary SWAP_AB=1 --vary STORE=direct --vary BN=16,32,64,128 --vary CONSUMERS=1,2 --vary MT=1,2 --vary CLUSTER_M=1,2 --vary STAGES=4,8,12 --vary SPLITK=1,2,3,4,6,8)
else
  keys=(BM BN BK WM WN STAGES SPLITK)
  space=(--vary BM=32,64,128 --vary WM=32,64 --vary BN=64,128,256 --vary WN=32,64 --vary BK=32,64 --vary STAGES=3,4,6 --vary SPLITK=1,2,3,4,6,8,16)
fi
best() {  # the sweep CSV's fastest passing config, as KEY=VALUE,...
  python3 bench/gpu/sweep_best.py "$1" "${keys[@]}"
}
: > "$out/skinny_runs.jsonl"
: > "$out/winners.txt"
for shape in ${KX_SKINNY_SHAPES:-M=16,N=4096,K=4096 M=64,N=4096,K=4096 M=128,N=4096,K=4096 M=16,N=8192,K=8192 M=64,N=8192,K=8192 M=128,N=8192,K=8192}; do
  csv="$out/skinny_sweep_${shape//[=,]/_}.csv"
  # A sweep stopped by the time limit (SIGINT) keeps the configs it finished.
  timeout -s INT "${KX_SWEEP_SECONDS:-600}" $kx sweep $template --arch native --set dtype=$dtype --size "$shape" "${space[@]}" \
    --valid-only --sample "${KX_SWEEP_SAMPLE:-400}" --seed 1 --reps 20 --no-baseline -j 16 --csv "$csv" > /dev/null 2> "$out/sweep.err"
  winner=$(best "$csv")
  echo "$shape $winner" >> "$out/winners.txt"
  for cfg in "" "$winner"; do
    $kx run $template --arch native --set dtype=$dtype${cfg:+,$cfg} --size $shape --reps 50 --warmup 10 --json > /tmp/kx-one.json 2> /tmp/kx-one.err
    python3 bench/gpu/run_line.py /tmp/kx-one.json /tmp/kx-one.err "$template $shape" "${cfg:-default}" >> "$out/skinny_runs.jsonl"
  done
done
python3 bench/gpu/summarize_templates.py "$out/skinny_runs.jsonl" > "$out/skinny.md"
cat "$out/skinny.md"
