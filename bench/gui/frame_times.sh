#!/usr/bin/env bash
# Frame times of kernel-explorer while compiling, switching views and scrolling a long PTX,
# under Xvfb (software rendering: Mesa llvmpipe), at 1920x1080, 1600x1000 (the default window)
# and 1280x720 (SIZES overrides); then the CPU an
# idle window uses, measured from outside through /proc over IDLE_SECONDS.
#
#   bench/gui/frame_times.sh [BUILD_DIR] > bench/results/cpu/gui_frame_times.txt
#
# Each `frame-stats` line gives the whole frame (waking up to the buffer swap, the renderer's
# rasterising included) and "UI build" (models, views and ImGui's draw lists, before the renderer).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-$root/build}"
app="$build/bin/kernel-explorer"
idle_seconds="${IDLE_SECONDS:-20}"
export KX_DATA_DIR="$root"

echo "# kernel-explorer frame times, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(uname -m)"
for size in ${SIZES:-1920x1080 1600x1000 1280x720}; do
    w="${size%x*}"
    h="${size#*x}"
    echo "## $size: compiling / switching views / scrolling PTX"
    xvfb-run -a -s "-screen 0 ${size}x24" "$app" --script "$root/bench/gui/frame_times.script" --width "$w" --height "$h" 2>&1 |
        grep -E "frame-stats|error" || true
done

# Idle: a real window with nothing to do, measured from outside. The app and the X server are
# this script's own children, stopped by their process ids.
echo "## idle CPU at 1920x1080 over ${idle_seconds} s"
display=":$((90 + RANDOM % 100))"
Xvfb "$display" -screen 0 1920x1080x24 -nolisten tcp >/dev/null 2>&1 &
xvfb_pid=$!
sleep 2
idle_script="$(mktemp)"
printf 'template gemm\narch sm_90\nwait-compile\n' >"$idle_script"
DISPLAY="$display" "$app" --script "$idle_script" --width 1920 --height 1080 >/dev/null 2>&1 &
app_pid=$!
sleep 15  # the compile and the GPU probe end, the app goes to sleep
ticks() { awk '{print $14 + $15}' "/proc/$app_pid/stat"; }
hz="$(getconf CLK_TCK)"
t0="$(ticks)"
sleep "$idle_seconds"
t1="$(ticks)"
kill "$app_pid" "$xvfb_pid" 2>/dev/null || true
wait "$app_pid" "$xvfb_pid" 2>/dev/null || true
rm -f "$idle_script"
awk -v a="$t0" -v b="$t1" -v hz="$hz" -v s="$idle_seconds" \
    'BEGIN { printf "idle: %.2f%% of a core (%d ticks of 1/%d s over %d s, /proc/PID/stat utime+stime)\n", (b - a) / hz / s * 100, b - a, hz, s }'
