#!/usr/bin/env bash
# Tile candidates for the conv template on a few ResNet-50 layers and a 3-D UNet layer, each timed against cuDNN in
# the same run: what the defaults and conv_bench.sh's choices are based on.
# Usage: conv_candidates.sh OUTDIR   (run from the repository root)
set -uo pipefail
out=$1
kx=build/bin/kx
mkdir -p "$out"
layers=(
  "s2_3x3 N=32,C=64,K=64,Hi=56,Wi=56,Y=3,X=3,pad_h=1,pad_w=1"
  "s4_3x3 N=32,C=256,K=256,Hi=14,Wi=14,Y=3,X=3,pad_h=1,pad_w=1"
  "s3_1x1 N=32,C=512,K=128,Hi=28,Wi=28,Y=1,X=1,pad_h=0,pad_w=0"
  "unet3d_l2 N=8,C=64,K=64,Di=32,Hi=32,Wi=32,Z=3,Y=3,X=3,pad_d=1,pad_h=1,pad_w=1"
)
configs=(
  "BM=128,BN=64,WM=64,WN=32"
  "BM=128,BN=64,WM=64,WN=32,STAGES=3"
  "BM=128,BN=64,WM=64,WN=32,BK=64,STAGES=3"
  "BM=128,BN=64,WM=32,WN=32"
  "BM=256,BN=64,WM=64,WN=32"
  "BM=128,BN=128,WM=64,WN=64"
  "BM=128,BN=128,WM=64,WN=32"
  "BM=64,BN=64,WM=32,WN=32"
)
for layer in "${layers[@]}"; do
  read -r name sizes <<< "$layer"
  for dir in fwd bwd_data; do
    for cfg in "${configs[@]}"; do
      line=$($kx run conv --arch native --set "direction=$dir,$cfg" --size "$sizes" --reps 20 --warmup 3 --json 2>/tmp/kx-cand.err | python3 -c '
import json, sys
text = sys.stdin.read()
try:
    r = json.loads(text)
except ValueError:
    print("run failed:", open("/tmp/kx-cand.err").read().strip()[-200:].replace("\n", " ")); sys.exit()
b = r["baselines"][0]
verdict = "PASS" if r["correctness"]["passed"] else "FAIL"
print("%.4f ms  %.1f TFLOP/s  %.0f%% of %s  %s" % (r["median_ms"], r["tflops"], 100 * b["speedup"], b["name"][:40], verdict))')
      echo "$name $dir $cfg: $line" | tee -a "$out/conv_candidates.txt"
    done
  done
done
