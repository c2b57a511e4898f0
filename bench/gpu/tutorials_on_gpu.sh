#!/usr/bin/env bash
# Plays the tutorials in the app on a machine with an NVIDIA GPU, as a learner would there: every
# "Show me" is pressed, runs included, and each step's checkpoints are judged on the live state,
# so the ones that need a run are measured, not quoted from the recorded runs. Writes, per
# tutorial, the app's log (ID.err) and a screenshot of its last step (ID.png), and a table of
# every checkpoint's verdict (tutorials_live.md).
#
# Usage, from the repository root:  bench/gpu/tutorials_on_gpu.sh OUTDIR [TUTORIAL...]
#   (default: every tutorial). Without a display it starts itself under bench/gpu/gui_on_gpu.sh's
#   virtual X server (carry .gl and the app as that script says). KX_TUTORIAL_TIMEOUT: seconds
#   one tutorial may take (default 300); KX_TUTORIALS_SECONDS: no tutorial starts after this many
#   seconds (default: no limit), the rest are listed as not played.
set -uo pipefail
out=${1:?usage: tutorials_on_gpu.sh OUTDIR [TUTORIAL...]}
shift
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [[ -z ${DISPLAY:-} ]]; then
    # gui_on_gpu.sh wants a script file and a PNG even when it runs a command instead of the app.
    KX_GUI_COMMAND="$(printf '%q ' "$0" "$out" "$@")" exec bench/gpu/gui_on_gpu.sh "$0" "$out/unused.png"
fi
app=${KX_APP:-build/bin/kernel-explorer}
export KX_DATA_DIR=${KX_DATA_DIR:-$PWD}
ids=("$@")
if ((${#ids[@]} == 0)); then mapfile -t ids < <(ls tutorials | while read -r d; do [[ -f tutorials/$d/tutorial.xml ]] && echo "$d"; done); fi

began=$(date +%s)
for id in "${ids[@]}"; do
    if [[ -n ${KX_TUTORIALS_SECONDS:-} ]] && (($(date +%s) - began > KX_TUTORIALS_SECONDS)); then
        echo "not played: the time budget of $KX_TUTORIALS_SECONDS s was spent" > "$out/$id.err"
        continue
    fi
    home=$(mktemp -d)
    # The script: every action of every step, then the step's verdicts, then the next step.
    python3 - "tutorials/$id/tutorial.xml" "$home/play.kxs" "$out/$id.png" > "$home/play.script" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
steps = root.findall("step")
print(f"session {sys.argv[2]}")
print(f"tutorial open {root.get('id')}")
for i, step in enumerate(steps):
    for a in range(len(step.findall("action"))):
        print(f"tutorial action {a + 1}")
    print("tutorial check")
    if i == len(steps) - 1:
        print(f"screenshot {sys.argv[3]}")
    print("tutorial next")
print("wait-session")
print("quit")
PY
    if [[ ! -s $home/play.script ]]; then
        echo "not played: its tutorial.xml could not be read" > "$out/$id.err"
        rm -rf "$home"
        continue
    fi
    start=$(date +%s)
    XDG_CONFIG_HOME=$home/config XDG_DATA_HOME=$home/data timeout "${KX_TUTORIAL_TIMEOUT:-300}" \
        "$app" --width 1600 --height 1000 --script "$home/play.script" > /dev/null 2> "$out/$id.err"
    echo "exit $? after $(($(date +%s) - start)) s" >> "$out/$id.err"
    echo "$id: $(tail -1 "$out/$id.err")"
    rm -rf "$home"
done

python3 - "$out" "${ids[@]}" <<'PY'
import os, re, sys, subprocess
out, ids = sys.argv[1], sys.argv[2:]
try:
    gpu = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()
except OSError:
    gpu = ""
verdict = re.compile(r"kernel-explorer: tutorial: (.+?): (pass|fail|needs a GPU run): (.*)")
lines = [f"# The tutorials played on {gpu or 'this machine'}", "",
         "`bench/gpu/tutorials_on_gpu.sh`: every \"Show me\" pressed (runs included), every checkpoint judged on the",
         "app's live state. A checkpoint that needs a run is measured here, not quoted.", "",
         "| tutorial | checkpoints | pass | fail | needs a run | app |", "| --- | ---: | ---: | ---: | ---: | --- |"]
details = []
for t in ids:
    text = open(os.path.join(out, t + ".err"), errors="replace").read()
    found = [m.groups() for m in verdict.finditer(text) if not m.group(1).startswith("images")]
    count = lambda v: sum(1 for f in found if f[1] == v)
    lines.append(f"| {t} | {len(found)} | {count('pass')} | {count('fail')} | {count('needs a GPU run')} | {text.strip().splitlines()[-1]} |")
    details += [f"| {t} | {s} | {v} | {r.replace('|', '/')} |" for s, v, r in found]
lines += ["", "| tutorial | step | verdict | checkpoint: reason |", "| --- | --- | --- | --- |", *details]
open(os.path.join(out, "tutorials_live.md"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines[:len(ids) + 7]))
PY
