#!/usr/bin/env python3
"""One line of a bench's table from a runs-file JSON line on stdin: template, label, check, time,
TFLOP/s, registers, and the first baseline's time and the kernel's share of its speed."""
import json
import sys

r = json.loads(sys.stdin.read())
b = (r.get("baselines") or [{}])[0]
c = r.get("correctness", {})
print(f'{r["template"]:16} {r["label"]:24} pass={c.get("passed")} {r.get("median_ms") or 0:.4f} ms {r.get("tflops") or 0:6.1f} TFLOP/s '
      f'regs={r.get("registers")} | {b.get("id")} {b.get("median_ms") or 0:.4f} ms -> {100 * (b.get("speedup") or 0):.1f} % '
      f'{str(r.get("error", ""))[:300]}')
