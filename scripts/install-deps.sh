#!/usr/bin/env bash
# Installs the Debian 12 packages Kernel Explorer builds and tests with, when any is missing.
# The CUDA Toolkit (13.x, at /usr/local/cuda) is expected to be installed already.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libimgui-dev libglfw3-dev libgl-dev libtinyxml2-dev libsqlitecpp-dev catch2 libstb-dev
  libfreetype-dev fonts-jetbrains-mono nlohmann-json3-dev libdtl-dev libcli11-dev
  libxxhash-dev libmuparser-dev libfmt-dev libspdlog-dev
  xvfb xauth libgl1-mesa-dri
)

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
