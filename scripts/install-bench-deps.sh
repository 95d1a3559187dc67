#!/usr/bin/env bash
# Installs the peers the benchmarks compare against (Debian 12's libtorch C++ library and
# PyTorch for /usr/bin/python3). Kept apart from install-deps.sh so that builds and tests
# stay lean: only `make bench` calls it. Idempotent: when every package is already
# installed it does nothing (no apt-get update, no network).
set -euo pipefail

packages=(libtorch-dev python3-torch)

exec "$(dirname "$0")/apt-install-missing.sh" install-bench-deps "${packages[@]}"
