#!/usr/bin/env bash
# Reliability soaks of the app on a GPU machine: 100 planted faults in a row (out of bounds, trap,
# hang), a buffer larger than the GPU's memory, kill -9 of the app in the middle of 30 runs, and
# two app instances writing one session file at once. Counts the kx-runner processes and the GPU
# memory in use before and after, and writes OUTDIR/soak.md.
# Usage, from the repository root on the GPU machine (carry .carry with kernel-explorer, kx and
# kx-runner, and .gl from scripts/pack-gui-carry.sh):  bench/gpu/soak.sh OUTDIR
set -uo pipefail
if [[ ${1:-} != --inner ]]; then
    out=${1:?usage: soak.sh OUTDIR}
    mkdir -p "$out"
    out=$(cd "$out" && pwd)
    echo "# an empty script: KX_GUI_COMMAND runs instead" > "$out/empty.script"
    KX_GUI_COMMAND="bash $(realpath "$0") --inner $out" bash bench/gpu/gui_on_gpu.sh "$out/empty.script" "$out/unused.png"
    exit $?
fi
out=$2
app=${KX_APP:?}
kx=${KX:-build/bin/kx}
runners() { pgrep -c -x kx-runner || true; }
gpumem() { nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits | head -1; }
report=$out/soak.md
{
    echo "# Reliability soaks on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
    echo
    echo "Made by \`bench/gpu/soak.sh OUT\` on $(date -u +%Y-%m-%d). The app runs under Xvfb with its scripted mode."
    echo
} > "$report"

# 1. 100 planted faults in a row, then a normal run: the app must stay up throughout.
runners0=$(runners); mem0=$(gpumem)
{
    for i in $(seq 45); do echo "fault out_of_bounds"; echo "wait-run"; echo "fault trap"; echo "wait-run"; done
    for i in $(seq 10); do echo "fault hang"; echo "wait-run"; done
    echo "template reduce"; echo "arch sm_90"; echo "wait-compile"; echo "run"; echo "wait-run"
} > "$out/faults.script"
t0=$SECONDS
timeout 900 "$app" --script "$out/faults.script" --screenshot "$out/after_faults.png" > /dev/null 2> "$out/faults.err"
app_rc=$?
fault_s=$((SECONDS - t0))
sleep 2
runners1=$(runners); mem1=$(gpumem)
faults=$(grep -c "run: planted fault" "$out/faults.err")
kinds=$(grep "run: planted fault" "$out/faults.err" | sed 's/.*failed: //' | cut -c1-60 | sort | uniq -c | sort -rn)
after=$(grep "run: reduce" "$out/faults.err" | tail -1)
{
    echo "## 100 planted faults in a row"
    echo
    echo "45 out-of-bounds writes and 45 traps alternating, then 10 hangs (each killed at the 10 s timeout), then a"
    echo "normal reduce run, all in one app process: exit status $app_rc after $fault_s s; $faults faults reported."
    echo "kx-runner processes before/after: $runners0/$runners1; GPU memory used before/after: $mem0/$mem1 MiB."
    echo "The run after the faults: \`${after:-none}\`"
    echo
    echo "The app's last lines:"
    echo '```'
    grep -v "run: planted fault" "$out/faults.err" | tail -n 40
    echo '```'
    echo
    echo "How the faults were reported (count, first words):"
    echo '```'
    echo "$kinds"
    echo '```'
    echo
} >> "$report"

# 2. Buffers larger than the GPU's memory: refused before any launch.
big=$("$kx" run map --arch native --size n=200000000000 2>&1 | tail -2); big_rc=$?
{
    echo "## A problem larger than the GPU's memory"
    echo
    echo "\`kx run map --arch native --size n=200000000000\`: \`$big\`"
    echo
} >> "$report"

# 3. kill -9 of the app in the middle of 30 runs: every run it finished is in the session.
rm -f "$out/kill.kxs"*
{
    echo "session $out/kill.kxs"; echo "template reduce"; echo "arch sm_90"; echo "wait-compile"
    for i in $(seq 30); do echo "run"; echo "wait-run"; done
} > "$out/kill.script"
"$app" --script "$out/kill.script" --screenshot "$out/kill.png" > /dev/null 2> "$out/kill.err" &
pid=$!
for _ in $(seq 600); do
    (($(grep -c "run: reduce" "$out/kill.err") >= 12)) && break
    sleep 0.2
done
kill -9 "$pid"; wait "$pid" 2>/dev/null
finished=$(grep -c "run: reduce" "$out/kill.err")
sleep 1
stored=$("$kx" session export "$out/kill.kxs" --format csv 2>&1 | tail -n +2 | grep -c .)
{
    echo "## kill -9 in the middle of 30 runs"
    echo
    echo "The app was killed with SIGKILL after it had printed $finished finished runs; the session file then held"
    echo "$stored runs (\`kx session export --format csv\`, one row per run) and opened without error."
    echo
} >> "$report"

# 4. Two app instances writing one session at once.
rm -f "$out/two.kxs"*
"$kx" session new "$out/two.kxs" > /dev/null
{
    echo "session $out/two.kxs"; echo "template reduce"; echo "arch sm_90"; echo "wait-compile"
    for i in $(seq 10); do echo "run"; echo "wait-run"; done
} > "$out/two.script"
timeout 240 "$app" --script "$out/two.script" --screenshot "$out/two_a.png" > /dev/null 2> "$out/two_a.err" &
a=$!
timeout 240 "$app" --script "$out/two.script" --screenshot "$out/two_b.png" > /dev/null 2> "$out/two_b.err" &
b=$!
wait "$a"; rc_a=$?
wait "$b"; rc_b=$?
done_a=$(grep -c "run: reduce" "$out/two_a.err"); done_b=$(grep -c "run: reduce" "$out/two_b.err")
stored2=$("$kx" session export "$out/two.kxs" --format csv 2>&1 | tail -n +2 | grep -c .)
check=$(sqlite3 "$out/two.kxs" "pragma integrity_check" 2>/dev/null || echo "(no sqlite3 here)")
{
    echo "## Two app instances on one session file"
    echo
    echo "Both ran 10 runs into the same file at once: exit statuses $rc_a and $rc_b, $done_a and $done_b runs"
    echo "finished; the file then held $stored2 runs; integrity check: $check."
    echo
    echo "The last lines each instance wrote:"
    echo '```'
    tail -n 3 "$out/two_a.err" "$out/two_b.err"
    echo '```'
    echo
} >> "$report"
echo "runners at the end: $(runners); GPU memory: $(gpumem) MiB" >> "$report"
cat "$report"
