#!/usr/bin/env bash
# Every tuned preset for the GPU's arch, run as a user runs it: `kx run T --arch native --preset
# NAME`, at the problem the preset names (its size="..." in preselected.xml) or the template's
# defaults, against the baselines its manifest names, timed in the same run. Writes JSON lines and
# a Markdown table.
# Usage: presets_bench.sh OUTDIR [ARCH] [TEMPLATE...]   (run from the repository root; ARCH: the
# presets' arch, default sm_90, which also covers sm_90a; default templates: every one kx lists)
set -uo pipefail
out=$1; arch=${2:-sm_90}; shift $(( $# < 2 ? $# : 2 ))
kx=${KX:-build/bin/kx}
mkdir -p "$out"
runs=$out/presets_runs.jsonl
: > "$runs"
templates=("$@")
if ((${#templates[@]} == 0)); then
  mapfile -t templates < <($kx templates --json | python3 -c 'import json,sys; [print(t["id"]) for t in json.load(sys.stdin)]')
fi
for t in "${templates[@]}"; do
  # name<TAB>problem for each set of one config
  mapfile -t presets < <($kx presets "$t" --arch "$arch" --json | python3 -c '
import json, sys
for s in json.load(sys.stdin):
    if s["preset"]:
        print(s["name"] + "\t" + (",".join(f"{k}={v}" for k, v in s["sizes"].items()) or "default sizes"))')
  for p in "${presets[@]}"; do
    name=${p%%$'\t'*} problem=${p#*$'\t'}
    timeout 300 $kx run "$t" --arch native --preset "$name" --reps 30 --warmup 5 --json > /tmp/kx-preset.json 2> /tmp/kx-preset.err
    python3 bench/gpu/run_line.py /tmp/kx-preset.json /tmp/kx-preset.err "$t" "preset $name ($problem)" >> "$runs"
  done
done
python3 bench/gpu/summarize_templates.py "$runs" | sed '1s/^# Templates on/# Every tuned preset at its own problem on/' > "$out/presets.md"
echo "wrote $out/presets.md"
