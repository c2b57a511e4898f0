#!/usr/bin/env bash
# 200 tensor-core GEMM configs (gemm_mma, drawn with a fixed seed from the configs of its tile
# space that meet its constraints) at 4096^3: compiled cold (compile time alone), then compiled
# and timed end to end from a cold cache on one GPU, then timed again with the compiles cached on
# one GPU and on two (the multi-GPU speed-up). Writes OUTDIR/sweep_bench.md with the split and
# the 10 fastest configs, and keeps every sweep's CSV and session. With "warm" after OUTDIR the
# cold end-to-end run is left out: the timed runs reuse the compile-only run's cache.
# Usage: bench/gpu/sweep_bench.sh OUTDIR [warm]   (from the repository root, kx built in build/bin)
set -uo pipefail
out=${1:?usage: sweep_bench.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
kx=${KX:-build/bin/kx}
export KX_DATA_DIR=${KX_DATA_DIR:-$PWD}
space=(gemm_mma --arch native --vary BM --vary BN --vary BK --vary WM --vary WN --vary STAGES
       --valid-only --sample 200 --seed 1 --allow-spills --size M=4096,N=4096,K=4096 --reps 20 --warmup 5)
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,temperature.gpu --format=csv > "$out/gpu.txt"

# seconds LABEL CACHE_DIR kx-sweep-arguments...: runs one sweep, prints its wall time in seconds.
seconds() {
  local label=$1 cache=$2; shift 2
  local start end
  start=$(date +%s.%N)
  KX_CACHE_DIR=$cache "$kx" sweep "${space[@]}" "$@" --csv "$out/$label.csv" > "$out/$label.txt" 2> "$out/$label.err"
  echo "exit $?" >> "$out/$label.err"
  end=$(date +%s.%N)
  python3 -c "print(f'{$end - $start:.1f}')"
}

cold=$(mktemp -d)
compile_s=$(seconds compile_only "$cold" --compile-only)
cold2=$cold
end_to_end_s=""
if [[ ${2:-} != warm ]]; then
  cold2=$(mktemp -d)
  end_to_end_s=$(seconds one_gpu_cold "$cold2" --devices 0 --session "$out/one_gpu_cold.kxs")
fi
warm_one_s=$(seconds one_gpu_warm "$cold2" --devices 0)
warm_two_s=""
if ((gpus >= 2)); then warm_two_s=$(seconds two_gpus_warm "$cold2" --devices 0,1 --session "$out/two_gpus.kxs"); fi

python3 - "$out" "$compile_s" "$end_to_end_s" "$warm_one_s" "$warm_two_s" <<'PY'
import csv, sys
out, compile_s, e2e_s, one_s, two_s = sys.argv[1:6]
def rows(label):
    with open(f"{out}/{label}.csv") as f:
        return list(csv.DictReader(f))
def counts(label):
    c = {}
    for r in rows(label):
        c[r["status"]] = c.get(r["status"], 0) + 1
    return ", ".join(f"{v} {k}" for k, v in sorted(c.items()))
gpu = open(f"{out}/gpu.txt").read().splitlines()
lines = ["# gemm_mma sweep: 200 configs at 4096^3", "",
         "`bench/gpu/sweep_bench.sh`: 200 configs drawn (seed 1) from the gemm_mma tile configs that meet the constraints",
         "(BM, BN, BK, WM, WN, STAGES varied; spilling configs timed too), each checked against the reference and timed",
         "(20 repetitions after 5 warm-up launches) with cuBLAS in the same run.", "", "GPUs:", "```", *gpu, "```", "",
         "| sweep | wall time | outcomes |", "| --- | ---: | --- |",
         f"| compile only, cold cache | {compile_s} s | {counts('compile_only')} |",
         *([f"| compile and run on 1 GPU, cold cache (end to end) | {e2e_s} s | {counts('one_gpu_cold')} |"] if e2e_s else []),
         f"| run on 1 GPU, compiles cached | {one_s} s | {counts('one_gpu_warm')} |"]
if two_s:
    lines.append(f"| run on 2 GPUs, compiles cached | {two_s} s | {counts('two_gpus_warm')} |")
lines += ["", f"Compile vs run: compiling alone took {compile_s} s; the runs with every compile cached took {one_s} s on one GPU."]
if two_s:
    lines.append(f"Two GPUs: {two_s} s against {one_s} s on one, {float(two_s) / float(one_s):.2f}x the time.")
measured = [r for r in rows("one_gpu_warm") if r["status"] == "measured"]
measured.sort(key=lambda r: float(r["median_ms"]))
lines += ["", "Fastest 10 (one GPU, compiles cached):", "", "| config | ms | TFLOP/s | % of cuBLAS | registers | occupancy |",
          "| --- | ---: | ---: | ---: | ---: | ---: |"]
for r in measured[:10]:
    lines.append(f"| {r['name']} | {r['median_ms']} | {r['tflops']} | {r['pct_of_baseline']} | {r['registers']} | {float(r['occupancy']) * 100:.0f}% |")
open(f"{out}/sweep_bench.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
rm -rf "$cold" "$cold2"
