#!/usr/bin/env bash
# The conv template against cuDNN (or im2col + cuBLAS when libcudnn cannot be loaded), timed in
# the same process: ResNet-50's convolutions (batch 32) and a 3-D UNet's (batch 8), f16,
# channels last, in all three directions. Writes JSON lines and a Markdown table with the
# geometric mean of the ratios per direction and layer set.
# Usage: conv_bench.sh OUTDIR [fwd|bwd_data|bwd_weight ...]   (run from the repository root)
# KX_CONV_TEMPLATE=conv_wgmma times the Hopper template instead (layers it cannot run, channel
# counts the TMA cannot copy, are reported as refused). KX_BENCH_SMS: the GPU's SM count (132).
set -uo pipefail
out=$1; shift
template=${KX_CONV_TEMPLATE:-conv}
directions=("$@")
((${#directions[@]})) || directions=(fwd bwd_data bwd_weight)
kx=${KX:-build/bin/kx}
sms=${KX_BENCH_SMS:-132}  # SMs of the GPU (H100 and H200: 132), for the Split-K counts that fill them
mkdir -p "$out"
runs=$out/${template}_runs.jsonl
: > "$runs"

# name set N C K H W filter stride pad (2-D: D = Z = 1) or, for 3-D layers, D and Z equal H and Y.
layers=(
  "resnet50.conv1 resnet 32 3 64 224 224 7 2 3 2d"
  "resnet50.s2_1x1a resnet 32 64 64 56 56 1 1 0 2d"
  "resnet50.s2_3x3 resnet 32 64 64 56 56 3 1 1 2d"
  "resnet50.s2_1x1b resnet 32 64 256 56 56 1 1 0 2d"
  "resnet50.s2_1x1c resnet 32 256 64 56 56 1 1 0 2d"
  "resnet50.s3_3x3s2 resnet 32 128 128 56 56 3 2 1 2d"
  "resnet50.s3_3x3 resnet 32 128 128 28 28 3 1 1 2d"
  "resnet50.s3_1x1 resnet 32 512 128 28 28 1 1 0 2d"
  "resnet50.s4_3x3 resnet 32 256 256 14 14 3 1 1 2d"
  "resnet50.s4_1x1 resnet 32 1024 256 14 14 1 1 0 2d"
  "resnet50.s5_3x3 resnet 32 512 512 7 7 3 1 1 2d"
  "resnet50.s5_1x1 resnet 32 2048 512 7 7 1 1 0 2d"
  "unet3d.l1_3x3x3 unet3d 8 32 32 64 64 3 1 1 3d"
  "unet3d.l2_3x3x3 unet3d 8 64 64 32 32 3 1 1 3d"
  "unet3d.l3_3x3x3 unet3d 8 128 128 16 16 3 1 1 3d"
  "unet3d.l4_3x3x3 unet3d 8 256 256 8 8 3 1 1 3d"
  "unet3d.down_2x2x2 unet3d 8 32 64 64 64 2 2 0 3d"
)

# The mma.sync template's tiles per layer and direction: the fastest of the wave-aware sweeps on an
# H200 (bench/results/nvidia-h200/conv_waves.md): tile shapes whose blocks fill whole waves of the
# 132 SMs, and Split-K slices that make tiles x SPLITK just fill them (H100 and H200 both have 132
# SMs). Combinations not listed fall back to config_for's rules below.
declare -A tuned=(
  [resnet50.conv1:bwd_weight]="direction=bwd_weight,BM=256,BN=128,WM=64,WN=64,BK=32,STAGES=4,SPLITK=64"
  [resnet50.s2_1x1a:bwd_weight]="direction=bwd_weight,BM=128,BN=64,WM=64,WN=32,BK=32,STAGES=4,SPLITK=32"
  [resnet50.s2_1x1b:bwd_weight]="direction=bwd_weight,BM=64,BN=128,WM=64,WN=32,BK=32,STAGES=4,SPLITK=64"
  [resnet50.s2_1x1c:bwd_weight]="direction=bwd_weight,BM=256,BN=128,WM=64,WN=64,BK=32,STAGES=4,SPLITK=64"
  [resnet50.s2_3x3:bwd_data]="direction=bwd_data,BM=128,BN=64,WM=32,WN=32,BK=32,STAGES=4"
  [resnet50.s2_3x3:bwd_weight]="direction=bwd_weight,BM=64,BN=64,WM=32,WN=32,BK=32,STAGES=4,SPLITK=58"
  [resnet50.s2_3x3:fwd]="direction=fwd,BM=128,BN=64,WM=64,WN=32,BK=32,STAGES=4"
  [resnet50.s3_1x1:bwd_weight]="direction=bwd_weight,BM=128,BN=64,WM=64,WN=32,BK=32,STAGES=4,SPLITK=49"
  [resnet50.s3_3x3:bwd_data]="direction=bwd_data,BM=64,BN=128,WM=32,WN=64,BK=32,STAGES=4"
  [resnet50.s3_3x3:bwd_weight]="direction=bwd_weight,BM=128,BN=64,WM=64,WN=32,BK=32,STAGES=4,SPLITK=22"
  [resnet50.s3_3x3:fwd]="direction=fwd,BM=64,BN=128,WM=32,WN=64,BK=32,STAGES=4"
  [resnet50.s3_3x3s2:bwd_weight]="direction=bwd_weight,BM=128,BN=64,WM=64,WN=32,BK=32,STAGES=4,SPLITK=22"
  [resnet50.s4_1x1:bwd_weight]="direction=bwd_weight,BM=128,BN=64,WM=64,WN=32,BK=32,STAGES=4,SPLITK=12"
  [resnet50.s4_3x3:bwd_data]="direction=bwd_data,BM=64,BN=64,WM=32,WN=32,BK=64,STAGES=3"
  [resnet50.s4_3x3:bwd_weight]="direction=bwd_weight,BM=256,BN=128,WM=64,WN=64,BK=32,STAGES=4,SPLITK=7"
  [resnet50.s4_3x3:fwd]="direction=fwd,BM=64,BN=64,WM=32,WN=32,BK=64,STAGES=3"
  [resnet50.s5_1x1:bwd_weight]="direction=bwd_weight,BM=128,BN=64,WM=64,WN=32,BK=32,STAGES=4,SPLITK=3"
  [resnet50.s5_3x3:bwd_data]="direction=bwd_data,BM=128,BN=64,WM=32,WN=32,BK=32,STAGES=4,SPLITK=5"
  [resnet50.s5_3x3:bwd_weight]="direction=bwd_weight,BM=256,BN=128,WM=64,WN=64,BK=32,STAGES=4,SPLITK=3"
  [resnet50.s5_3x3:fwd]="direction=fwd,BM=128,BN=128,WM=64,WN=64,BK=32,STAGES=4,SPLITK=5"
  [unet3d.down_2x2x2:bwd_weight]="direction=bwd_weight,BM=256,BN=128,WM=64,WN=64,BK=32,STAGES=4,SPLITK=64"
  [unet3d.l1_3x3x3:bwd_data]="direction=bwd_data,BM=128,BN=32,WM=32,WN=32,BK=32,STAGES=4"
  [unet3d.l1_3x3x3:bwd_weight]="direction=bwd_weight,BM=64,BN=128,WM=64,WN=32,BK=64,STAGES=3,SPLITK=37"
  [unet3d.l1_3x3x3:fwd]="direction=fwd,BM=128,BN=32,WM=64,WN=32,BK=32,STAGES=4"
  [unet3d.l2_3x3x3:bwd_data]="direction=bwd_data,BM=128,BN=64,WM=32,WN=32,BK=32,STAGES=4"
  [unet3d.l2_3x3x3:bwd_weight]="direction=bwd_weight,BM=64,BN=128,WM=64,WN=32,BK=64,STAGES=3,SPLITK=37"
  [unet3d.l2_3x3x3:fwd]="direction=fwd,BM=128,BN=64,WM=64,WN=32,BK=64,STAGES=3"
  [unet3d.l3_3x3x3:bwd_data]="direction=bwd_data,BM=128,BN=64,WM=32,WN=32,BK=32,STAGES=4"
  [unet3d.l3_3x3x3:bwd_weight]="direction=bwd_weight,BM=128,BN=256,WM=64,WN=64,BK=32,STAGES=4,SPLITK=9"
  [unet3d.l3_3x3x3:fwd]="direction=fwd,BM=128,BN=128,WM=64,WN=64,BK=32,STAGES=4"
  [unet3d.l4_3x3x3:bwd_data]="direction=bwd_data,BM=128,BN=64,WM=32,WN=32,BK=32,STAGES=4,SPLITK=2"
  [unet3d.l4_3x3x3:bwd_weight]="direction=bwd_weight,BM=256,BN=128,WM=64,WN=64,BK=32,STAGES=4,SPLITK=2"
  [unet3d.l4_3x3x3:fwd]="direction=fwd,BM=128,BN=128,WM=64,WN=64,BK=32,STAGES=4,SPLITK=4"
)

# A tile shape per direction and GEMM shape, from conv_candidates.sh on the H100: fwd keeps the
# default 128 x 64 tile (32 wide when there are only 32 filters) and takes 64-deep stages when K is
# long; bwd_data does best with eight 32 x 32 warps; bwd_weight takes wide tiles and Split-K so
# that about two waves of blocks fill 132 SMs.
config_for() {  # direction gemmM gemmN gemmK [channels] [stride phases] [patches: filter = stride, no padding]
  local dir=$1 m=$2 n=$3 k=$4 c=${5:-64} phases=${6:-1} patches=${7:-0}
  if [[ $template == conv_wgmma ]]; then  # from conv_wgmma_candidates.sh on the H200
    local wbn=128 slice=64 mt=1 stages=6
    ((n <= 64)) && wbn=64
    ((n <= 32)) && wbn=32
    ((c <= 32)) && slice=32
    # Many output pixels: 256-pixel tiles (two row blocks a consumer), four stages to fit.
    if ((m >= 200000 || (n >= 128 && m >= 32768))); then mt=2; stages=4; fi
    # 32-channel forward: two blocks per SM with four 18 KB stages each (78 % of cuDNN; one
    # block with eight stages 76 %, with four 74 %).
    local blocks=""
    [[ $dir == fwd ]] && ((slice == 32 && wbn == 32)) && { stages=4; blocks=",BLOCKS_PER_SM=2"; }
    # Few input channels (ResNet's first layer): the width taps folded into the channels.
    if [[ $dir == fwd ]] && ((c % 8)); then echo "direction=fwd,FOLD=1,SLICE=32,BN=64,MT=2,STAGES=8"; return; fi
    # bwd_weight folds into 32-channel rows (21 real; MN_ATOM=32), 64-row tiles, two blocks per SM
    # (--preset few_channels_weight: 0.109 ms against 0.125 with 64-channel rows and 128-row tiles).
    if [[ $dir == bwd_weight ]] && ((c % 8)); then echo "direction=bwd_weight,FOLD=1,MN_ATOM=32,BN=64,MT=1,CONSUMERS=1,STAGES=6,SPLITK=32,BLOCKS_PER_SM=2"; return; fi
    # Backward data into few channels: the filter transposed by a first kernel (k-major, any C),
    # 32-wide tiles (the --preset few_channels_data sweep's fastest).
    if [[ $dir == bwd_data ]] && ((n % 8)); then echo "direction=bwd_data,DATA_FILTER=transposed,BN=32,MT=2,CONSUMERS=2,STAGES=4,SLICE=32,BLOCKS_PER_SM=2"; return; fi
    # Stride 1 and a filter of several taps: the halo gather (a tile's input box copied once for
    # every tap) where the im2col copies' re-reads cost most: UNet's first layer (32 channels)
    # forward and backward data with the filter resident (163 % and 184 % of cuDNN in the sweeps,
    # against 81 % and 84 %), its 64-channel layer with the filter's taps streamed with the stages
    # (0.133 -> 0.101 ms forward, 0.137 -> 0.104 ms backward data), ResNet-50's stage-2 3x3 layer
    # forward (0.030 -> 0.025 ms). Wider layers keep the im2col copies, which measured as fast or
    # faster there.
    if [[ $dir != bwd_weight ]] && ((${layer_stride:-1} == 1 && ${layer_taps:-1} > 1)); then
      if ((c <= 32 && n <= 32)); then echo "direction=$dir,GATHER=halo,SLICE=32,BN=32,MT=2,STAGES=2"; return; fi
      if ((c == 64 && n == 64 && layer_taps == 27)); then echo "direction=$dir,GATHER=halo,HALO_FILTER=streamed,SLICE=32,BN=64,MT=2,STAGES=3"; return; fi
      if [[ $dir == fwd ]] && ((c == 64 && n == 64 && layer_taps == 9)); then echo "direction=fwd,GATHER=halo,SLICE=64,BN=64,MT=1,STAGES=3"; return; fi
    fi
    [[ $dir == bwd_data ]] && ((wbn < 64)) && wbn=64
    # Patches: every stride phase's taps side by side as the columns (phases x C of them).
    if [[ $dir == bwd_data ]] && ((patches)); then echo "direction=bwd_data,BN=128,MT=2,STAGES=4,SLICE=64"; return; fi
    if [[ $dir == bwd_weight ]]; then  # rows: taps x channels (n), columns: filters (m), K: pixels
      wbn=64; ((m >= 128)) && wbn=128
      local rows=$(( (n / c) * ((c + 63) / 64) * 64 ))
      # Few rows of several taps (UNet's 2x2x2 down layer: 8 taps x 64 rows): 64-row tiles, two
      # blocks per SM (0.057 ms against 0.083 with 256-row tiles, the fastest of a 60-config
      # sweep; --preset bwd_weight_few_rows), and a unit for each of the 2 x 132 block slots (8
      # tiles x 33 slices = 264: 0.056 ms, 0.057 with 32).
      if ((rows <= 512 && n / c > 1 && m <= 64)); then
        echo "direction=bwd_weight,BN=64,MT=1,CONSUMERS=1,STAGES=6,SLICE=64,SPLITK=$(( 2 * sms / ((rows + 63) / 64) )),BLOCKS_PER_SM=2"; return
      fi
      # 256-row tiles, and as many Split-K slices as keep tiles x SPLITK within one round of the
      # persistent blocks (one per SM): 7 tiles x 18 = 126 units on 132 SMs, where 16 slices (112
      # units) left 20 SMs idle (0.139 against 0.153 ms on UNet's 64-channel layer; every layer's
      # fastest of the counts tried, conv_waves.md).
      local tiles=$(( ((rows + 255) / 256) * ((m + wbn - 1) / wbn) ))
      local split=$(( sms / tiles ))
      ((split > 64)) && split=64
      ((split < 1)) && split=1
      echo "direction=bwd_weight,BN=$wbn,MT=2,STAGES=4,SLICE=64,SPLITK=$split"
      return
    fi
    echo "direction=$dir,BN=$wbn,MT=$mt,STAGES=$stages,SLICE=$slice$blocks"
    return
  fi
  local bn=64
  ((n <= 32)) && bn=32
  case $dir in
    fwd)
      if ((k >= 1152)); then echo "direction=fwd,BM=128,BN=$bn,WM=64,WN=32,BK=64,STAGES=3"
      else echo "direction=fwd,BM=128,BN=$bn,WM=64,WN=32,BK=32,STAGES=4"; fi ;;
    bwd_data)
      # Strided: each stride phase is a GEMM over its own taps, k / phases deep. A phase only a
      # stage or two deep needs no deeper pipeline; a very tall one (ResNet's conv1, 1.6 M input
      # pixels) takes 256-row tiles.
      local phase_k=$((k / phases))
      if ((phases > 1 && phase_k <= 128)); then echo "direction=bwd_data,BM=128,BN=$bn,WM=32,WN=32,BK=32,STAGES=2"
      elif ((phases > 1 && m >= 1000000)); then echo "direction=bwd_data,BM=256,BN=$bn,WM=64,WN=32,BK=32,STAGES=3"
      else echo "direction=bwd_data,BM=128,BN=$bn,WM=32,WN=32,BK=32,STAGES=4"; fi ;;
    bwd_weight)
      local wn=32
      if ((n >= 128)); then bn=128; wn=64; fi
      local tiles=$(( ((m + 127) / 128) * ((n + bn - 1) / bn) )) split=1
      while ((split < 32 && tiles * split < 264 && k / (split * 2) >= 256)); do split=$((split * 2)); done
      echo "direction=bwd_weight,BM=128,BN=$bn,WM=64,WN=$wn,BK=32,STAGES=4,SPLITK=$split" ;;
  esac
}

