#!/usr/bin/env bash
# `make fuzz-parsers` (part of `make fuzz`): builds the libFuzzer targets (fuzz/, clang with ASan +
# UBSan) in $FUZZ_DIR and runs each for $FUZZ_SECONDS, one after the other (docs/fuzzing.md).
#
#   FUZZ_SECONDS   seconds per target (default 60)
#   FUZZ_TARGETS   which targets, e.g. "csv spec" (default: every fuzz/fuzz_*.cpp)
#   FUZZ_RSS_MB    memory limit per input, MB (default 2048); above it is a finding
#   FUZZ_TIMEOUT   seconds one input may take (default 10); longer is a finding
#   FUZZ_KEEP_GOING=1  fork mode: keep fuzzing after a finding (long runs collect several)
#   FUZZ_NO_BUILD=1   run the targets as built (another build of $FUZZ_DIR is under way)
#   FUZZ_DIR       build folder (default build-fuzz); corpora grow in $FUZZ_DIR/corpus/<target>
#                  (not committed), findings land in $FUZZ_DIR/crashes/<target>/, logs in
#                  $FUZZ_DIR/logs/<target>.log, a summary in $FUZZ_DIR/summary.txt
# Exit status 1 when any target found anything (the summary names the files).
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZ_DIR=${FUZZ_DIR:-build-fuzz}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
FUZZ_RSS_MB=${FUZZ_RSS_MB:-2048}
FUZZ_TIMEOUT=${FUZZ_TIMEOUT:-10}
PYTHON=${PYTHON:-/usr/bin/python3}
JOBS=${JOBS:-$(nproc)}
if [[ -z ${FUZZ_TARGETS:-} ]]; then
  FUZZ_TARGETS=$(ls fuzz/fuzz_*.cpp | sed 's|fuzz/fuzz_||; s|\.cpp$||' | tr '\n' ' ')
fi

if [[ ! -f $FUZZ_DIR/build.ninja ]]; then
  cmake -S . -B "$FUZZ_DIR" -G Ninja -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
    -DBUILD_SHARED_LIBS=OFF -DASSAY_WITH_MPI=OFF -DASSAY_FUZZ=ON \
    -DPython3_EXECUTABLE="$PYTHON" ${CMAKE_LAUNCHER:+-DCMAKE_CXX_COMPILER_LAUNCHER=$CMAKE_LAUNCHER}
fi
targets=()
for t in $FUZZ_TARGETS; do targets+=("fuzz_$t"); done
[[ ${FUZZ_NO_BUILD:-0} == 1 ]] || cmake --build "$FUZZ_DIR" -j "$JOBS" --target "${targets[@]}"

# The dictionary of each target (fuzz/dict/), if it has one.
dict_for() {
  case $1 in
    model_json | xgboost_json) echo fuzz/dict/json.dict ;;
    *) [[ -f fuzz/dict/$1.dict ]] && echo "fuzz/dict/$1.dict" ;;
  esac
}

mkdir -p "$FUZZ_DIR/logs"
summary=$FUZZ_DIR/summary.txt
: >"$summary"
status=0
for t in $FUZZ_TARGETS; do
  corpus=$FUZZ_DIR/corpus/$t crashes=$FUZZ_DIR/crashes/$t log=$FUZZ_DIR/logs/$t.log
  mkdir -p "$corpus" "$crashes"
  args=(-max_total_time="$FUZZ_SECONDS" -rss_limit_mb="$FUZZ_RSS_MB" -timeout="$FUZZ_TIMEOUT"
        -artifact_prefix="$crashes/" -print_final_stats=1 -print_funcs=0)
  dict=$(dict_for "$t" || true)
  [[ -n $dict ]] && args+=(-dict="$dict")
  [[ ${FUZZ_KEEP_GOING:-0} == 1 ]] && args+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  echo "fuzz: $t for ${FUZZ_SECONDS}s (log $log)" >&2
  start=$(date +%s)
  scratch=$(mktemp -d)  # the NIfTI target's scratch files
  TMPDIR=$scratch "$FUZZ_DIR/fuzz/fuzz_$t" "${args[@]}" "$corpus" "fuzz/seeds/fuzz_$t" \
    >"$log" 2>&1 || true
  rm -rf "$scratch"
  seconds=$(($(date +%s) - start))
  # Executions: libFuzzer's final statistics, or in fork mode the last "#N:" progress line.
  execs=$(grep -ao 'stat::number_of_executed_units: *[0-9]*' "$log" | awk '{s += $2} END {print s + 0}' || true)
  if [[ $execs == 0 ]]; then
    execs=$(grep -aoE '^#[0-9]+' "$log" | tail -1 | tr -d '#' || true)
  fi
  findings=$(find "$crashes" -type f | wc -l)
  line="$t: ${seconds}s, ${execs:-0} execs, corpus $(find "$corpus" -type f | wc -l) files, $findings findings"
  echo "$line" | tee -a "$summary" >&2
  if ((findings > 0)); then
    status=1
    find "$crashes" -type f | sed 's/^/  /' | tee -a "$summary" >&2
  fi
done

exit $status
