#!/usr/bin/env bash
# Installs what assay needs from Debian's packages (and the chart library from npm, pinned by
# report/js/package-lock.json). Only installs what is missing, so it is cheap to run every time.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
packages=(
  cmake ninja-build g++ make pkg-config
  clang libclang-rt-14-dev  # `make fuzz` (libFuzzer), `make test-sanitize` (ASan, UBSan)
  libcli11-dev libfmt-dev nlohmann-json3-dev libboost-math-dev
  libgtest-dev libgmp-dev libeigen3-dev libopenblas-dev libxgboost-dev
  libnifti2-dev zlib1g-dev libdeflate-dev libcryptominisat5-dev libcadical-dev libtomlplusplus-dev
  python3-dev pybind11-dev python3-numpy python3-pytest python3-pytest-xdist
  python3-sklearn python3-scipy python3-pandas python3-xgboost python3-torch
  python3-nibabel python3-onnx python3-statsmodels python3-matplotlib
  python3-sphinx python3-numpydoc python3-nbformat python3-nbclient python3-ipykernel  # API docs, notebooks
  python3-pip python3-venv python3-build  # `pip install .`, `python3 -m build` (docs/install.md)
  r-base-core r-cran-glmnet r-cran-rpart r-cran-proc
  nodejs npm chromium
  libopenmpi-dev openmpi-bin slurmctld slurmd slurm-client munge
  help2man man-db dpkg-dev file  # man page, `man -l`, the .deb's computed Depends
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# npm may come from elsewhere (a newer Node.js); do not ask apt for it if it is on PATH.
if command -v npm >/dev/null 2>&1; then
  filtered=()
  for p in "${missing[@]}"; do [[ $p == nodejs || $p == npm ]] || filtered+=("$p"); done
  missing=("${filtered[@]+"${filtered[@]}"}")
fi
if ((${#missing[@]})); then
  if [[ $(id -u) != 0 ]]; then
    echo "install-deps: missing Debian packages: ${missing[*]} (run as root, or install them)" >&2
    exit 1
  fi
  echo "install-deps: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
js="$here/report/js"
if [[ ! -f $js/node_modules/.assay-stamp || $js/package-lock.json -nt $js/node_modules/.assay-stamp ]]; then
  echo "install-deps: installing the chart library (npm ci)" >&2
  (cd "$js" && npm ci --no-audit --no-fund --loglevel=error) && touch "$js/node_modules/.assay-stamp"
fi
