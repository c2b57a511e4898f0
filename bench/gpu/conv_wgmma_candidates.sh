#!/usr/bin/env bash
# Tile candidates for conv_wgmma on the GPU: a sweep of the tile width, row blocks, stages,
# channels per stage and persistence over forward layers with 64 to 512 filters (ResNet-50 batch 32, 3-D UNet batch 8),
# each point checked and timed (no baseline: conv_bench.sh times cuDNN). Writes one CSV a layer.
# Usage: conv_wgmma_candidates.sh OUTDIR   (run from the repository root)
set -uo pipefail
out=$1
kx=${KX:-build/bin/kx}
mkdir -p "$out"
# name, sizes, and the parameter values to try
layers=(
  "resnet50.s2_3x3 N=32,C=64,K=64,Hi=56,Wi=56 BN=64,128 STAGES=4,6"
  "resnet50.s4_3x3 N=32,C=256,K=256,Hi=14,Wi=14 BN=128,256 STAGES=4,6"
  "resnet50.s5_3x3 N=32,C=512,K=512,Hi=7,Wi=7 BN=128,256 STAGES=4,6"
  "unet3d.l1_3x3x3 N=8,C=32,K=32,Di=64,Hi=64,Wi=64,Z=3,pad_d=1 BN=32,64 STAGES=4,6,8"
  "unet3d.l2_3x3x3 N=8,C=64,K=64,Di=32,Hi=32,Wi=32,Z=3,pad_d=1 BN=64,128 STAGES=4,6"
  "unet3d.l3_3x3x3 N=8,C=128,K=128,Di=16,Hi=16,Wi=16,Z=3,pad_d=1 BN=128,256 STAGES=4,6"
  "unet3d.down_2x2x2 N=8,C=32,K=64,Di=64,Hi=64,Wi=64,Z=2,Y=2,X=2,stride_d=2,stride_h=2,stride_w=2,pad_h=0,pad_w=0 BN=64,128 STAGES=4,6,8"
)
for layer in "${layers[@]}"; do
  read -r name sizes bn stages <<< "$layer"
  $kx sweep conv_wgmma --arch native --size "$sizes" --vary "$bn" --vary MT=1,2 --vary "$stages" --vary SLICE=32,64 \
    --vary PERSISTENT=0,1 --valid-only --no-baseline -j 16 --csv "$out/conv_wgmma_$name.csv" > "$out/sweep_log.txt" 2>&1
  echo "== $name ($sizes)"; grep -E "^(STATUS|measured)" "$out/sweep_log.txt" | head -4
done
