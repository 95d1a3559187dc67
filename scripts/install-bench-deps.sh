#!/usr/bin/env bash
# Installs the peers the benchmarks compare against (Debian 12's libtorch C++ library and
# PyTorch for /usr/bin/python3). Kept apart from install-deps.sh so that builds and tests
# stay lean: only `make bench` calls it. Idempotent: when every package is already
# installed it does nothing (no apt-get update, no network).
set -euo pipefail

packages=(libtorch-dev python3-torch)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-bench-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi

echo "install-bench-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -o DPkg::Lock::Timeout=600
$sudo apt-get install -y --no-install-recommends -o DPkg::Lock::Timeout=600 "${missing[@]}"
