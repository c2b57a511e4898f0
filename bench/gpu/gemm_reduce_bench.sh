#!/usr/bin/env bash
# The issue-3 benchmark, in one process tree on one GPU: calibrate, then GEMM at 4096^3 (fp16 and
# fp32; the default config and a set of candidates, each against cuBLAS timed in the same run),
# and the reduction against device copy bandwidth. Writes JSON lines and a Markdown summary.
# Usage: gemm_reduce_bench.sh OUTDIR
set -uo pipefail
out=$1
kx=build/bin/kx
size="M=4096,N=4096,K=4096"
$kx calibrate --json > "$out/calibration.json" || exit 1
: > "$out/runs.jsonl"
run() {  # template, label, sets..., then --size
  local t=$1 label=$2; shift 2
  if $kx run "$t" --arch native "$@" --reps 30 --warmup 5 --json > /tmp/kx-one.json; then :; fi
  python3 - /tmp/kx-one.json "$label" >> "$out/runs.jsonl" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); r["label"] = sys.argv[2]; print(json.dumps(r))
PY
}
for dtype in f16 f32; do
  vec=8; [[ $dtype == f32 ]] && vec=4
  run gemm "default $dtype" --set dtype=$dtype,VEC=$vec --size $size
  for cfg in "BM=128,BN=128,BK=16,WM=64,WN=32,TM=8,TN=8,STAGES=3" \
             "BM=128,BN=128,BK=32,WM=64,WN=32,TM=8,TN=8,STAGES=3" \
             "BM=128,BN=256,BK=16,WM=64,WN=64,TM=8,TN=16,STAGES=2" \
             "BM=256,BN=128,BK=16,WM=64,WN=64,TM=16,TN=8,STAGES=2" \
             "BM=128,BN=64,BK=32,WM=32,WN=64,TM=8,TN=8,STAGES=3" \
             "BM=64,BN=128,BK=32,WM=32,WN=64,TM=8,TN=8,STAGES=4" \
             "BM=128,BN=128,BK=16,WM=32,WN=64,TM=8,TN=8,STAGES=4" \
             "BM=64,BN=64,BK=32,WM=32,WN=32,TM=4,TN=8,STAGES=3" ; do
    run gemm "$dtype $cfg" --set dtype=$dtype,VEC=$vec,$cfg --size $size
  done
done
run reduce "reduce default f32 sum" --size n=268435456
for cfg in "BLOCK=256,ITEMS=8,VEC=4" "BLOCK=512,ITEMS=4,VEC=4" "BLOCK=1024,ITEMS=2,VEC=4" "BLOCK=128,ITEMS=16,VEC=4"; do
  run reduce "reduce f32 sum $cfg" --set $cfg --size n=268435456
done
run reduce "reduce f16 sum" --set dtype=f16,VEC=8 --size n=268435456
python3 bench/gpu/summarize.py "$out/calibration.json" "$out/runs.jsonl" > "$out/summary.md"
cat "$out/summary.md"
