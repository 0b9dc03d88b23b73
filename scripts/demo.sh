#!/usr/bin/env bash
# The main job on generated data: metrics of a binary and a 4-class classifier and of two regressors
# (table, JSON and HTML pages with charts), a SOAK experiment on data with regions and polygons, a shift
# evaluation, a counting report and a segmentation evaluation on generated 3-D volumes; then the
# tour: `assay report` puts all of them on one page (examples/report/tour.toml).
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
case $build in /*) ;; *) build="$here/$build" ;; esac
# ASSAY_DEMO_OUT: another output folder (tests/python/test_report_json.py), beside a link to
# examples/ (the tour names ../examples/count/graph4.spec).
out="${ASSAY_DEMO_OUT:-$here/out}"
mkdir -p "$out"
/usr/bin/python3 "$here/examples/make_demo_data.py" "$out"
echo
echo "== binary classifier (positive class: fraud), 1000 bootstrap resamples =="
"$build/assay" metrics "$out/binary.csv" --label label --score score --weight weight \
  --pos-label fraud --bootstrap 1000 --seed 1 --html "$out/binary.html" --json-out "$out/binary.json"
echo
echo "== 4-class classifier =="
"$build/assay" metrics "$out/multiclass.csv" --label animal \
  --score p_bird,p_cat,p_dog,p_fish --html "$out/multiclass.html"
echo
echo "== SOAK: can a model trained on some regions predict another region? =="
/usr/bin/python3 "$here/examples/make_soak_demo.py" "$out"
"$build/assay" soak "$out/soak_regions.csv" --label y --subset region --group polygon \
  --folds 5 --seed 1 --learners featureless,glmnet --out "$out/soak"
echo
echo "== cv: the five learners of the SOAK paper, plain 5-fold CV on the same data =="
"$build/assay" cv "$out/soak_regions.csv" --label y --drop region --group polygon \
  --folds 5 --seed 1 --learners featureless,glmnet,cart,knn,xgboost --out "$out/cv"
echo
"$here/scripts/demo_shift.sh" "$build"
echo
echo "== Regression: the shift data's single model against one ensemble member, side by side =="
"$build/assay" metrics "$out/shift_demo.csv" --task regression --label power \
  --models single=single member=m0 --bootstrap 1000 --seed 1 --html "$out/regression.html" \
  --json-out "$out/regression.json"
echo
"$here/scripts/demo_count.sh" "$build"
echo
echo "== Segmentation: 8 generated subjects, a 3-member ensemble, in-domain vs shifted =="
/usr/bin/python3 "$here/examples/segment/make_demo.py" "$out/segment"
"$build/assay" segment --pred "$out/segment/member0" --pred "$out/segment/member1" \
  --pred "$out/segment/member2" --truth "$out/segment/truth" --brain-mask "$out/segment/brain" \
  --partition "$out/segment/partition.csv" --html "$out/segment.html" \
  --json-out "$out/segment.json"
echo
echo "== The tour: every analysis above on one page (assay report, examples/report/tour.toml) =="
PYTHONPATH="$build/python" /usr/bin/python3 "$here/examples/report/make_report_demo.py" "$out"
cp "$here/examples/report/tour.toml" "$out/tour.toml"
"$build/assay" report "$out/tour.toml"
echo
echo "Output (open the pages in a browser; they work offline):"
echo "  metrics: $out/binary.html, $out/multiclass.html"
echo "  soak:    $out/soak/report.html (Same/Other/All across regions)"
echo "  cv:      $out/cv/report.html (test error and train time per learner, SOAK paper Figure 2)"
echo "  regression: $out/regression.html (two regressors side by side, residual charts)"
echo "  shift:   $out/shift.html (retention curves under distribution shift)"
echo "  count:   $out/count.html (exact counts over the whole input space)"
echo "  segment: $out/segment.html (nDSC, lesion F1 and retention per subject)"
echo "  data:    $out/binary.json, $out/soak/*.csv, $out/shift.json"
echo
echo "The tour, every capability on one page: $out/report.html"
echo "  (its tables: $out/report_tables/*.csv; every number: $out/report.json)"
