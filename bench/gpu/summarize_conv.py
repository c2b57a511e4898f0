"""Turns conv_bench.sh's JSON lines into a Markdown table: each layer and direction against the
baseline timed in the same run (cuDNN, or im2col + cuBLAS when cuDNN was not found), and the
geometric mean of the ratios per layer set and direction (100% = as fast as the baseline)."""
import json
import math
import sys
from collections import defaultdict

runs = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
devices = sorted({r["device"] for r in runs if r.get("device")})
kernel = "wgmma + TMA im2col" if "conv_wgmma" in sys.argv[1] else "mma.sync"
print(f"# Convolution (implicit GEMM, {kernel}) against the library on {', '.join(devices) or 'no device'}\n")
print("| layer | direction | config | check | ms | TFLOP/s | baseline | baseline ms | kernel / baseline speed |")
print("|---|---|---|---|---|---|---|---|---|")
ratios = defaultdict(list)
# The 3x3 (3x3x3) layers alone: cuDNN's legacy API takes about as long for a 1x1 layer as for the
# 3x3 layer of the same stage, which makes ratios on 1x1 layers flatter the kernel.
ratios3 = defaultdict(list)
for r in runs:
    if not r.get("ok"):
        print(f"| {r['layer']} | {r['direction']} | `{r['config']}` | run failed: {r.get('error', '')[:160]} | | | | | |")
        continue
    c = r["correctness"]
    verdict = "PASS" if c["passed"] else "FAIL"
    base = next((b for b in r.get("baselines", []) if not b.get("error")), None)
    if base:
        ratios[(r["set"], r["direction"])].append(base["speedup"])
        if "3x3" in r["layer"]:
            ratios3[(r["set"], r["direction"])].append(base["speedup"])
        btext = (base.get("label") or base["name"]), f"{base['median_ms']:.3f}", f"{100 * base['speedup']:.0f}%"
    else:
        errors = "; ".join(b.get("error", "") for b in r.get("baselines", []))
        btext = (f"not run: {errors[:120]}", "", "")
    print(f"| {r['layer']} | {r['direction']} | `{r['config']}` | {verdict} | {r['median_ms']:.3f} | {r['tflops']:.1f} | "
          f"{btext[0]} | {btext[1]} | {btext[2]} |")
print("\n## Geometric mean of kernel speed / baseline speed\n")
print("| layer set | direction | layers | geometric mean |")
print("|---|---|---|---|")
def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


for (layer_set, direction), values in sorted(ratios.items()):
    print(f"| {layer_set} | {direction} | {len(values)} | {100 * geomean(values):.0f}% |")
print("\n## The same over the 3x3 (3x3x3) layers only\n")
print("| layer set | direction | layers | geometric mean |")
print("|---|---|---|---|")
for (layer_set, direction), values in sorted(ratios3.items()):
    print(f"| {layer_set} | {direction} | {len(values)} | {100 * geomean(values):.0f}% |")
