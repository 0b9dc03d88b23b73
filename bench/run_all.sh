#!/usr/bin/env bash
# Runs every benchmark against its peer (scikit-learn, pandas, numpy/SciPy, R glmnet/rpart, xgboost) in one go; each script prints its
# table and writes bench/results/<name>.md. docs/performance.md summarises the latest results.
# Usage: bench/run_all.sh [build-dir]   (make bench)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
export PYTHONPATH="$here/$build/python"
for script in bench_ranking.py bench_classification.py bench_csv.py bench_bootstrap.py \
  bench_soak_splits.py bench_soak_run.py bench_shift.py bench_segment.py bench_glmnet.py \
  bench_cart.py bench_knn.py bench_xgboost.py bench_cluster.py bench_sklearn_metrics.py \
  bench_compare.py; do
  [[ -f $here/bench/$script ]] || continue
  echo "== $script"
  /usr/bin/python3 "$here/bench/$script"
done
# Approximate counting: 100 seeded runs per instance against known counts (no peer package).
echo "== bench_count_approx.py"
/usr/bin/python3 "$here/bench/bench_count_approx.py" --build "$build"
/usr/bin/python3 "$here/bench/update_performance_doc.py"
