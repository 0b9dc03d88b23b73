#!/usr/bin/env bash
# The main job on generated data: metrics of a binary and a 4-class classifier, as a table on
# stdout, JSON and an HTML page with charts.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
out="$here/out"
mkdir -p "$out"
/usr/bin/python3 "$here/examples/make_demo_data.py" "$out"
echo
echo "== binary classifier (positive class: fraud), 1000 bootstrap resamples =="
"$here/$build/assay" metrics "$out/binary.csv" --label label --score score --weight weight \
  --pos-label fraud --bootstrap 1000 --seed 1 --html "$out/binary.html" --json-out "$out/binary.json"
echo
echo "== 4-class classifier =="
"$here/$build/assay" metrics "$out/multiclass.csv" --label animal \
  --score p_bird,p_cat,p_dog,p_fish --html "$out/multiclass.html"
echo
echo "Output: $out/binary.html, $out/multiclass.html (open in a browser; they work offline),"
echo "        $out/binary.json"
