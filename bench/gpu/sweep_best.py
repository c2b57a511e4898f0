#!/usr/bin/env python3
"""The fastest measured, passing config of a `kx sweep --csv` file, as KEY=VALUE,... over the
parameters named. Usage: sweep_best.py SWEEP.csv PARAM..."""
import csv
import sys

rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["status"] == "measured" and r["verdict"] == "PASS" and r["median_ms"]]
best = min(rows, key=lambda r: float(r["median_ms"]))
print(",".join(f"{k}={best[k]}" for k in sys.argv[2:]))
