#!/usr/bin/env bash
# Counting demo (QuantifyML): a decision tree trained to recognise transitive 4-node graphs looks
# fine on its test split; exact counts over all 65536 graphs, beside uniform-sample estimates,
# show its real precision; then the TP count once more through a CNF file and the exact and
# approximate model counters. Writes out/count_tree.json, out/count.html and out/count_tp.cnf.
#   scripts/demo_count.sh [build-dir]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
[[ $build = /* ]] || build="$here/$build"
out="${ASSAY_DEMO_OUT:-$here/out}"  # as in demo.sh
mkdir -p "$out"
echo "== count: exact counts over all 2^16 four-node graphs (property Transitive) =="
PYTHONPATH="$build/python" /usr/bin/python3 "$here/examples/count/make_count_demo.py" "$out"
"$build/assay" model info "$out/count_tree.json"
echo
"$build/assay" count --model "$out/count_tree.json" --spec "$here/examples/count/graph4.spec" \
  --property Transitive --test "$out/count_test.csv" --label label \
  --samples 100,1000,10000 --seed 1 --html "$out/count.html"
echo
echo "== count: the same TP count through QuantifyML's CNF route (encode, then count the CNF) =="
"$build/assay" encode --model "$out/count_tree.json" --spec "$here/examples/count/graph4.spec" \
  --property Transitive --query tp --out "$out/count_tp.cnf"
"$build/assay" count --cnf "$out/count_tp.cnf" --method exact-cnf
"$build/assay" count --cnf "$out/count_tp.cnf" --method approx --seed 1
