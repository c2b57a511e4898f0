#!/usr/bin/env bash
# gemm_wgmma's schedules: one block per tile against persistent blocks, the cooperative consumers
# against pingpong, single blocks against 2-block clusters that multicast B, direct against staged
# epilogue stores, swept over tile shape, stages and raster group at 4096^3 (f16); then the
# default, three fixed candidates and the sweep's fastest passing config against cuBLASLt, timed
# in the same process, for f16 and bf16 at 4096^3 and 8192^3. Writes the sweep's CSV, the
# winner, JSON lines and a Markdown table to OUTDIR.
# Usage: gemm_wgmma_schedules.sh OUTDIR   (KX_SWEEP_SECONDS limits the sweep, default 300)
set -uo pipefail
out=$1
kx=build/bin/kx
mkdir -p "$out"
space=(--vary PERSISTENT=0,1 --vary SCHEDULE=cooperative,pingpong --vary BN=128,256 --vary MT=1,2 --vary STAGES=3,4,5,6 --vary GROUP_M=4,8,16 --vary CLUSTER_M=1,2 --vary STORE=direct,staged)
csv="$out/wgmma_schedule_sweep.csv"
# A sweep stopped by the time limit (SIGINT) keeps the configs it finished.
timeout -s INT "${KX_SWEEP_SECONDS:-300}" $kx sweep gemm_wgmma --arch native --size M=4096,N=4096,K=4096 "${space[@]}" \
  --valid-only --reps 30 --warmup 5 --no-baseline -j 16 --csv "$csv" > /dev/null 2> "$out/sweep.err"
winner=$(python3 bench/gpu/sweep_best.py "$csv" PERSISTENT SCHEDULE BN MT STAGES GROUP_M CLUSTER_M STORE)
echo "$winner" > "$out/winner.txt"
: > "$out/schedule_runs.jsonl"
for dtype in f16 bf16; do
  for size in 4096 8192; do
    for cfg in "" "PERSISTENT=0" "CLUSTER_M=2" "STORE=direct" "$winner"; do
      $kx run gemm_wgmma --arch native --set dtype=$dtype${cfg:+,$cfg} --size M=$size,N=$size,K=$size --reps 50 --warmup 10 --json \
        > /tmp/kx-one.json 2> /tmp/kx-one.err
      python3 bench/gpu/run_line.py /tmp/kx-one.json /tmp/kx-one.err "gemm_wgmma $dtype $size^3" "${cfg:-default}" >> "$out/schedule_runs.jsonl"
    done
  done
done
python3 bench/gpu/summarize_templates.py "$out/schedule_runs.jsonl" > "$out/schedules.md"
cat "$out/schedules.md"
