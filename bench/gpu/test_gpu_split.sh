#!/usr/bin/env bash
# The non-GUI [gpu] tests in five processes spread over the machine's GPUs: on one H200 the
# suite takes over ten minutes.
# The last group is every case the others leave out, so a new case runs somewhere.
# Usage: test_gpu_split.sh OUTDIR   (from the repository root, with build/bin/test_gpu built;
# each group writes OUTDIR/test_gpu_N.txt; exit 1 when any group failed)
set -uo pipefail
out=$1
mkdir -p "$out"
test_gpu=${TEST_GPU:-build/bin/test_gpu}
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU') || gpus=1
((gpus > 0)) || gpus=1
# [large] (the data-parallel set past 2^31 bytes) spends most of its time making and checking
# gigabytes on the host, so it shares the first GPU with two groups that keep it busy.
groups=(
  '"every parameter value*"'
  '"every combination*","every preset*"'
  '[large]'
  '"conv*","gemm_mma*","stencil*","radix_sort*","attention_wgmma*"'
  '~[gui] ~[large] ~"every parameter value*" ~"every combination*" ~"every preset*" ~"conv*" ~"gemm_mma*" ~"stencil*" ~"radix_sort*" ~"attention_wgmma*"'
)
pids=()
for i in "${!groups[@]}"; do
  CUDA_VISIBLE_DEVICES=$(( i * gpus / ${#groups[@]} )) "$test_gpu" "${groups[$i]}" --durations yes > "$out/test_gpu_$i.txt" 2>&1 &
  pids+=($!)
done
status=0
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || { status=1; echo "group $i failed: $out/test_gpu_$i.txt"; }
  grep -E '^(All tests passed|test cases:)' "$out/test_gpu_$i.txt" | tail -1 | sed "s/^/group $i: /"
done
exit $status
