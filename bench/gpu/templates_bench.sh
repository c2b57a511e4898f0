#!/usr/bin/env bash
# Every template's default config at its default sizes, and a few candidate configs where the
# default was a close call, each against the baselines its manifest names (CUB, cuBLAS, the
# device's copy), timed in the same run on the same GPU. Writes JSON lines and a Markdown table.
# Usage: templates_bench.sh OUTDIR [TEMPLATE...]   (default: every template kx lists)
set -uo pipefail
out=$1; shift
kx=build/bin/kx
mkdir -p "$out"
: > "$out/template_runs.jsonl"
run() {  # template, label, kx run options...
  local t=$1 label=$2; shift 2
  $kx run "$t" --arch native "$@" --reps 30 --warmup 5 --json > /tmp/kx-one.json 2> /tmp/kx-one.err
  python3 bench/gpu/run_line.py /tmp/kx-one.json /tmp/kx-one.err "$t" "$label" >> "$out/template_runs.jsonl"
}
templates=("$@")
if ((${#templates[@]} == 0)); then
  mapfile -t templates < <($kx templates --json | python3 -c 'import json,sys; [print(t["id"]) for t in json.load(sys.stdin)]')
fi
for t in "${templates[@]}"; do
  run "$t" "default"
  case $t in
    radix_sort)
      for cfg in LOOKBACK=1 LOOKBACK=4 LOOKBACK=16 MIN_BLOCKS=3 MIN_BLOCKS=4 ITEMS=12 "MIN_BLOCKS=4,ITEMS=12" "MIN_BLOCKS=4,LOOKBACK=16" \
                 "BLOCK=512,MIN_BLOCKS=2" "BLOCK=384,ITEMS=16,MIN_BLOCKS=3" "BLOCK=128,ITEMS=16" rank=ballot "rank=ballot,MIN_BLOCKS=4" BITS=7 \
                 sort=pairs "sort=pairs,ITEMS=12" "sort=pairs,MIN_BLOCKS=4" "sort=pairs,rank=ballot,MIN_BLOCKS=4" algorithm=classic; do
        run "$t" "$cfg" --set "$cfg"; done ;;
    stencil)
      for cfg in "TX=32,TY=4" "TX=64,TY=4" "TX=32,TY=8" "TX=128,TY=4" "TX=64,TY=16" "TX=128,TY=8" \
                 "strategy=naive" "order=2" "order=2,strategy=naive" "order=2,TX=32,TY=8" "order=2,PREFETCH=2" \
                 "strategy=smem_async" "order=2,strategy=smem_async" "order=2,strategy=smem_async,PREFETCH=4"; do
        run "$t" "$cfg" --set "$cfg"; done
      run "$t" "preset tuned" --preset tuned
      run "$t" "order=2, preset tuned" --set order=2 --preset tuned ;;
    transpose)
      for cfg in "smem=none" "smem=naive_smem" "smem=swizzle" "TILE=32,BLOCK_ROWS=2" "TILE=64,BLOCK_ROWS=4" "TILE=64,BLOCK_ROWS=16" \
                 "TILE=64,BLOCK_ROWS=4,smem=swizzle" "dtype=f16" "dtype=f64" \
                 "smem=pairs" "smem=pairs,TILE=64,BLOCK_ROWS=4" "smem=pairs,TILE=64,BLOCK_ROWS=8" "smem=pairs,TILE=64,BLOCK_ROWS=16" \
                 "smem=pairs,dtype=f16,TILE=64,BLOCK_ROWS=4" "smem=pairs,dtype=f16,TILE=64,BLOCK_ROWS=8"; do run "$t" "$cfg" --set "$cfg"; done
      run "$t" "preset tuned" --preset tuned
      run "$t" "f16, preset tuned" --set dtype=f16 --preset tuned
      run "$t" "f64, preset tuned" --set dtype=f64 --preset tuned ;;
    map)
      for cfg in "VEC=1" "VEC=1,ITEMS=1" "ITEMS=1" "ITEMS=4" "loop=stride" "dtype=f16" "op=gelu" "op=fma" "op=exp"; do
        run "$t" "$cfg" --set "$cfg"; done ;;
    scan)
      run "$t" "rts" --set algo=rts ;;
    gemm)
      run "$t" "dtype=bf16" --set dtype=bf16
      run "$t" "dtype=f32" --set dtype=f32 ;;
    gemm_mma)
      for cfg in "STAGES=4" "BK=64" "BK=64,STAGES=4" "BN=128" "BN=128,STAGES=4" "BM=256,BN=128" "BN=128,BK=64" \
                 "GROUP_M=1" "smem=plain" "dtype=bf16" "layout=rrr"; do
        run "$t" "$cfg" --set "$cfg"; done
      # Layouts, types and fused epilogues, each against cuBLASLt with what it fuses.
      for cfg in "layout=crr" "layout=ccr" "dtype=tf32" "dtype=tf32,layout=crr" "dtype=tf32,BN=128,STAGES=4" \
                 "dtype=i8,BK=64" "dtype=i8,BK=128" "dtype=e4m3,BK=64" "dtype=e4m3,BK=128" "dtype=e5m2,BK=64" \
                 "epilogue=relu,d0=bias" "epilogue=gelu_tanh,d0=bias" "epilogue=gelu_erf,d0=bias" "epilogue=silu,d0=residual" \
                 "d0=residual,scale=scaled" "dtype=bf16,layout=ccr,epilogue=gelu_tanh,d0=residual"; do
        run "$t" "$cfg" --set "$cfg"; done
      run "$t" "8192^3" --size M=8192,N=8192,K=8192
      run "$t" "bf16 8192^3" --set dtype=bf16 --size M=8192,N=8192,K=8192 ;;
    rownorm)
      for cfg in "op=softmax" "op=rmsnorm" "fuse=residual" "op=rmsnorm,fuse=residual" "op=softmax,fuse=dropout" \
                 "op=softmax,fuse=dropout,STAGE=1" "MIN_BLOCKS=1" "BLOCK=128,ROW_THREADS=128,ITEMS=8" "dtype=bf16" "dtype=f32"; do
        run "$t" "$cfg" --set "$cfg"; done
      for p in tuned_softmax_f16 tuned_layernorm_f16 tuned_rmsnorm_f16 tuned_softmax_dropout_f16; do run "$t" "preset $p" --preset $p; done ;;
    glu)
      for cfg in "op=geglu" "ITEMS=2,VEC=8" "dtype=bf16"; do run "$t" "$cfg" --set "$cfg"; done ;;
    norm_rope)
      for cfg in "VEC=8" "VEC=2" "BLOCK=128" "HEAD_DIM=64" "dtype=bf16"; do run "$t" "$cfg" --set "$cfg"; done ;;
    attention)
      for cfg in "WARPS=4" "WARPS=4,BLOCK_N=32" "WARPS=4,STAGES=3" "BLOCK_N=128" "mask=causal" "mask=causal,WARPS=4" \
                 "LSE=true" "dtype=bf16" "dtype=bf16,WARPS=4" "HEAD_DIM=64" "HEAD_DIM=64,WARPS=4" "HEAD_DIM=64,BLOCK_N=128" \
                 "HEAD_DIM=256,BLOCK_M=64" "HEAD_DIM=256,BLOCK_M=64,BLOCK_N=32"; do
        run "$t" "$cfg" --set "$cfg"; done
      run "$t" "GQA 32:8 causal" --set mask=causal --size heads=32,kv_heads=8 ;;
    ln_linear)
      for cfg in "BK=64" "STAGES=4" "BK=64,STAGES=4" "BN=128" "BM=256,BN=128" "WM=32,WN=32,BN=128" "dtype=bf16"; do
        run "$t" "$cfg" --set "$cfg"; done
      run "$t" "4096 x 4096 x 4096" --size M=4096,N=4096,K=4096 ;;
    attention_wgmma)
      for cfg in "OVERLAP=false" "STAGES=2" "mask=causal" "mask=causal,OVERLAP=false" "CONSUMERS=1" "dtype=bf16" \
                 "HEAD_DIM=64" "HEAD_DIM=64,STAGES=4" "LSE=true"; do
        run "$t" "$cfg" --set "$cfg"; done
      run "$t" "GQA 32:8 causal" --set mask=causal --size heads=32,kv_heads=8
      run "$t" "preset tuned_d64" --preset tuned_d64
      run "$t" "causal, preset tuned_d64" --set mask=causal --preset tuned_d64 ;;
    gemm_wgmma)
      for cfg in "INFLIGHT=0" "STAGES=3" "BN=128" "BN=128,MT=2" "CONSUMERS=1" "GROUP_M=1" "dtype=bf16" \
                 "dtype=tf32" "dtype=tf32,STAGES=3" "dtype=e4m3" "dtype=e4m3,STAGES=3" "dtype=e5m2" \
                 "STORE=direct" "PERSISTENT=0" "PERSISTENT=0,STORE=direct" "SCHEDULE=pingpong" "SCHEDULE=pingpong,BN=128,MT=2" "SCHEDULE=pingpong,BN=128,MT=2,STAGES=6" \
                 "CLUSTER_M=2" "dtype=bf16,CLUSTER_M=2" "dtype=e4m3,CLUSTER_M=2" "dtype=tf32,CLUSTER_M=2" \
                 "epilogue=relu,d0=bias" "epilogue=gelu_tanh,d0=bias" "epilogue=gelu_erf,d0=bias" "epilogue=silu,d0=residual" \
                 "d0=residual,scale=scaled" "dtype=bf16,epilogue=gelu_tanh,d0=residual" "dtype=e4m3,epilogue=relu,d0=bias" "dtype=i8" "dtype=i8,CLUSTER_M=2"; do
        run "$t" "$cfg" --set "$cfg"; done
      run "$t" "8192^3" --size M=8192,N=8192,K=8192
      run "$t" "bf16 8192^3" --set dtype=bf16 --size M=8192,N=8192,K=8192
      run "$t" "tf32 8192^3" --set dtype=tf32 --size M=8192,N=8192,K=8192
      run "$t" "e4m3 8192^3" --set dtype=e4m3 --size M=8192,N=8192,K=8192
      run "$t" "i8 8192^3" --set dtype=i8 --size M=8192,N=8192,K=8192 ;;
  esac
done
python3 bench/gpu/summarize_templates.py "$out/template_runs.jsonl" > "$out/templates.md"
cat "$out/templates.md"
