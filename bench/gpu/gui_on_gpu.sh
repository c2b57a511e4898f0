#!/usr/bin/env bash
# Runs kernel-explorer's scripted screenshot on a machine with no display server, under a
# virtual X server (Xvfb). Made for the GPU machine (Ubuntu 24.04, NVIDIA driver, no X), where
# Xvfb, Mesa, the GLVND loaders and the app's libraries come from .gl (scripts/pack-gui-carry.sh)
# and the binaries from $KX_CARRY/bin; also works on the dev machine with the system's Xvfb when
# .gl holds nothing.
#
# Usage, from the repository root:  bench/gpu/gui_on_gpu.sh SCRIPT OUTPNG
# Environment:
#   KX_CARRY      folder with bin/kernel-explorer and lib/ (default .carry; build/bin when absent)
#   KX_GL_ROUTE   auto (default) | nvidia | mesa | system
#                 nvidia: the app renders through the NVIDIA driver's GLX (libGLX_nvidia, with
#                 __GLX_VENDOR_LIBRARY_NAME=nvidia); mesa: Mesa llvmpipe on the CPU; system: use
#                 the machine's own GL setup untouched. auto tries nvidia where its library is
#                 there and falls back to mesa when that cannot make a window or a screenshot.
#   KX_SCREEN     Xvfb screen, WIDTHxHEIGHTxDEPTH (default 1600x1000x24); the window gets W x H
#   KX_GL_DIR     where .gl/gl-root.tar.xz is unpacked (default /tmp/kx-gl)
#   KX_APP_TIMEOUT seconds the app may run (default 600)
#   KX_GUI_COMMAND  a shell command to run under the X server instead of the app (see below)
#   KX_GUI_VERBOSE=1  also print the Xvfb log and full glxinfo -B output when all went well
#   KX_INSTALL_FONTS=0  do not copy the app's font (JetBrains Mono, its path is compiled in) to
#                 /usr/share/fonts/truetype/jetbrains-mono when that folder is missing
# Exit status: the app's (0 success), or 1 when the X server could not be started.
set -uo pipefail
if (($# != 2)); then echo "usage: $0 SCRIPT OUTPNG" >&2; exit 2; fi
script=$(realpath "$1")
png=$(realpath -m "$2")
repo=$PWD
carry=${KX_CARRY:-.carry}
[[ $carry == /* ]] || carry=$repo/$carry
route=${KX_GL_ROUTE:-auto}
screen=${KX_SCREEN:-1600x1000x24}
width=${screen%%x*}; rest=${screen#*x}; height=${rest%%x*}
arch=x86_64-linux-gnu
log() { echo "gui_on_gpu: $*" >&2; }

app=$carry/bin/kernel-explorer
[[ -x $app ]] || app=$repo/build/bin/kernel-explorer
[[ -x $app ]] || { log "no kernel-explorer in $carry/bin or build/bin"; exit 1; }
[[ -f $script ]] || { log "no script $1"; exit 2; }
mkdir -p "$(dirname "$png")"

tmp=$(mktemp -d /tmp/kx-gui.XXXXXX)
xpid=
cleanup() {
    if [[ -n $xpid ]] && kill -0 "$xpid" 2>/dev/null; then
        kill "$xpid" 2>/dev/null
        for _ in $(seq 50); do kill -0 "$xpid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$xpid" 2>/dev/null
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT

# --- The carried GL root -----------------------------------------------------------------------
glroot=
if [[ $route != system ]]; then
    if [[ -x $repo/.gl/root/usr/bin/Xvfb ]]; then
        glroot=$repo/.gl/root
    elif [[ -f $repo/.gl/gl-root.tar.xz ]]; then
        gldir=${KX_GL_DIR:-/tmp/kx-gl}
        stamp=$(cksum < "$repo/.gl/gl-root.tar.xz")
        if [[ ! -x $gldir/root/usr/bin/Xvfb || $(cat "$gldir/stamp" 2>/dev/null) != "$stamp" ]]; then
            rm -rf "$gldir"; mkdir -p "$gldir"
            t0=$SECONDS
            if command -v xz >/dev/null; then
                tar -C "$gldir" -xJf "$repo/.gl/gl-root.tar.xz" || { log "cannot unpack .gl/gl-root.tar.xz"; exit 1; }
            else
                python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
                    "$repo/.gl/gl-root.tar.xz" "$gldir" || { log "cannot unpack .gl/gl-root.tar.xz"; exit 1; }
            fi
            echo "$stamp" > "$gldir/stamp"
            log "unpacked .gl/gl-root.tar.xz into $gldir in $((SECONDS - t0)) s"
        fi
        glroot=$gldir/root
    fi
fi

# Where the NVIDIA driver's GLX library is, if anywhere.
nvglx=
for d in /usr/lib/$arch /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib64 /usr/lib; do
    if [[ -e $d/libGLX_nvidia.so.0 ]]; then nvglx=$d/libGLX_nvidia.so.0; break; fi
done
[[ -n $nvglx ]] || nvglx=$(ldconfig -p 2>/dev/null | awk '/libGLX_nvidia\.so\.0 / {print $NF; exit}')

libpath=$carry/lib
if [[ -n $glroot ]]; then
    libpath+=:$glroot/usr/lib/$arch
    xvfb=$glroot/usr/bin/Xvfb
    xkbargs=(-xkbdir "$glroot/usr/share/X11/xkb")
    export LIBGL_DRIVERS_PATH=$glroot/usr/lib/$arch/dri  # Xvfb's GLX provider and Mesa's client
    # The carried Xvfb runs /tmp/.kx/xkbcomp (pack-gui-carry.sh patched "/usr/bin" to it).
    if [[ -e /tmp/.kx && ! -L /tmp/.kx ]] || ! ln -sfn "$glroot/usr/bin" /tmp/.kx; then
        log "cannot make /tmp/.kx a link to $glroot/usr/bin (the carried Xvfb finds xkbcomp there)"
        exit 1
    fi
    glxinfo=$glroot/usr/bin/glxinfo
    # The app's font has its path compiled in; without it the app falls back to ImGui's own.
    fontdir=/usr/share/fonts/truetype/jetbrains-mono
    if [[ ${KX_INSTALL_FONTS:-1} == 1 && ! -e $fontdir/JetBrainsMono-Regular.ttf ]]; then
        if mkdir -p "$fontdir" 2>/dev/null && cp "$glroot$fontdir"/*.ttf "$fontdir/" 2>/dev/null; then
            log "copied JetBrains Mono to $fontdir"
        else
            log "warning: no $fontdir; the app uses ImGui's default font"
        fi
    fi
else
    xvfb=$(command -v Xvfb) || { log "no Xvfb: run scripts/pack-gui-carry.sh and carry .gl"; exit 1; }
    xkbargs=()
    glxinfo=$(command -v glxinfo || true)
fi
for d in /usr/local/cuda/lib64 /usr/local/cuda/lib; do
    [[ -d $d ]] && libpath+=:$d
done
[[ -n $nvglx ]] && libpath+=:$(dirname "$nvglx")
# Ours first, then the machine's own; each folder once.
LD_LIBRARY_PATH=$(echo "$libpath${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" | tr ':' '\n' \
                  | awk 'NF && !seen[$0]++' | paste -sd:)
export LD_LIBRARY_PATH
export KX_DATA_DIR=$repo
export KX_CACHE_DIR=${KX_CACHE_DIR:-/tmp/kx-cache}

# --- Xvfb --------------------------------------------------------------------------------------
display=
for n in $(seq 99 140); do
    if [[ ! -e /tmp/.X11-unix/X$n && ! -e /tmp/.X$n-lock ]]; then display=$n; break; fi
done
[[ -n $display ]] || { log "no free X display between :99 and :140"; exit 1; }
xlog=$tmp/xvfb.log
"$xvfb" ":$display" -screen 0 "$screen" -nolisten tcp -noreset +extension GLX "${xkbargs[@]}" \
    -displayfd 3 3>"$tmp/ready" >"$xlog" 2>&1 &
xpid=$!
for _ in $(seq 300); do  # up to 30 s; -displayfd writes the number once it accepts clients
    [[ -s $tmp/ready ]] && break
    kill -0 "$xpid" 2>/dev/null || break
    sleep 0.1
done
if [[ ! -s $tmp/ready ]]; then
    log "Xvfb did not start ($xvfb); its log:"
    cat "$xlog" >&2
    exit 1
fi
export DISPLAY=:$display
log "Xvfb $DISPLAY ($xvfb) up, screen $screen"

route_env() {  # route_env ROUTE: sets the GL variables of a route
    unset __GLX_VENDOR_LIBRARY_NAME GALLIUM_DRIVER LIBGL_ALWAYS_SOFTWARE
    case $1 in
        nvidia) export __GLX_VENDOR_LIBRARY_NAME=nvidia ;;
        mesa)   export __GLX_VENDOR_LIBRARY_NAME=mesa GALLIUM_DRIVER=llvmpipe ;;
    esac
}
glinfo() {  # glinfo ROUTE: prints the renderer the route gives; fails when it gives none
    [[ -n $glxinfo ]] || return 0
    route_env "$1"
    timeout 30 "$glxinfo" -B >"$tmp/glxinfo.$1" 2>&1
    local rc=$?
    grep -E 'direct rendering|OpenGL (vendor|renderer|core profile version|version) string' "$tmp/glxinfo.$1" \
        | sed "s/^ */gui_on_gpu: [$1] /" >&2
    if ((rc != 0)); then log "[$1] glxinfo failed ($rc):"; tail -15 "$tmp/glxinfo.$1" >&2; return $rc; fi
    # Without libGLX_nvidia, GLVND quietly falls back to the server's vendor (Mesa).
    if [[ $1 == nvidia ]] && ! grep -q 'OpenGL vendor string: NVIDIA' "$tmp/glxinfo.$1"; then
        log "[nvidia] the context is not NVIDIA's (libGLX_nvidia.so.0: ${nvglx:-not found})"
        return 1
    fi
    return 0
}

routes=()
case $route in
    auto)
        if [[ -n $nvglx ]]; then
            if glinfo nvidia; then routes=(nvidia mesa); else log "NVIDIA GLX does not work here; using Mesa"; routes=(mesa); fi
        else
            routes=(mesa)
        fi ;;
    nvidia|mesa) glinfo "$route" || [[ $route == mesa ]] || log "warning: the nvidia route will not render on the GPU"
                 routes=("$route") ;;
    system) routes=(system) ;;
    *) log "KX_GL_ROUTE must be auto, nvidia, mesa or system"; exit 2 ;;
