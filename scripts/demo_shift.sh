#!/usr/bin/env bash
# Shift demo (Shifts 2.0 paper): a generated vessel-power-like regression task with a canonical
# partition (in-domain train/dev_in/eval_in, shifted dev_out/eval_out: high wind, hull fouling),
# a single model and a 5-member Gaussian ensemble; the partition table and the retention and
# F1-retention charts. Usage: scripts/demo_shift.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
case $build in /*) cli="$build/assay" ;; *) cli="$here/$build/assay" ;; esac
out="${ASSAY_DEMO_OUT:-$here/out}"  # as in demo.sh
mkdir -p "$out"
/usr/bin/python3 "$here/examples/make_shift_demo.py" "$out/shift_demo.csv" --n 6000 --seed 1
echo "== shift: a single model and a 5-member ensemble on in-domain and shifted partitions =="
echo "   (error: squared; acceptable: squared error <= 9; uncertainty: predicted variance /"
echo "    the ensemble's total variance)"
"$cli" shift "$out/shift_demo.csv" --target power --pred single --uncertainty single_var \
  --members m0,m1,m2,m3,m4 --member-vars v0,v1,v2,v3,v4 --partition partition \
  --acceptable 9 --bootstrap 200 --seed 1 --html "$out/shift.html" --json-out "$out/shift.json"
echo "Output: $out/shift.html (retention and F1-retention charts), $out/shift.json"
