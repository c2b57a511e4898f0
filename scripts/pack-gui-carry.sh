#!/usr/bin/env bash
# Packs into .gl/ what a GPU machine with no display server (Ubuntu 24.04, NVIDIA driver, no X,
# no network) needs to run kernel-explorer under a virtual X server: Xvfb with its data (xkb
# keymaps, xkbcomp), Mesa (Xvfb's GLX extension needs a DRI driver; Mesa's llvmpipe is also the
# fallback renderer of the app), the GLVND loaders the app and GLFW open, and the app's own
# non-glibc shared libraries. bench/gpu/gui_on_gpu.sh uses the result; carry `.gl` in `run`.
#
# Run on the Debian 12 dev machine from the repository root:
#   scripts/pack-gui-carry.sh            # packs for build/bin/kernel-explorer
#   KX_APP_BIN=/path/to/kernel-explorer scripts/pack-gui-carry.sh
#
# How: the packages holding those files and their whole shared-library closure are fetched with
# `apt-get download` and unpacked with `dpkg -x` into a staging root (never into /), only the
# files that are used are kept in .gl/root, and that is stored as .gl/gl-root.tar.xz (the
# unpacked tree is ~190 MB, mostly libLLVM; compressed it fits the carry limit).
# Left out, because Ubuntu 24.04 has them newer or the GPU machine brings them: glibc
# (libc/libm/libdl/libpthread/librt/ld.so), libstdc++, libgcc_s, the CUDA toolkit's NVRTC, and the NVIDIA driver's libraries (libGLX_nvidia & co, libcuda).
# libz3 and libxml2 (with ICU, ~40 MB together) are needed by libLLVM only for the Clang static
# analyzer and the Windows manifest merger, which Mesa never calls: they are replaced by
# generated stubs that define the same symbols (calling one aborts).
# Options (environment): KX_APP_BIN (app binary), KX_GL_KEEP_ROOT=1 (also keep the unpacked
# .gl/root, for local debugging; it is large and must not be carried), KX_APT_UPDATE=1 (run
# `apt-get update` first).
set -euo pipefail
cd "$(dirname "$0")/.."

app=${KX_APP_BIN:-build/bin/kernel-explorer}
[[ -x $app ]] || { echo "pack-gui-carry: no app binary at $app (set KX_APP_BIN)" >&2; exit 1; }
app=$(realpath "$app")
arch=x86_64-linux-gnu
gl=$PWD/.gl

work=$(mktemp -d /tmp/kx-gl-pack.XXXXXX)
trap 'rm -rf "$work"' EXIT
stage=$work/stage   # every fetched package, unpacked
debs=$work/debs
stubs=$work/stubs
mkdir -p "$stage" "$debs" "$stubs" "$work/ref"
chmod 755 "$work" "$debs" "$work/ref"  # apt's sandbox user must be able to write the .debs

apt_opts=(-q -oAPT::Architecture=amd64 -oAPT::Architectures=amd64)
[[ $(id -u) -eq 0 ]] && apt_opts+=(-oAPT::Sandbox::User=root)
if [[ ${KX_APT_UPDATE:-0} == 1 ]]; then apt-get "${apt_opts[@]}" update; fi

# Sonames never carried: the GPU machine's own (newer) glibc and GCC runtime, the CUDA toolkit
# and the NVIDIA driver. Stubbed: see above.
skip_re='^(ld-linux-x86-64\.so\.2|libc\.so\.6|libm\.so\.6|libdl\.so\.2|libpthread\.so\.0|librt\.so\.1|libresolv\.so\.2|libutil\.so\.1|libanl\.so\.1|libmvec\.so\.1|libstdc\+\+\.so\.6|libgcc_s\.so\.1|libcuda\.so.*|libnvrtc.*|libnvJitLink.*|libnvidia-.*|libGLX_nvidia.*|libEGL_nvidia.*|linux-vdso\.so\.1)$'
stub_names=(libz3.so.4 libxml2.so.2)
stub_pkgs=(libz3-4 libxml2)

