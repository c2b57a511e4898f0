#!/usr/bin/env bash
# Runs on a GPU machine from the repository root, with the binaries built elsewhere carried in
# .carry/bin and the shared libraries the machine lacks in .carry/lib (see README, "GPU machine").
# Usage: bench/gpu/run_on_gpu.sh tests|bench|templates|demo|all   (results go to $OUT, or ./gpu-out)
#   tests: the [gpu] tests (the GUI one under Xvfb from .gl when carried, keeping its screenshots)
#   bench: the GEMM/reduction benchmark; templates: every template against its baselines;
#   demo: sessions/demo.kxs from real runs
set -uo pipefail
what=${1:-all}
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
bench/gpu/unpack_carry.sh .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export KX_DATA_DIR=$PWD KX_CACHE_DIR=/tmp/kx-cache
# The test binaries name the source tree by its path on the build machine.
if [[ $PWD != /work/main ]]; then mkdir -p /work && ln -sfn "$PWD" /work/main; fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$out/gpu.txt"

if [[ $what == tests || $what == all ]]; then
  # The app's [gpu][gui] test needs an X server: the carried one when there is no other.
  if ! command -v xvfb-run >/dev/null; then export KX_GUI_RUN=$PWD/bench/gpu/gui_on_gpu.sh; fi
  # The rest in five processes over the GPUs (bench/gpu/test_gpu_split.sh), then the app's test.
  bench/gpu/test_gpu_split.sh "$out"
  KX_GUI_SHOTS=$out build/bin/test_gpu "[gui]" --durations yes 2>&1 | tee "$out/test_gpu_gui.txt" | tail -20
fi
if [[ $what == tests || $what == all ]]; then
  # What a user types, as the README gives it.
  { set -x
    build/bin/kx run gemm --arch native --size M=4096,N=4096,K=4096
    build/bin/kx run gemm --arch native --size M=4096,N=4096,K=4096 --set dtype=f32,VEC=4
    build/bin/kx run reduce --arch native --size n=268435456
    build/bin/kx occupancy --arch sm_90 --regs 64 --block 256 --dyn-smem 49152
    build/bin/kx mix gemm --arch sm_90
    build/bin/kx mix reduce --arch sm_90
  } > "$out/commands.txt" 2>&1
fi
if [[ $what == demo || $what == all ]]; then
  bench/gpu/make_demo_session.sh "$out"
  tail -15 "$out/demo_runs.txt"
fi
if [[ $what == bench || $what == all ]]; then
  bench/gpu/gemm_reduce_bench.sh "$out" 2>&1 | tee "$out/bench_log.txt" | tail -60
fi
if [[ $what == templates || $what == all ]]; then
  bench/gpu/templates_bench.sh "$out" 2>&1 | tee "$out/templates_log.txt" | tail -40
fi