for layer in "${layers[@]}"; do
  read -r name set n c k h w f s p dims <<< "$layer"
  if [[ $dims == 3d ]]; then
    sizes="N=$n,C=$c,K=$k,Di=$h,Hi=$h,Wi=$w,Z=$f,Y=$f,X=$f,stride_d=$s,stride_h=$s,stride_w=$s,pad_d=$p,pad_h=$p,pad_w=$p"
    o=$(( (h + 2 * p - f) / s + 1 )); pix=$((n * o * o * o)); ipix=$((n * h * h * w)); taps=$((f * f * f)); phases=$((s * s * s))
  else
    sizes="N=$n,C=$c,K=$k,Di=1,Hi=$h,Wi=$w,Z=1,Y=$f,X=$f,stride_d=1,stride_h=$s,stride_w=$s,pad_d=0,pad_h=$p,pad_w=$p"
    o=$(( (h + 2 * p - f) / s + 1 )); pix=$((n * o * o)); ipix=$((n * h * w)); taps=$((f * f)); phases=$((s * s))
  fi
  layer_stride=$s layer_taps=$taps  # read by config_for
  for dir in "${directions[@]}"; do
    case $dir in
      fwd) cfg=$(config_for fwd $pix $k $((taps * c)) $c) ;;
      bwd_data) cfg=$(config_for bwd_data $ipix $c $((taps * k)) $k $phases $((phases > 1 && f == s && p == 0))) ;;
      bwd_weight) cfg=$(config_for bwd_weight $k $((taps * c)) $pix $c) ;;
    esac
    [[ $template == conv && -n ${tuned[$name:$dir]:-} ]] && cfg=${tuned[$name:$dir]}
    $kx run "$template" --arch native --set "$cfg" --size "$sizes" --reps 20 --warmup 3 --json > /tmp/kx-conv.json 2> /tmp/kx-conv.err
    python3 - /tmp/kx-conv.json /tmp/kx-conv.err "$name" "$set" "$dir" "$cfg" "$sizes" >> "$runs" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception:
    r = {"ok": False, "error": open(sys.argv[2]).read().strip()[-400:]}
r["layer"], r["set"], r["direction"], r["config"], r["size_text"] = sys.argv[3:8]
print(json.dumps(r))
PY
    tail -1 "$runs" | python3 -c 'import json,sys; r=json.load(sys.stdin); b=(r.get("baselines") or [{}])[0]; print(r["layer"], r["direction"], "ok" if r.get("ok") else r.get("error","")[:200], r.get("median_ms"), b.get("name"), b.get("median_ms"), b.get("speedup"))'
  done
done
python3 bench/gpu/summarize_conv.py "$runs" > "$out/$template.md"
cat "$out/$template.md"
