#!/usr/bin/env bash
# Where radix_sort's time goes, next to CUB's DeviceRadixSort in the same process: per-kernel
# duration, throughput, occupancy and warp stalls for every launch of one run (ours and CUB's),
# then the source-level stall samples of one one-sweep pass, hottest SASS lines first.
# Usage: radix_profile.sh OUTDIR [kx run options...]
set -uo pipefail
out=$1; shift
ncu=${NCU:-/usr/local/cuda/bin/ncu}
mkdir -p "$out"
$ncu --target-processes all -k 'regex:[Rr]adix' --launch-count 24 --section SpeedOfLight --section Occupancy \
     --section WarpStateStats --section LaunchStats --csv --page details \
     build/bin/kx run radix_sort --arch native --reps 1 --warmup 0 "$@" > "$out/radix_kernels.csv" 2> "$out/radix_kernels.err"
python3 - "$out/radix_kernels.csv" > "$out/radix_kernels.md" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
head, data = rows[0], rows[1:]
ix = {h: i for i, h in enumerate(head)}
want = ["Duration", "Memory Throughput", "DRAM Throughput", "Compute (SM) Throughput", "Registers Per Thread",
        "Achieved Occupancy", "Block Size", "Grid Size", "Warp Cycles Per Issued Instruction"]
per = {}
order = []
for r in data:
    key = (r[ix["ID"]], r[ix["Kernel Name"]][:70])
    if key not in per: per[key] = {}; order.append(key)
    name = r[ix["Metric Name"]]
    if name in want: per[key][name] = r[ix["Metric Value"]] + " " + r[ix["Metric Unit"]]
print("| id | kernel | " + " | ".join(want) + " |")
print("|---|---|" + "---|" * len(want))
for k in order:
    print(f"| {k[0]} | `{k[1]}` | " + " | ".join(per[k].get(w, "") for w in want) + " |")
PY
$ncu --target-processes all -k regex:onesweep --launch-skip 1 --launch-count 1 --section SourceCounters --section WarpStateStats \
     -o "$out/onesweep_pass" -f build/bin/kx run radix_sort --arch native --reps 1 --warmup 0 "$@" > /dev/null 2>&1
$ncu -i "$out/onesweep_pass.ncu-rep" --page source --csv --print-source sass > "$out/onesweep_sass.csv" 2>/dev/null
python3 - "$out/onesweep_sass.csv" > "$out/onesweep_hot.txt" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
head = rows[0]
ix = {h: i for i, h in enumerate(head)}
samp = next((h for h in head if h.startswith("Warp Stall Sampling (All")), None)
src = ix.get("Source")
tot = sum(float(r[ix[samp]] or 0) for r in rows[1:] if len(r) == len(head))
lines = sorted((r for r in rows[1:] if len(r) == len(head)), key=lambda r: -float(r[ix[samp]] or 0))
print(f"total samples {tot:.0f}")
for r in lines[:45]:
    print(f"{float(r[ix[samp]] or 0)/tot*100:5.1f}%  {r[ix['Address']] if 'Address' in ix else ''}  {r[src]}")
print("\n--- in address order ---")
for r in rows[1:]:
    if len(r) == len(head): print(f"{float(r[ix[samp]] or 0)/tot*100:5.1f}%  {r[src]}")
PY
