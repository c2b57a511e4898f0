#!/usr/bin/env bash
# Builds the libFuzzer targets (clang 14, ASan + UBSan) and runs each for SECONDS (default 60) on
# the seed corpora made from the repository's real files. Prints each target's execution count;
# exits non-zero on the first finding (the crashing input is saved as
# BUILD/findings/<target>/crash-*; make it a regression test).
# PRESET (default `fuzz`, optimised: the long runs) may be `sanitize`, whose Debug objects carry
# the fuzzer's coverage too: scripts/run-tests.sh fuzzes briefly with what it already built.
#   scripts/fuzz.sh [SECONDS [PRESET]]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
preset=${2:-fuzz}
case $preset in
  fuzz) build=build-fuzz ;;
  sanitize) build=build-sanitize ;;
  *) echo "fuzz.sh: unknown preset '$preset' (fuzz or sanitize)" >&2; exit 2 ;;
esac
jobs=$(nproc)
scripts/install-deps.sh --sanitizers >/dev/null

cmake --preset "$preset" >/dev/null
targets=(fuzz_manifest fuzz_arch fuzz_expression fuzz_session fuzz_tutorial fuzz_render fuzz_occupancy_csv fuzz_run_reply
         fuzz_runner_request fuzz_share fuzz_preselected)
cmake --build --preset "$preset" -j "$jobs" --target "${targets[@]}"

corpus=$build/corpus
rm -rf "$corpus"
for t in "${targets[@]}"; do mkdir -p "$corpus/$t"; done
for m in templates/*/manifest.xml tests/engine/templates/data*/*/manifest.xml; do
  cp "$m" "$corpus/fuzz_manifest/$(echo "$m" | tr / _)"
done
# fuzz_arch: the first byte picks arch (even) or device (odd) file.
for f in assets/arch/*.xml tests/engine/arch/data/arch/*.xml; do
  { printf '\x00'; cat "$f"; } > "$corpus/fuzz_arch/arch_$(basename "$f")"
done
for f in assets/devices/*.xml tests/engine/arch/data/devices/*.xml; do
  { printf '\x01'; cat "$f"; } > "$corpus/fuzz_arch/device_$(basename "$f")"
done
# fuzz_expression: every expr="..." of the manifests, one file each.
grep -ho 'expr="[^"]*"' templates/*/manifest.xml | sed 's/^expr="//; s/"$//; s/&lt;/</g; s/&gt;/>/g; s/&amp;/\&/g' | sort -u |
  split -l 1 - "$corpus/fuzz_expression/expr_"
# fuzz_session: the demo session and a fresh, empty one.
# Inputs that once crashed a target (fuzz/regressions/<target without fuzz_>-*): seeds, so
# every run checks them again.
for f in fuzz/regressions/*; do
  t=fuzz_$(basename "$f" | cut -d- -f1)
  [[ -d $corpus/$t ]] && cp "$f" "$corpus/$t/regression_$(basename "$f")"
done
cp sessions/demo.kxs "$corpus/fuzz_session/demo.kxs"
rm -f "$corpus/fuzz_session/empty.kxs"
build/bin/kx session new "$corpus/fuzz_session/empty.kxs" >/dev/null 2>&1 || true
# fuzz_tutorial: every shipped tutorial.
for f in tutorials/*/tutorial.xml; do
  cp "$f" "$corpus/fuzz_tutorial/$(basename "$(dirname "$f")").xml"
