#!/usr/bin/env bash
# Installs the Debian 12 packages Kernel Explorer builds and tests with, when any is missing.
# The CUDA Toolkit (13.x, at /usr/local/cuda) is expected to be installed already.
# --sanitizers adds clang 14 with its sanitizer and libFuzzer runtimes (scripts/run-sanitizers.sh,
# scripts/fuzz.sh).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libimgui-dev libglfw3-dev libgl-dev libtinyxml2-dev libsqlitecpp-dev catch2 libstb-dev
  libfreetype-dev fonts-jetbrains-mono nlohmann-json3-dev libdtl-dev libcli11-dev
  libxxhash-dev libmuparser-dev libfmt-dev libspdlog-dev
  zlib1g-dev  # share strings (zlib-compressed)
  xvfb xauth libgl1-mesa-dri
  clang-19 llvm-19 lld-19  # HIP to AMD ISA (gfx90a, gfx942) without ROCm
)
if [[ ${1:-} == --sanitizers ]]; then
  packages+=(clang-14 libclang-rt-14-dev)  # ASan/UBSan and libFuzzer
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "Installing missing packages: ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [[ ! -x /usr/local/cuda/bin/nvcc ]] && ! command -v nvcc >/dev/null; then
  echo "The CUDA Toolkit was not found at /usr/local/cuda: install CUDA 13 (NVRTC is required)." >&2
  exit 1
fi

# nvdisasm (SASS listings with line info, life ranges and encodings) is part of full CUDA
# toolkits; where the toolkit came without it, NVIDIA's PyPI package provides it. It is placed in
# the toolkit's bin folder, where the engine looks for it. Best effort: the app works without it.
cuda_bin=/usr/local/cuda/bin
if [[ -d $cuda_bin && ! -x $cuda_bin/nvdisasm ]] && ! command -v nvdisasm >/dev/null && command -v python3 >/dev/null; then
  if python3 -m pip install -q nvidia-cuda-nvdisasm 2>/dev/null; then
    found=$(python3 -c 'import glob, site; hits = [h for p in site.getsitepackages() for h in glob.glob(p + "/nvidia/cu*/bin/nvdisasm")]; print(hits[0] if hits else "")' 2>/dev/null || true)
    [[ -n $found && -w $cuda_bin ]] && ln -sf "$found" "$cuda_bin/nvdisasm" && echo "nvdisasm: linked $found into $cuda_bin"
  fi
  [[ -x $cuda_bin/nvdisasm ]] || echo "nvdisasm was not found: SASS line info, live registers and control codes stay unavailable." >&2
fi
