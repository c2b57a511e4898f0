#!/usr/bin/env bash
# The matmul ladder on the GPU: every rung of templates/matmul_ladder at 4096^3 (fp32), each run
# checked against float64 and cuBLAS, timed with CUDA events (warm-up, then the median) against
# cuBLAS fp32 timed in the same process. Then the tensor-core rungs the ladder tutorial goes on
# to (gemm f32 with a cp.async pipeline, gemm_mma, gemm_wgmma), each against its own cuBLAS.
#
#   bench/gpu/ladder_bench.sh OUTDIR [SIZE]
#
# Writes OUTDIR/ladder.md (rung, GFLOP/s, % of cuBLAS in the same run) and OUTDIR/ladder_runs.jsonl
# (kx run --json of every rung). Needs build/bin/kx (or .carry/bin/kx) and an NVIDIA GPU.
set -euo pipefail
out=${1:?usage: bench/gpu/ladder_bench.sh OUTDIR [SIZE]}
size=${2:-4096}
here=$(cd "$(dirname "$0")/../.." && pwd)
kx=$here/build/bin/kx
[ -x "$kx" ] || kx=$here/.carry/bin/kx
[ -x "$kx" ] || { echo "ladder_bench: no kx binary (build/bin/kx or .carry/bin/kx)" >&2; exit 2; }
mkdir -p "$out"
jsonl=$out/ladder_runs.jsonl
: > "$jsonl"

# rung label | template | --set
rungs=(
  "naive|matmul_ladder|STAGE=naive"
  "coalesced|matmul_ladder|STAGE=coalesced"
  "smem_tiles|matmul_ladder|STAGE=smem_tiles"
  "regtile_1d|matmul_ladder|STAGE=regtile_1d"
  "regtile_2d|matmul_ladder|STAGE=regtile_2d"
  "vectorised|matmul_ladder|STAGE=vectorised"
  "warptile|matmul_ladder|STAGE=warptile"
  "cp.async pipeline (gemm f32, 3 stages)|gemm|dtype=f32,layout=rrr,VEC=4,STAGES=3"
  "tensor cores: mma.sync (gemm_mma f16)|gemm_mma|dtype=f16"
  "wgmma + TMA (gemm_wgmma f16)|gemm_wgmma|dtype=f16"
)

device=$("$kx" run matmul_ladder --arch native --size M=64,N=64,K=64 --reps 1 --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["device"])')
{
  echo "<!-- bench/gpu/ladder_bench.sh $out $size, $(date -u +%Y-%m-%d); $(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1) -->"
  echo "# Matmul ladder on $device, ${size}^3"
  echo
  echo "Each rung: 5 warm-up launches, median of 10 timed with CUDA events; cuBLAS with the same shape and dtype timed in the same process (fp32 for the ladder and the cp.async rung, f16 on tensor cores for the last two)."
  echo
  echo "| rung | variant | check | median ms | GFLOP/s | % of cuBLAS (same run) |"
  echo "|---|---|---|---|---|---|"
} > "$out/ladder.md"

for rung in "${rungs[@]}"; do
  IFS='|' read -r label template sets <<< "$rung"
  json=$("$kx" run "$template" --arch native --set "$sets" --size "M=$size,N=$size,K=$size" --reps 10 --timeout 300 --json) || true
  [ -n "$json" ] || json='{"ok": false, "error": "kx run printed nothing (see its stderr above)"}'
  echo "$json" | python3 -c 'import json,sys; r=json.load(sys.stdin); r["label"]=sys.argv[1]; print(json.dumps(r))' "$label" >> "$jsonl"
  echo "$json" | python3 "$here/bench/gpu/ladder_row.py" "$label" >> "$out/ladder.md"
done
cat "$out/ladder.md"