declare -A fetched=()
fetch() {  # fetch PKG...: download and unpack packages not fetched yet
    local new=() p
    for p in "$@"; do [[ -n ${fetched[$p]:-} ]] || { new+=("$p"); fetched[$p]=1; }; done
    ((${#new[@]})) || return 0
    echo "pack-gui-carry: fetching ${new[*]}"
    (cd "$debs" && apt-get "${apt_opts[@]}" download "${new[@]}" >/dev/null)
    for p in "${new[@]}"; do
        local f
        f=$(ls "$debs/${p}_"*.deb 2>/dev/null | head -1)
        [[ -n $f ]] || { echo "pack-gui-carry: apt-get download gave no .deb for $p" >&2; exit 1; }
        dpkg -x "$f" "$stage"
    done
}

# --- 1. What is needed by name ------------------------------------------------------------
# xvfb: the server; x11-xkb-utils: xkbcomp (Xvfb runs it for the keymap); xkb-data: keymaps;
# libgl1-mesa-dri: swrast_dri.so (Xvfb's GLX provider and the llvmpipe fallback); libglx-mesa0:
# the Mesa GLX vendor; libglvnd0 libglx0 libgl1 libopengl0: the GLVND loaders (GLFW dlopens
# libGLX.so.0/libGL.so.1, the app links libOpenGL.so.0); libxext6: libGLX_nvidia needs it;
# libxi6 ... libx11-xcb1: GLFW dlopens them (ldd does not show them);
# mesa-utils(-bin): glxinfo for diagnostics; fonts-jetbrains-mono: the app's UI font;
# libsqlite3-0: the app links it (and libSQLiteCpp, which Debian ships only as a static library).
base_pkgs=(xvfb x11-xkb-utils xkb-data libgl1-mesa-dri libglx-mesa0 libglvnd0 libglx0 libgl1
           libopengl0 libxext6 libxi6 libxrandr2 libxcursor1 libxinerama1 libxrender1 libxxf86vm1
           libx11-xcb1 mesa-utils mesa-utils-bin fonts-jetbrains-mono libsqlite3-0)
fetch "${base_pkgs[@]}"

# --- 2. Stubs for libz3 and libxml2 (only libLLVM needs them) ------------------------------
fetch libllvm15
llvm=$(ls "$stage"/usr/lib/$arch/libLLVM-*.so.1 | head -1)
(cd "$work/ref" && apt-get "${apt_opts[@]}" download "${stub_pkgs[@]}" >/dev/null)
for deb in "$work"/ref/*.deb; do dpkg -x "$deb" "$work/ref/root"; done
for name in "${stub_names[@]}"; do
    real=$(ls "$work"/ref/root/usr/lib/$arch/"$name"* | head -1)
    # Symbols libLLVM imports from this library, with their version and kind.
    python3 - "$llvm" "$real" "$name" "$stubs" <<'EOF'
import subprocess, sys, collections
llvm, real, soname, outdir = sys.argv[1:]
def dynsyms(path):
    out = subprocess.run(["readelf", "-W", "--dyn-syms", path], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 8 and f[0].endswith(":") and f[0][:-1].isdigit():
            yield f  # Num Value Size Type Bind Vis Ndx Name
defined = {}
for f in dynsyms(real):
    if f[6] == "UND": continue
    name, _, ver = f[7].partition("@")
    defined[name] = (f[3], int(f[2], 0) if f[2].startswith("0x") else int(f[2]), ver.lstrip("@"))
wanted = {}
for f in dynsyms(llvm):
    if f[6] != "UND": continue
    name = f[7].split("@")[0]
    if name in defined: wanted[name] = defined[name]
if not wanted: sys.exit(f"no symbols of {soname} used by {llvm}")
c, byver = ["#include <stdlib.h>"], collections.defaultdict(list)
for name, (kind, size, ver) in sorted(wanted.items()):
    if kind == "FUNC": c.append(f"void {name}(void) {{ abort(); }}")
    else: c.append(f"__attribute__((aligned(16))) char {name}[{max(size, 8)}];")
    byver[ver].append(name)
open(f"{outdir}/{soname}.c", "w").write("\n".join(c) + "\n")
vs = []
for ver, names in sorted(byver.items()):
    if ver: vs.append(f"{ver} {{ global: {' '.join(n + ';' for n in names)} }};")
    else: vs.append(f"{{ global: {' '.join(n + ';' for n in names)} }};")
open(f"{outdir}/{soname}.map", "w").write("\n".join(vs) + "\n")
print(f"pack-gui-carry: stub {soname}: {len(wanted)} symbols")
EOF
    gcc -shared -fPIC -O1 -o "$stubs/$name" "$stubs/$name.c" -Wl,-soname,"$name" \
        -Wl,--version-script="$stubs/$name.map"
done

# --- 3. The shared-library closure ---------------------------------------------------------
roots() {
    echo "$stage/usr/bin/Xvfb"
    echo "$stage/usr/bin/xkbcomp"
    readlink -f "$stage/usr/bin/glxinfo"
    echo "$stage/usr/lib/$arch/dri/swrast_dri.so"
    for l in libGLX_mesa.so.0 libGLX.so.0 libGL.so.1 libOpenGL.so.0 libGLdispatch.so.0 \
             libXext.so.6 libXi.so.6 libXrandr.so.2 libXcursor.so.1 libXinerama.so.1 libXrender.so.1 \
             libXxf86vm.so.1 libX11-xcb.so.1 libsqlite3.so.0; do echo "$stage/usr/lib/$arch/$l"; done
    echo "$app"
}
libpath="$stubs:$stage/usr/lib/$arch:$stage/lib/$arch"
declare -A keep=() copied=()
while :; do
    new_pkgs=()
    keep=()
    while read -r root; do
        [[ -e $root ]] || { echo "pack-gui-carry: missing $root" >&2; exit 1; }
        keep[$root]=1
        while read -r name arrow path _; do
            [[ $arrow == "=>" ]] || continue
            [[ $name =~ $skip_re ]] && continue
            if [[ $path == "not" ]]; then
                echo "pack-gui-carry: $root needs $name, which is nowhere" >&2; exit 1
            fi
            case $path in
                "$stage"/*) keep[$path]=1 ;;
                "$stubs"/*) ;;
                /usr/local/cuda*|/usr/local/nvidia*) ;;
                *)  # on this machine only: find its package, else copy the file itself
                    real=$(realpath "$path")
                    pkg=$(dpkg -S "$real" 2>/dev/null || dpkg -S "${real/#\/usr\/lib\//\/lib\/}" 2>/dev/null \
                          || dpkg -S "${real/#\/lib\//\/usr\/lib\/}" 2>/dev/null || true)
                    pkg=${pkg%%:*}; pkg=${pkg%%,*}
                    if [[ -n $pkg && -z ${fetched[$pkg]:-} ]]; then
                        new_pkgs+=("$pkg")
                    elif [[ -z $pkg && -z ${copied[$name]:-} ]]; then
                        echo "pack-gui-carry: $name ($real) belongs to no package: copying it"
                        install -D -m 644 "$real" "$stage/usr/lib/$arch/$name"
                        copied[$name]=1; new_pkgs+=(:)  # go round again
                    elif [[ -n $pkg ]]; then
                        echo "pack-gui-carry: $name resolved outside the stage although $pkg is fetched ($path)" >&2
                        exit 1
                    fi ;;
            esac
        done < <(LD_LIBRARY_PATH=$libpath ldd "$root" 2>/dev/null)
    done < <(roots)
    ((${#new_pkgs[@]})) || break
    real_new=()
    for p in "${new_pkgs[@]}"; do [[ $p == : ]] || real_new+=("$p"); done
    ((${#real_new[@]})) && fetch $(printf '%s\n' "${real_new[@]}" | sort -u)
done

# --- 4. Keep only what is used: .gl/root -----------------------------------------------------
rm -rf "$gl/root" "$gl/gl-root.tar.xz" "$gl/MANIFEST.txt"
mkdir -p "$gl/root/usr/lib/$arch/dri" "$gl/root/usr/bin" "$gl/root/usr/share/X11" \
         "$gl/root/usr/share/fonts/truetype/jetbrains-mono"
for f in "${!keep[@]}"; do
    [[ $f == "$stage"/* ]] || continue
    rel=${f#"$stage"/}
    case $rel in
        usr/bin/Xvfb|usr/lib/$arch/dri/*) continue ;;  # handled below
        usr/bin/*) cp -a "$f" "$gl/root/usr/bin/" ;;
        *) # the soname a loader asks for: store the real file under that name
           cp -L "$f" "$gl/root/usr/lib/$arch/$(basename "$f")" ;;
    esac
done
cp -L "$stage/usr/lib/$arch/dri/swrast_dri.so" "$gl/root/usr/lib/$arch/dri/"
ln -sfn "$(basename "$(readlink -f "$stage/usr/bin/glxinfo")")" "$gl/root/usr/bin/glxinfo"
cp "$stubs"/*.so* "$gl/root/usr/lib/$arch/"
cp -a "$stage/usr/share/X11/xkb" "$gl/root/usr/share/X11/"
rm -rf "$gl/root/usr/share/X11/xkb/compiled"
cp "$stage"/usr/share/fonts/truetype/jetbrains-mono/JetBrainsMono-{Regular,Bold}.ttf \
   "$gl/root/usr/share/fonts/truetype/jetbrains-mono/"
# Xvfb runs "/usr/bin/xkbcomp" (a path compiled in, no option changes it): point that string at
# /tmp/.kx, same length, which gui_on_gpu.sh links to the carried bin folder.
python3 - "$stage/usr/bin/Xvfb" "$gl/root/usr/bin/Xvfb" <<'EOF'
import sys
data = open(sys.argv[1], "rb").read()
old, new = b"\0/usr/bin\0", b"\0/tmp/.kx\0"
n = data.count(old)
if n != 1: sys.exit(f"pack-gui-carry: expected one '/usr/bin' string in Xvfb, found {n}")
open(sys.argv[2], "wb").write(data.replace(old, new))
EOF
chmod 755 "$gl/root/usr/bin/Xvfb"

# Everything must resolve inside .gl/root now (apart from what the GPU machine brings).
for f in "$gl"/root/usr/bin/* "$gl"/root/usr/lib/$arch/dri/*.so "$gl"/root/usr/lib/$arch/*.so*; do
    [[ -L $f ]] && continue
    file -b "$f" | grep -q ELF || continue
    miss=$(env -i LD_LIBRARY_PATH="$gl/root/usr/lib/$arch" ldd "$f" 2>/dev/null \
           | awk '{print $1, $3}' | while read -r n p; do
                 [[ $n =~ $skip_re ]] && continue
                 [[ $p == "$gl"/root/* || $p == "" ]] && continue
                 [[ $p == /usr/local/cuda* ]] && continue
                 echo "$n=>$p"
             done)
    [[ -z $miss ]] || { echo "pack-gui-carry: $f resolves outside .gl: $miss" >&2; exit 1; }
done

{
    echo "# .gl/gl-root.tar.xz, made by scripts/pack-gui-carry.sh on $(date -u +%FT%TZ)"
    echo "# app: $app"
    echo "# packages:"
    for p in $(printf '%s\n' "${!fetched[@]}" | sort); do
        dpkg-deb -f "$(ls "$debs/${p}_"*.deb | head -1)" Package Version | paste -sd' '
    done
    echo "# copied (no package): ${!copied[*]}"
    echo "# stubs: ${stub_names[*]}"
    echo "# files:"
    (cd "$gl/root" && find . -type f -o -type l | sort | grep -v '^./usr/share/X11/xkb/')
} > "$gl/MANIFEST.txt"

echo "pack-gui-carry: unpacked size $(du -sh "$gl/root" | cut -f1); compressing"
tar -C "$gl" -cf - root | xz -T0 -9 > "$gl/gl-root.tar.xz"
[[ ${KX_GL_KEEP_ROOT:-0} == 1 ]] || rm -rf "$gl/root"
echo "pack-gui-carry: .gl contents:"
du -ah --max-depth=1 "$gl" | sort -k2
echo "pack-gui-carry: total $(du -sb "$gl" | awk '{printf "%.1f MiB", $1/1048576}') in .gl"
