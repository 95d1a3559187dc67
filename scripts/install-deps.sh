#!/usr/bin/env bash
# Installs the Debian 12 packages seam needs to build and test. Idempotent: when every
# package is already installed it does nothing (no apt-get update, no network).
set -euo pipefail

packages=(
  build-essential cmake pkg-config zlib1g-dev
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler libabsl-dev
  libgloo-dev libopenblas-dev libdnnl-dev libcli11-dev libxbyak-dev libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev python3-numpy
  pybind11-dev python3-pybind11 python3-dev python3-venv python3-pytest libdlpack-dev
  python3-torch
  dataset-fashion-mnist fortunes
  clang-format clang-tidy clang-14 libclang-rt-14-dev python3
)

exec "$(dirname "$0")/apt-install-missing.sh" install-deps "${packages[@]}"
