#!/usr/bin/env bash
# The main job on generated data: metrics of a binary and a 4-class classifier (table, JSON and
# HTML pages with charts), a SOAK experiment on data with regions and polygons, a shift
# evaluation and a counting report.
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
echo "== SOAK: can a model trained on some regions predict another region? =="
/usr/bin/python3 "$here/examples/make_soak_demo.py" "$out"
"$here/$build/assay" soak "$out/soak_regions.csv" --label y --subset region --group polygon \
  --folds 5 --seed 1 --learners featureless --out "$out/soak"
for part in shift count; do
  if [[ -x $here/scripts/demo_$part.sh ]]; then
    echo
    "$here/scripts/demo_$part.sh" "$build"
  fi
done
echo
echo "Output: $out/binary.html, $out/multiclass.html, $out/soak/report.html (open in a browser;"
echo "        they work offline), $out/binary.json, $out/soak/*.csv"
