"""Turns templates_bench.sh's JSON lines into a Markdown table: each run against every baseline
timed in the same run, as the baseline's time over the kernel's (100% = as fast as the baseline)."""
import json
import sys

runs = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
devices = sorted({r["device"] for r in runs if r.get("device")})
print(f"# Templates on {', '.join(devices) or 'no device'}\n")
print("| template | run | variant | check | median ms | GB/s | TFLOP/s | vs library | vs device copy |")
print("|---|---|---|---|---|---|---|---|---|")


def ratio(b):
    if b.get("error"):
        return f"({b['name']}: {b['error']})"
    return f"{100 * b['speedup']:.0f}% of {b['name']} ({b['median_ms']:.3f} ms)"


for r in runs:
    if not r.get("ok"):
        print(f"| {r['template']} | {r['label']} | | run failed: {r.get('error', '')} | | | | | |")
        continue
    c = r["correctness"]
    verdict = "NO REFERENCE" if not c.get("has_reference", True) else ("PASS" if c["passed"] else "FAIL")
    library = [ratio(b) for b in r.get("baselines", []) if b.get("id") != "copy"]
    copy = [ratio(b) for b in r.get("baselines", []) if b.get("id") == "copy"]
    print(f"| {r['template']} | {r['label']} | `{r['variant']}` | {verdict} | {r['median_ms']:.3f} | {r['gbps']:.0f} | "
          f"{r['tflops']:.2f} | {'; '.join(library)} | {'; '.join(copy)} |")
