#!/usr/bin/env bash
# The measurements the performance targets of the open work ask for, on the GPU this runs on,
# each against its baselines timed in the same process, one part per call so that each fits a
# short lease of a GPU machine:
#   gemm         tensor-core GEMMs (wgmma: f16, bf16, tf32, e4m3 at 4096^3 and 8192^3; mma.sync f16),
#                fp32 on the CUDA cores (the tuned preset), skinny decode shapes (M = 16, 64, 128)
#   transformer  attention (wgmma and mma.sync, causal and not, B=4 H=32 S=4096 D=128; wgmma at
#                D=64 and 256 with their presets), softmax,
#                LayerNorm and RMSNorm presets (16384 x 8192), the fused ops against their unfused
#                sequences (residual + LayerNorm, softmax + dropout, SwiGLU, GeGLU, RMSNorm + RoPE,
#                LayerNorm + Linear, normalised in registers, folded, and with X read once at N = 64
#                and 128); then PyTorch on the same
#                shapes in the same job (torch_same_job.py: SDPA, softmax, layer_norm, rms_norm and
#                the unfused sequences), written to OUTDIR/transformer_torch.md
#   conv         conv_wgmma on ResNet-50 and 3-D UNet layers against cuDNN (conv_bench.sh)
#   generic      the data-parallel set at its default sizes: each template's default and its tuned
#                preset, and the teaching configs whose slowness is the lesson (transpose without
#                padding, global atomics, the ladder's naive and warp-tile rungs)
#   templates    every template's default against its baselines (templates_bench.sh)
# Writes OUTDIR/PART_runs.jsonl and OUTDIR/PART.md (conv and templates: their scripts' files).
# Usage (repository root, binaries built or carried): bench/gpu/open_issues.sh OUTDIR PART...
set -uo pipefail
out=$1; shift
kx=${KX:-build/bin/kx}
mkdir -p "$out"

run() {  # part, template, label, kx run options...
  local part=$1 t=$2 label=$3; shift 3
  $kx run "$t" --arch native "$@" --reps 30 --warmup 5 --json > /tmp/kx-issue.json 2> /tmp/kx-issue.err
  python3 bench/gpu/run_line.py /tmp/kx-issue.json /tmp/kx-issue.err "$t" "$label" >> "$out/${part}_runs.jsonl"
  tail -1 "$out/${part}_runs.jsonl" | python3 -c 'import json,sys
r = json.load(sys.stdin)
b = next((x for x in r.get("baselines", []) if not x.get("error")), {})
print("%-16s %-44s %-5s %9s ms  %s" % (r["template"], r["label"][:44], "PASS" if r.get("correctness", {}).get("passed") else "FAIL",
      "%.4f" % r["median_ms"] if r.get("ok") else "-", ("%.1f%% of %s" % (100 * b["speedup"], b["name"])) if b else r.get("error", "")[:120]))'
}

gemm() {
  local p=gemm
  for s in 4096 8192; do
    for d in f16 bf16 tf32 e4m3; do run $p gemm_wgmma "$d ${s}^3" --set dtype=$d --size M=$s,N=$s,K=$s; done
    run $p gemm "f32 ${s}^3, preset tuned_f32" --preset tuned_f32 --size M=$s,N=$s,K=$s
  done
  run $p gemm_mma "f16 4096^3 (mma.sync)" --size M=4096,N=4096,K=4096
  for nk in 4096 8192; do
    for m in 16 64 128; do run $p gemm_wgmma "M=$m N=K=$nk, preset decode_m$m" --preset decode_m$m --size M=$m,N=$nk,K=$nk; done
  done
}

