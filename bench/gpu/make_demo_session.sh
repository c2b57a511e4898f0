#!/usr/bin/env bash
# Makes the demo session (sessions/demo.kxs) from real runs on the GPU this runs on: the device
# calibrated first, then GEMM at 4096^3 in three fp32 and three fp16 tile configs and the
# reduction over 2^28 floats in two configs, each with its baseline timed in the same run, all
# recorded through `kx run --session` (variant, source, PTX, SASS, ptxas report, report).
# Usage: make_demo_session.sh OUTDIR   (writes OUTDIR/demo.kxs and OUTDIR/demo_runs.txt)
set -uo pipefail
out=$1
kx=build/bin/kx
demo=$out/demo.kxs
log=$out/demo_runs.txt
rm -f "$demo" "$demo-wal" "$demo-shm"
: > "$log"
{ echo "# $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"; $kx calibrate; } >> "$log" 2>&1 || exit 1
size=M=4096,N=4096,K=4096
record() {
    echo "\$ kx run $*" >> "$log"
    $kx run "$@" --arch native --reps 30 --session "$demo" >> "$log" 2>&1 || echo "(failed: $?)" >> "$log"
}
# fp32: the default tiles, a deeper pipeline with 32-wide K tiles, and small 64x64 tiles.
record gemm --set dtype=f32,VEC=4 --size $size
record gemm --set dtype=f32,VEC=4,BK=32,STAGES=3 --size $size
record gemm --set dtype=f32,VEC=4,BM=64,BN=64,WM=32,WN=32,TM=4,TN=8,STAGES=3 --size $size
# fp16 with fp32 accumulation: the same three shapes.
record gemm --size $size
record gemm --set BK=32,STAGES=3 --size $size
record gemm --set BM=64,BN=64,WM=32,WN=32,TM=4,TN=8,STAGES=3 --size $size
# The reduction against the device's copy bandwidth.
record reduce --size n=268435456
record reduce --set BLOCK=512,ITEMS=8 --size n=268435456
$kx session list "$demo" >> "$log" 2>&1
