#!/usr/bin/env bash
# apt-install-missing.sh <label> <package>...: installs the Debian packages among those
# named that are not installed yet. When all are present it does nothing (no apt-get
# update, no network), so calling it again is cheap. Shared by install-deps.sh and
# install-bench-deps.sh; <label> prefixes its messages.
set -euo pipefail

label=$1
shift
packages=("$@")

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "$label: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi

echo "$label: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -o DPkg::Lock::Timeout=600
$sudo apt-get install -y --no-install-recommends -o DPkg::Lock::Timeout=600 "${missing[@]}"
