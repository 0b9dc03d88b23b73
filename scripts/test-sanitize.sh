#!/usr/bin/env bash
# `make test-sanitize`: the C++ tests built with clang's AddressSanitizer + UndefinedBehaviorSanitizer
# (leak detection on) in their own build folder, and run by ctest. Only the libraries and the C++
# test programs are built (no CLI, Python module or benches), at -O1 with line tables only, so
# that the step fits CI's time (docs/fuzzing.md). Any sanitizer report fails the test that
# triggered it.
#   SANITIZE_DIR   build folder (default build-sanitize)
#   JOBS           parallel compile and test jobs (default: the number of cores)
set -euo pipefail
cd "$(dirname "$0")/.."
SANITIZE_DIR=${SANITIZE_DIR:-build-sanitize}
JOBS=${JOBS:-$(nproc)}
PYTHON=${PYTHON:-/usr/bin/python3}
here=$PWD

export ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=0
export LSAN_OPTIONS=suppressions=$here/tests/sanitizers/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:suppressions=$here/tests/sanitizers/ubsan.supp

if [[ ! -f $SANITIZE_DIR/build.ninja ]]; then
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake -S . -B "$SANITIZE_DIR" -G Ninja -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
    -DASSAY_SANITIZE=ON -DASSAY_WITH_MPI=OFF -DPython3_EXECUTABLE="$PYTHON" "${launcher[@]}"
fi
cmake --build "$SANITIZE_DIR" -j "$JOBS" --target cpp_tests
# docs_cli_reference needs the CLI, which this build leaves out (`make test` runs it). Two
# tests that are pure arithmetic over large inputs take over 150 s each under the sanitizers;
# `make test` runs them; the other tests of the same code run here.
skip='^(docs_cli_reference|OperatingPoints.LargeInputsUseLabelledKeys|Encode.NetworksCountAsEnumerationDoes)$'
cd "$SANITIZE_DIR" && ctest --output-on-failure -j "$JOBS" -E "$skip"