esac
[[ ${routes[0]} == mesa && $route == auto ]] && glinfo mesa

# --- The app -------------------------------------------------------------------------------------
# KX_GUI_COMMAND: run this shell command under the virtual X server instead of the scripted app
# (KX_APP names the app binary), for soaks that start, kill and race several instances.
if [[ -n ${KX_GUI_COMMAND:-} ]]; then
    route_env "${routes[0]}"
    export KX_APP=$app
    bash -c "$KX_GUI_COMMAND"
    exit $?
fi
rc=1
for r in "${routes[@]}"; do
    route_env "$r"
    rm -f "$png"
    log "[$r] kernel-explorer --width $width --height $height --script $1 --screenshot $2"
    log "[$r] env: DISPLAY=$DISPLAY LD_LIBRARY_PATH=$LD_LIBRARY_PATH${LIBGL_DRIVERS_PATH:+ LIBGL_DRIVERS_PATH=$LIBGL_DRIVERS_PATH}${__GLX_VENDOR_LIBRARY_NAME:+ __GLX_VENDOR_LIBRARY_NAME=$__GLX_VENDOR_LIBRARY_NAME}${GALLIUM_DRIVER:+ GALLIUM_DRIVER=$GALLIUM_DRIVER} KX_DATA_DIR=$KX_DATA_DIR"
    t0=$SECONDS
    # The app's stderr goes to the terminal and to app.err (stdout stays as it is).
    { timeout "${KX_APP_TIMEOUT:-600}" "$app" --width "$width" --height "$height" \
        --script "$script" --screenshot "$png" 2>&1 >&3 3>&- | tee "$tmp/app.err" >&2; } 3>&1
    rc=${PIPESTATUS[0]}
    log "[$r] exit $rc after $((SECONDS - t0)) s"
    if ((rc == 0)) && [[ -s $png ]]; then
        if python3 -c 'import PIL' 2>/dev/null; then
            python3 - "$png" <<'EOF' >&2
