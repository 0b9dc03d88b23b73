# assay — the two commands: `make demo` and `make test`. Both install what is missing first.
PYTHON    ?= /usr/bin/python3
BUILD_DIR ?= build
JOBS      ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release
PREFIX    ?= /usr/local

.PHONY: all deps configure build test test-cpp test-python demo bench docs format clean install package \
        fuzz fuzz-parsers fuzz-differential test-sanitize

all: build

deps:
	@scripts/install-deps.sh

$(BUILD_DIR)/build.ninja:
	cmake -S . -B $(BUILD_DIR) -G Ninja $(CMAKE_FLAGS) -DPython3_EXECUTABLE=$(PYTHON)

configure: $(BUILD_DIR)/build.ninja

build: deps configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)
	PYTHONPATH=$(CURDIR)/$(BUILD_DIR)/python ASSAY_CLI=$(CURDIR)/$(BUILD_DIR)/assay \
	  ASSAY_BUILD_DIR=$(CURDIR)/$(BUILD_DIR) $(PYTHON) -m pytest -q -n $(JOBS) --dist loadfile \
	  --durations=25 tests/python

# The C++ tests under AddressSanitizer + UndefinedBehaviorSanitizer (clang, leak detection on), in
# their own build folder (docs/fuzzing.md). CI (.ci/run) runs it after `make test`.
test-sanitize: deps
	JOBS=$(JOBS) PYTHON=$(PYTHON) scripts/test-sanitize.sh

# Fuzzing (docs/fuzzing.md): every parser's libFuzzer target for FUZZ_SECONDS each (clang, ASan +
# UBSan, in $(FUZZ_DIR); findings in $(FUZZ_DIR)/crashes/<target>/), then the differential fuzzing
# of the math against its oracles for FUZZ_SECONDS. Exit status non-zero on any finding.
FUZZ_SECONDS ?= 60
FUZZ_DIR     ?= build-fuzz
fuzz: fuzz-parsers fuzz-differential

fuzz-parsers: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_DIR=$(FUZZ_DIR) PYTHON=$(PYTHON) JOBS=$(JOBS) scripts/fuzz.sh

# The CLI, man page, bash completion, headers, libraries, CMake package, pkg-config file and the
# Python package under $(PREFIX) (docs/install.md).
install: build
	cmake --install $(BUILD_DIR) --prefix $(PREFIX)

# The Debian package $(BUILD_DIR)/assay_<version>_<arch>.deb: apt-get install ./$(BUILD_DIR)/assay_*.deb
package: build
	cd $(BUILD_DIR) && cpack -G DEB

demo: build
	@scripts/demo.sh $(BUILD_DIR)

# Refreshes docs/cli.md (the command-line reference) from the CLI's --help, and builds the Python
# API reference (Sphinx + numpydoc, from the docstrings; docs/api) into $(BUILD_DIR)/docs/api,
# failing on any Sphinx warning.
docs: build
	cp $(BUILD_DIR)/docs/cli.md docs/cli.md
	PYTHONPATH=$(abspath $(BUILD_DIR))/python $(PYTHON) -m sphinx -W --keep-going -b html docs/api \
	  $(BUILD_DIR)/docs/api

bench: build
	bench/run_all.sh $(BUILD_DIR)

format:
	clang-format -i $$(git ls-files '*.cpp' '*.hpp')

clean:
	rm -rf $(BUILD_DIR)

# Differential fuzzing of the math against its oracles (scikit-learn, SciPy, enumeration) for
# FUZZ_SECONDS seconds from seed FUZZ_SEED (tests/fuzz/differential.py; `make test` runs a
# fixed-seed slice). On a mismatch it prints a Python reproducer and fails.
FUZZ_SEED ?= 0
fuzz-differential: build
	PYTHONPATH=$(CURDIR)/$(BUILD_DIR)/python nice $(PYTHON) tests/fuzz/differential.py \
	  --seconds $(FUZZ_SECONDS) --seed $(FUZZ_SEED)
