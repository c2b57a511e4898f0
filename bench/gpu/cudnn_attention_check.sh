# cudnn_attention on the GPU: which baseline ran (cuDNN or the composed fallback, and why), its
# time and the kernel's ratio, and cuDNN's O against the kernel's and the composed baseline's
# (kx checks the kernel against float64 and the composed O; cuDNN's O is compared here, through a
# runner shim that keeps each run's output files). Then the GPU tests of both templates.
source .carry/prefix.sh
T0=$(date +%s)
if ! grep -q cudnn_attention build/bin/kx-runner; then
  echo "build/bin/kx-runner has no cudnn_attention: rebuild it (cmake --build --preset default --target kx-runner) and carry it"; exit 1
fi
KEEP=/tmp/kx-keep; rm -rf $KEEP; mkdir -p $KEEP
cat > /tmp/kx-runner-keep <<'PY'
#!/usr/bin/env python3
# Passes requests to the real kx-runner; after each run's reply, copies its output files
# (and V) to $KX_KEEP_DIR/<n>/ before kx removes them.
import json, os, shutil, subprocess, sys
real, keep = os.environ["KX_REAL_RUNNER"], os.environ["KX_KEEP_DIR"]
p = subprocess.Popen([real], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
n = 0
while True:
    line = sys.stdin.readline()
    if not line: break
    p.stdin.write(line); p.stdin.flush()
    reply = p.stdout.readline()
    try: req = json.loads(line)
    except Exception: req = {}
    if req.get("cmd") == "run":
        n += 1; d = os.path.join(keep, str(n)); os.makedirs(d, exist_ok=True)
        files = {a["name"]: a["file"] for a in req.get("args", []) if "file" in a and (a.get("role") == "out" or a.get("name") == "V")}
        for b in req.get("baselines", []):
            if "output" in b: files["baseline-" + b["name"]] = b["output"]["file"]
        for k, f in files.items():
            if os.path.exists(f): shutil.copy(f, os.path.join(d, k + ".bin"))
        json.dump(req.get("baselines", []), open(os.path.join(d, "baselines.json"), "w"))
    sys.stdout.write(reply); sys.stdout.flush()
    if not reply: break
PY
chmod +x /tmp/kx-runner-keep
export KX_REAL_RUNNER=$PWD/build/bin/kx-runner KX_KEEP_DIR=$KEEP KX_RUNNER=/tmp/kx-runner-keep
# cuDNN's own error log, for the detail behind a refusal the labels quote.
export CUDNN_LOGLEVEL_DBG=1 CUDNN_LOGDEST_DBG=$OUT/cudnn_errors.log

report() {  # label json-file
  python3 - "$1" "$2" "$KEEP" <<'PY'
import glob, json, os, struct, sys
label, path, keep = sys.argv[1:4]
try: r = json.load(open(path))
except Exception as e: print(f"{label}: NO JSON ({e}): " + open(path.replace('.json', '.err')).read()[-600:]); sys.exit()
c = r.get("correctness", {})
print(f"{label}: ok={r.get('ok')} {r.get('variant')} sizes={r.get('sizes')} kernel {r.get('median_ms')} ms; "
      f"passed={c.get('passed')} ({c.get('method')}; composed agrees={c.get('baseline_agrees')}) {r.get('error', '')}")
for b in r.get("baselines", []):
    print(f"    {b.get('id')}: {b.get('median_ms')} ms, kernel at {100 * (b.get('speedup') or 0):.1f}% of its speed | {b.get('name')} {b.get('error', '')}")
runs = sorted(glob.glob(os.path.join(keep, "*")), key=lambda d: int(os.path.basename(d)))
if not runs: sys.exit()
d = runs[-1]
dtype = next((b["params"]["dtype"] for b in json.load(open(os.path.join(d, "baselines.json")))), "f16")
def load(name):
    f = os.path.join(d, name + ".bin")
    if not os.path.exists(f): return None
    try:
        import numpy as np
        raw = np.fromfile(f, dtype=np.uint16)
        if dtype == "f16": return raw.view(np.float16).astype(np.float64)
        return (raw.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    except ImportError:
        data = open(f, "rb").read(); n = len(data) // 2; step = max(1, n // 200000)
        vals = struct.unpack(f"<{n}H", data)[::step]
        if dtype == "f16": return [struct.unpack("<e", struct.pack("<H", v))[0] for v in vals]
        return [struct.unpack("<f", struct.pack("<I", v << 16))[0] for v in vals]
o, v, cd, co = load("O"), load("V"), load("baseline-cudnn_attention"), load("baseline-attention_composed")
if o is None or v is None or cd is None: print("    (no output files kept)"); sys.exit()
u = 2.0 ** -11 if dtype == "f16" else 2.0 ** -8
bound = 2 * (2 * u + 2.0 ** -12)  # the reference's bound for two correct results, relative to max |V|
maxv = max(abs(float(x)) for x in (v if isinstance(v, list) else [v.min(), v.max()]))
def diff(a, b):
    if b is None: return None
    if isinstance(a, list): return max(abs(x - y) for x, y in zip(a, b)) / maxv
    import numpy as np
    return float(np.nanmax(np.abs(a - b))) / maxv if np.all(np.isfinite(a)) else float("nan")
for other, name in ((o, "kernel"), (co, "composed")):
    x = diff(cd, other)
    print(f"    cuDNN's O vs {name}'s: max |diff| / max|V| = {x} -> {'AGREES' if x is not None and x <= bound else 'DISAGREES'} (bound {bound:.2e})")
for f in glob.glob(os.path.join(d, "*.bin")): os.remove(f)
PY
}

run() {  # label template [kx options...]
  local label=$1 tmpl=$2; shift 2
  (( $(date +%s) - T0 > ${BUDGET:-280} )) && { echo "skip $label (time)"; return; }
  local s=$(date +%s)
  timeout 300 kx run $tmpl --arch native --json "$@" > /tmp/$label.json 2> /tmp/$label.err
  echo "[$label: $(( $(date +%s) - s )) s wall]"
  report $label /tmp/$label.json
}

{
# The defaults, with kx's own 10 s runner deadline (cuDNN's plan is built inside it), then
# again with room to spare when that was too short.
run att_default attention
python3 -c "import json; exit(0 if json.load(open('/tmp/att_default.json')).get('ok') else 1)" 2>/dev/null || run att_default_t120 attention --timeout 120
run att_causal attention --set mask=causal --timeout 120
run wg_default attention_wgmma --timeout 120
run wg_causal attention_wgmma --set mask=causal --timeout 120
run wg_gqa_causal attention_wgmma --size heads=32,kv_heads=8 --set mask=causal --timeout 120
run wg_bf16_d64 attention_wgmma --set dtype=bf16,HEAD_DIM=64 --timeout 120
run wg_d256 attention_wgmma --preset tuned_d256 --timeout 120
# Awkward sizes: GQA lengths that are no multiple of any tile; causal with more keys than
# queries; causal with more queries than keys (cuDNN refuses: the composed sequence stands in);
# one query and one key; multi-query.
run att_awkward attention --size batch=2,heads=4,kv_heads=2,seq_q=200,seq_k=300 --timeout 120
run att_awkward_causal attention --size batch=2,heads=4,kv_heads=2,seq_q=77,seq_k=93 --set mask=causal --timeout 120
run att_fallback_causal attention --size batch=1,heads=3,kv_heads=1,seq_q=130,seq_k=61 --set mask=causal --timeout 120
run att_1x1_causal attention --size batch=1,heads=1,kv_heads=1,seq_q=1,seq_k=1 --set mask=causal --timeout 120
run wg_awkward_mqa attention_wgmma --size batch=1,heads=3,kv_heads=1,seq_q=130,seq_k=61 --timeout 120
} 2>&1 | tee $OUT/cudnn_attention_runs.txt
echo "runs took $(( $(date +%s) - T0 )) s"

unset KX_RUNNER CUDNN_LOGLEVEL_DBG CUDNN_LOGDEST_DBG
echo "cuDNN error log: $(wc -l < $OUT/cudnn_errors.log 2>/dev/null || echo 0) lines"; head -c 3000 $OUT/cudnn_errors.log 2>/dev/null
[[ -f $OUT/cudnn_errors.log ]] && truncate -s '<1M' $OUT/cudnn_errors.log
KX_GPU_TEMPLATES=attention,attention_wgmma timeout 240 build/bin/test_gpu "every template's default config*" > $OUT/test_gpu_attention.txt 2>&1
echo "test_gpu rc=$?"; tail -6 $OUT/test_gpu_attention.txt
echo "total $(( $(date +%s) - T0 )) s"
