#!/usr/bin/env bash
# gemm_mma with B stored against B preshuffled into fragment order: at each shape one seeded sample
# of tiles x stages x Split-K x B format is swept, then the fastest passing config of each format
# runs against cuBLASLt, timed in the same process. Writes the sweeps' CSVs, the winners, JSON
# lines and a Markdown table to OUTDIR.
# Usage: gemm_preshuffle.sh OUTDIR [DTYPE]   (default f16; KX_SWEEP_SECONDS limits each sweep,
# default 90; KX_SWEEP_SAMPLE the sample size, default 300; KX_PRESHUFFLE_SHAPES the shapes)
set -uo pipefail
out=$1
dtype=${2:-f16}
kx=build/bin/kx
mkdir -p "$out"
keys=(BM BN BK WM WN STAGES SPLITK b_format B_PREFETCH)
: > "$out/preshuffle_runs.jsonl"
: > "$out/winners.txt"
for shape in ${KX_PRESHUFFLE_SHAPES:-M=4096,N=4096,K=4096 M=16,N=8192,K=8192 M=64,N=4096,K=4096 M=128,N=4096,K=4096}; do
  splits=1,2,3,4,6,8
  [[ $shape == M=4096* ]] && splits=1
  csv="$out/preshuffle_sweep_${shape//[=,]/_}.csv"
  timeout -s INT "${KX_SWEEP_SECONDS:-90}" $kx sweep gemm_mma --arch native --set dtype=$dtype --size "$shape" \
    --vary b_format=stored,preshuffled --vary BM=32,64,128 --vary BN=64,128,256 --vary WM=16,32,64,128 --vary WN=16,32,64 --vary B_PREFETCH=1,2,3 \
    --vary BK=32,64 --vary STAGES=3,4,6 --vary SPLITK=$splits \
    --valid-only --sample "${KX_SWEEP_SAMPLE:-300}" --seed 1 --reps 20 --no-baseline -j 16 --csv "$csv" > /dev/null 2> "$out/sweep.err"
  for format in stored preshuffled; do
    winner=$(python3 - "$csv" "$format" "${keys[@]}" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["status"] == "measured" and r["verdict"] == "PASS" and r["median_ms"]
        and r["b_format"] == sys.argv[2]]
print(",".join(f"{k}={min(rows, key=lambda r: float(r['median_ms']))[k]}" for k in sys.argv[3:]) if rows else "")
PY
)
    echo "$shape $format $winner" >> "$out/winners.txt"
    [[ -z $winner ]] && continue
    $kx run gemm_mma --arch native --set dtype=$dtype,$winner --size $shape --reps 50 --warmup 10 --json > /tmp/kx-one.json 2> /tmp/kx-one.err
    python3 bench/gpu/run_line.py /tmp/kx-one.json /tmp/kx-one.err "gemm_mma $shape" "$winner" >> "$out/preshuffle_runs.jsonl"
  done
done
python3 bench/gpu/summarize_templates.py "$out/preshuffle_runs.jsonl" > "$out/preshuffle.md"
cat "$out/winners.txt" "$out/preshuffle.md"