import sys
from PIL import Image, ImageStat
im = Image.open(sys.argv[1]).convert("RGB")
mean = ImageStat.Stat(im).mean
lo, hi = zip(*im.getextrema())
print(f"gui_on_gpu: {sys.argv[1]}: {im.size[0]}x{im.size[1]}, mean RGB {[round(m, 1) for m in mean]}"
      + ("  WARNING: the image is one flat colour" if lo == hi else ""))
EOF
        else
            log "$png: $(stat -c %s "$png") bytes"
        fi
        break
    fi
    log "[$r] failed; diagnostics:"
    ldd "$app" | grep 'not found' >&2
    [[ $r == nvidia && -n $nvglx ]] && ldd "$nvglx" | grep 'not found' >&2
    log "[$r] Xvfb log:"; tail -20 "$xlog" >&2
    # Only a window or screenshot failure (exit 1) is worth another route; 2 is a script error.
    grep -qiE 'GLX|GLFW|OpenGL|window|screenshot' "$tmp/app.err" && ((rc == 1)) || break
done
if [[ ${KX_GUI_VERBOSE:-0} == 1 ]]; then
    log "Xvfb log:"; cat "$xlog" >&2
    for f in "$tmp"/glxinfo.*; do [[ -e $f ]] && { log "${f##*/}:"; cat "$f" >&2; }; done
fi
exit $rc
