"""One row of bench/gpu/ladder_bench.sh's table from a `kx run --json` report on stdin."""
import json
import sys

r = json.load(sys.stdin)
label = sys.argv[1]
if not r.get("ok"):
    error = r.get("error", "?")
    print(f"| {label} | | failed: {error} | | | |")
    sys.exit()
b = next((b for b in r.get("baselines", []) if b.get("median_ms", 0) > 0), None)
pct = f"{100 * b['speedup']:.1f}% of {b['name']} ({b['median_ms']:.3f} ms)" if b else ""
check = "PASS" if r["correctness"]["passed"] else "FAIL"
print(f"| {label} | `{r['variant']}` | {check} | {r['median_ms']:.3f} | {r['tflops'] * 1000:.0f} | {pct} |")
