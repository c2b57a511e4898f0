"""Turns the benchmark's JSON lines into a Markdown table (ratios against same-run baselines)."""
import json
import sys

cal = json.load(open(sys.argv[1]))
runs = [json.loads(line) for line in open(sys.argv[2]) if line.strip()]
dev = cal["device"]
print(f"# GEMM and reduction on {dev['name']} ({dev['arch']})\n")
print(f"Calibration: copy {cal['copy']['gbps']:.0f} GB/s; cuBLAS " +
      ", ".join(f"{k} {v['tflops']:.1f} TFLOP/s" for k, v in cal["cublas_gemm"].items()) +
      f" at {next(iter(cal['cublas_gemm'].values()))['size']}^3\n")
print("| run | variant | correct | median ms | TFLOP/s | GB/s | baseline | baseline ms | kernel / baseline |")
print("|---|---|---|---|---|---|---|---|---|")
for r in runs:
    if not r.get("ok"):
        print(f"| {r['label']} | {r.get('variant','')} | run failed: {r.get('error','')} | | | | | | |")
        continue
    b = r.get("baseline", {})
    if b.get("tflops"):
        ratio = f"{100 * b['speedup']:.1f}% of cuBLAS speed"
    elif b.get("gbps"):
        ratio = f"{100 * r['gbps'] / b['gbps']:.1f}% of copy bandwidth"
    else:
        ratio = ""
    print(f"| {r['label']} | `{r['variant']}` | {'PASS' if r['correctness']['passed'] else 'FAIL'} | "
          f"{r['median_ms']:.4f} | {r['tflops']:.2f} | {r['gbps']:.0f} | {b.get('name','')} | "
          f"{b.get('median_ms', 0):.4f} | {ratio} |")