transformer() {
  local p=transformer shape="batch=4,heads=32,kv_heads=32,seq_q=4096,seq_k=4096"
  for mask in none causal; do
    run $p attention_wgmma "mask $mask, preset tuned" --preset tuned --set mask=$mask --size $shape
    run $p attention "mask $mask, preset tuned (mma.sync)" --preset tuned --set mask=$mask --size $shape
    run $p attention_wgmma "mask $mask, d = 64, preset tuned_d64" --preset tuned_d64 --set mask=$mask --size $shape
  done
  run $p attention_wgmma "d = 256, preset tuned_d256" --preset tuned_d256 --size $shape
  for op in softmax layernorm rmsnorm; do
    for d in f16 bf16; do run $p rownorm "$op $d, preset tuned_${op}_f16" --preset tuned_${op}_f16 --set dtype=$d; done
  done
  run $p rownorm "layernorm + residual" --set op=layernorm,fuse=residual
  run $p rownorm "softmax + dropout" --set op=softmax,fuse=dropout
  run $p rownorm "softmax + dropout, staged" --set op=softmax,fuse=dropout,STAGE=1
  run $p rownorm "softmax + dropout, preset" --preset tuned_softmax_dropout_f16
  run $p glu "GeGLU" --set op=geglu
  run $p glu "SwiGLU (default)"
  run $p norm_rope "RMSNorm + RoPE (default)"
  run $p ln_linear_wgmma "LayerNorm + Linear (default)"
  run $p ln_linear_wgmma "LayerNorm + Linear, preset folded" --preset folded
  # Few output columns, where reading X bounds the GEMM: X read once (the presets carry M, N, K).
  for n in 64 128; do
    run $p ln_linear_wgmma "LayerNorm + Linear, N = $n, preset one_pass_n$n" --preset one_pass_n$n
    run $p ln_linear_wgmma "LayerNorm + Linear, N = $n, folded" --set NORM=folded,BN=$n --size M=32768,N=$n,K=4096
  done
}

generic() {
  local p=generic
  run $p map "add f32 (default)"
  run $p map "add f16" --set dtype=f16
  run $p reduce "sum f32 (default)"
  run $p scan "inclusive sum f32 (default)"
  run $p scan "preset tuned" --preset tuned
  run $p scan "reduce-then-scan" --set algo=rts
  run $p filter "x > t f32 (default)"
  run $p histogram "256 bins, per block (default)"
  run $p histogram "256 bins, global atomics" --set privatize=global
  run $p histogram "4096 bins" --set BINS=4096
  run $p transpose "f32 padded (default)"
  run $p transpose "f32 no padding" --set smem=naive_smem
  run $p transpose "f32 swizzled" --set smem=swizzle
  run $p transpose "f32, preset tuned" --preset tuned
  run $p transpose "f16, preset tuned" --set dtype=f16 --preset tuned
  run $p stencil "25-point (default)"
  run $p stencil "7-point, preset seven_point" --preset seven_point
  run $p stencil "25-point, preset twenty_five_point" --preset twenty_five_point
  run $p stencil "25-point naive" --set strategy=naive
  run $p radix_sort "keys (default)"
  run $p radix_sort "pairs" --set sort=pairs
  run $p join "int32 keys (default)"
  run $p group_by "sum (default)"
  run $p matmul_ladder "naive (default)"
  run $p matmul_ladder "warp tiles" --set STAGE=warptile
}

for part in "$@"; do
  case $part in
    gemm | transformer | generic)
      : > "$out/${part}_runs.jsonl"
      $part
      python3 bench/gpu/summarize_templates.py "$out/${part}_runs.jsonl" > "$out/$part.md"
      if [[ $part == transformer ]]; then
        python3 bench/gpu/torch_same_job.py "$out/transformer_runs.jsonl" > "$out/transformer_torch.md" 2> "$out/transformer_torch.err" ||
          echo "open_issues.sh: PyTorch timings failed (see transformer_torch.err)" >&2
      fi ;;
    conv) KX_CONV_TEMPLATE=conv_wgmma bench/gpu/conv_bench.sh "$out" ;;
    templates) bench/gpu/templates_bench.sh "$out" ;;
    *) echo "open_issues.sh: unknown part '$part' (gemm, transformer, generic, conv, templates)" >&2; exit 2 ;;
  esac
done