done
# fuzz_render: the first byte picks the template (the folders with a manifest, in C sort order,
# as fuzz_render.cpp numbers them), the rest is its first <source file>.
i=0
for m in $(LC_ALL=C ls -d templates/*/manifest.xml); do
  dir=$(dirname "$m")
  src=$(grep -o '<source file="[^"]*"' "$m" | head -1 | sed 's/.*file="//; s/"$//')
  [[ -n $src ]] || continue
  { printf "\\$(printf '%03o' $i)"; cat "$dir/$src"; } > "$corpus/fuzz_render/$(basename "$dir")"
  i=$((i + 1))
done
# fuzz_occupancy_csv: a CSV with NVIDIA rows of every kind the tests use.
printf 'arch,regs,static_smem,block,dyn_smem,carveout\nsm_90,32,0,256,0,-1\nsm_80,64,16384,128,32768,50\n\nsm_120,255,0,1024,0,100\n' \
  > "$corpus/fuzz_occupancy_csv/rows.csv"
printf 'arch,regs,static_smem,block,dyn_smem,carveout\nsm_75,40,49152,512,0,0\n' > "$corpus/fuzz_occupancy_csv/turing.csv"
# fuzz_run_reply: the run reports stored in the demo session, and a runner reply of the
# shape runner/PROTOCOL.md gives (timing, baselines, phases, PC sampling).
n=0
while IFS= read -r report; do
  printf '%s' "$report" > "$corpus/fuzz_run_reply/demo_$n.json"
  n=$((n + 1))
done < <(sqlite3 -readonly sessions/demo.kxs 'SELECT report_json FROM runs LIMIT 40')
cat > "$corpus/fuzz_run_reply/reply.json" <<'JSON'
{"ok":true,"device":{"index":0,"name":"NVIDIA H100 80GB HBM3","arch":"sm_90","memory_bytes":85029158912},
 "timing":{"median_ms":1.25,"min_ms":1.2,"max_ms":1.4,"samples_ms":[1.2,1.25,1.4]},"reps":20,"rotation_sets":3,
 "registers":64,"static_smem":0,"driver_blocks_per_sm":4,
 "baselines":[{"id":"cublas","name":"cuBLAS","timing":{"median_ms":1.1,"min_ms":1.0,"max_ms":1.2}},{"id":"copy","error":"failed"}],
 "phases_ms":{"load_module":3.5,"upload":10.0,"timing":25.0},
 "pc_sampling":{"period":0,"runs":10,"total_samples":48213,"dropped_samples":0,"hardware_buffer_full":false,
   "pcs":[{"function":"gemm_k","offset":2688,"samples":512,"stalls":{"long_scoreboard":300,"long_scoreboard_not_issued":300,"selected":212}}]}}
JSON
# fuzz_share: share strings from kx share (first byte 0), and the JSON of one with a user
# template inside (first byte 1: the target compresses and encodes it).
for args in "gemm --arch sm_90 --set BM=64 --flag maxrregcount=64" "reduce --arch sm_80 --size n=4096"; do
  { printf '\x00'; build/bin/kx share $args 2>/dev/null || true; } > "$corpus/fuzz_share/shipped_$(echo "$args" | cut -d' ' -f1)"
done
{ printf '\x01'; printf '%s' '{"template":"scale","arch":"sm_90","config":{"BLOCK":"128"},"flags":"fast_math=true","sizes":{"n":4096},'
  printf '%s' '"files":{"manifest.xml":"<template id=\"scale\"><source file=\"kernel.cu\"/><name-pattern>scale_b{BLOCK}</name-pattern>'
  printf '%s' '<parameters><param name=\"BLOCK\" type=\"int\" values=\"128,256\" default=\"256\"/></parameters>'
  printf '%s' '<problem><size name=\"n\" default=\"1024\"/></problem><launch grid-x=\"ceil_div(n,BLOCK)\" block-x=\"BLOCK\"/></template>",'
  printf '%s' '"kernel.cu":"extern \"C\" __global__ void ${KERNEL_NAME}(float* p) { p[threadIdx.x] *= 2; }"}}'
} > "$corpus/fuzz_share/user_json"
# fuzz_preselected: every shipped preselected.xml, its first byte the template's index in
# `kx templates`' order (the order fuzz_preselected.cpp picks from).
i=0
for t in $(build/bin/kx templates --json 2>/dev/null | python3 -c 'import json,sys; [print(t["id"]) for t in json.load(sys.stdin)]'); do
  [[ -f templates/$t/preselected.xml ]] && { printf "\\$(printf '%03o' $i)"; cat "templates/$t/preselected.xml"; } > "$corpus/fuzz_preselected/$t.xml"
  i=$((i + 1))
done
# fuzz_runner_request: the run request of runner/PROTOCOL.md.
awk '/^### `run`/{f=1} f&&/^```json/{g=1;next} g&&/^```/{exit} g' runner/PROTOCOL.md > "$corpus/fuzz_runner_request/run.json"
sed 's/"launches":\[.*/"kernel":"k","grid":[1,1,1],"block":[256,1,1],"dynamic_smem":0,/' "$corpus/fuzz_runner_request/run.json" \
  > "$corpus/fuzz_runner_request/run_one_kernel.json"

export ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
status=0
for t in "${targets[@]}"; do
  findings=$build/findings/$t
  mkdir -p "$findings"
  log=$build/findings/$t.log
  extra=()
  [[ $t == fuzz_session ]] && extra=(-max_len=1400000)
  if "$build/bin/$t" "$corpus/$t" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -print_final_stats=1 \
       -artifact_prefix="$findings/" "${extra[@]}" >"$log" 2>&1; then
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
    echo "$t: $runs executions in ${seconds}s, no finding"
  else
    echo "$t: FINDING (see $log and $findings/)"
    tail -40 "$log"
    status=1
  fi
done
exit $status
