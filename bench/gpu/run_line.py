#!/usr/bin/env python3
"""One JSON line for a bench's runs file: `kx run --json`'s report (or, when the run printed no
report, its error), with the template and label the table shows.
Usage: run_line.py REPORT.json STDERR.txt TEMPLATE LABEL"""
import json
import sys

try:
    r = json.load(open(sys.argv[1]))
except Exception:
    r = {"ok": False, "error": open(sys.argv[2]).read().strip()[-400:]}
r["template"], r["label"] = sys.argv[3], sys.argv[4]
print(json.dumps(r))
