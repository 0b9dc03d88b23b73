"""The structure that docs/architecture.md promises, checked on the sources themselves: short
files, private headers kept inside their layer, no `detail::` helpers in count's public headers,
a test for every source file (its own, or one named in docs/architecture.md), and the layer
diagram equal to what scripts/layer_diagram.py draws from the root CMakeLists.txt.

No build is needed: these tests read files only."""
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARCHITECTURE = os.path.join(ROOT, "docs", "architecture.md")
MAX_LINES = 1000
COVERS_SECTION = "## Which test covers which file"


def rel(path):
    return os.path.relpath(path, ROOT).replace(os.sep, "/")


def files_under(folder, *extensions):
    found = []
    for dirpath, _, names in os.walk(os.path.join(ROOT, folder)):
        found += [os.path.join(dirpath, n) for n in names if n.endswith(extensions)]
    return sorted(found)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def architecture_section(title):
    """The text of docs/architecture.md from the heading `title` to the next `## ` heading."""
    text = read(ARCHITECTURE)
    start = text.index(title + "\n")
    end = text.find("\n## ", start + len(title))
    return text[start:] if end < 0 else text[start:end]


# (a) -------------------------------------------------------------------------------------------

def test_no_source_file_over_1000_lines():
    long_files = []
    for path in files_under("src", ".cpp", ".hpp", ".h"):
        with open(path, encoding="utf-8") as f:
            n = sum(1 for _ in f)
        if n > MAX_LINES:
            long_files.append(f"{rel(path)}: {n} lines")
    assert not long_files, (f"files under src/ over {MAX_LINES} lines (split them along their "
                            f"section banners): " + "; ".join(long_files))


# (b) -------------------------------------------------------------------------------------------

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def resolve_include(including, name):
    """The file an `#include "name"` in `including` reads: the including file's folder first,
    then src/ (every layer's private include directory), as the compiler searches them."""
    for base in (os.path.dirname(including), os.path.join(ROOT, "src")):
        candidate = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(candidate):
            return candidate
    return None


def layer_of(path):
    """The layer whose private folder src/<layer>/ holds `path`, else None."""
    parts = rel(path).split("/")
    return parts[1] if parts[0] == "src" and len(parts) > 2 else None


def test_no_layer_includes_another_layers_private_header():
    # Tests are not a layer: a test of a private piece includes its header (and says why).
    sources = [p for folder in ("src", "apps", "python/src")
               for p in files_under(folder, ".cpp", ".hpp", ".h")]
    crossings = []
    for path in sources:
        for name in INCLUDE.findall(read(path)):
            target = resolve_include(path, name)
            owner = layer_of(target) if target else None
            if owner is not None and layer_of(path) != owner:
                crossings.append(f"{rel(path)} includes {rel(target)} (private to src/{owner}/)")
    assert not crossings, ("private headers included from outside their layer (move what is "
                           "shared into a public header): " + "; ".join(crossings))


# (c) -------------------------------------------------------------------------------------------

def test_no_detail_helpers_in_count_public_headers():
    found = []
    for path in files_under("include/assay/count", ".hpp"):
        for number, line in enumerate(read(path).splitlines(), 1):
            if re.search(r"\bdetail\b\s*(::|\{)|namespace\s+detail\b", line):
                found.append(f"{rel(path)}:{number}: {line.strip()}")
    assert not found, ("count's public headers hold detail:: helpers (private headers in "
                       "src/count/ are the place for them): " + "; ".join(found))


# (d) -------------------------------------------------------------------------------------------

def own_tests(source):
    """Test files named after src/<layer>/.../<stem>.cpp: tests/cpp/<layer>/test_<stem>*.cpp or
    tests/python/test_<stem>*.py."""
    layer = layer_of(source)
    stem = os.path.splitext(os.path.basename(source))[0]
    return (glob.glob(os.path.join(ROOT, "tests", "cpp", layer, f"test_{stem}*.cpp"))
            + glob.glob(os.path.join(ROOT, "tests", "python", f"test_{stem}*.py")))


def sources_without_own_test():
    sources = files_under("src", ".cpp")
    return sources, [rel(s) for s in sources if not own_tests(s)]


def coverage_table():
    """{source: [test files]} from the table of docs/architecture.md's COVERS_SECTION."""
    table = {}
    for line in architecture_section(COVERS_SECTION).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[0].startswith("`src/"):
            table[cells[0].strip("`")] = re.findall(r"`(tests/[^`]+)`", cells[1])
    return table


def test_every_source_file_has_a_test():
    _, untested = sources_without_own_test()
    table = coverage_table()
    missing = [s for s in untested if s not in table]
    assert not missing, (f"source files without a test of their own and without a row in "
                         f"docs/architecture.md \"{COVERS_SECTION[3:]}\": " + ", ".join(missing))


def test_coverage_table_is_true():
    _, untested = sources_without_own_test()
    problems = []
    for source, tests in coverage_table().items():
        if source not in untested:
            problems.append(f"{source}: " + ("has its own test now; drop its row"
                                             if os.path.exists(os.path.join(ROOT, source))
                                             else "no such file"))
        if not tests:
            problems.append(f"{source}: names no test")
        problems += [f"{source}: {t} does not exist" for t in tests
                     if not os.path.exists(os.path.join(ROOT, t))]
    assert not problems, "docs/architecture.md's coverage table: " + "; ".join(problems)


def test_coverage_counts_in_architecture_md():
    sources, untested = sources_without_own_test()
    expected = f"{len(untested)} of the {len(sources)} source files"
    assert expected in " ".join(architecture_section(COVERS_SECTION).split()), (
        f"docs/architecture.md should say \"{expected}\" in \"{COVERS_SECTION[3:]}\"")


# (e) -------------------------------------------------------------------------------------------

def test_layer_diagram_matches_cmake():
    generated = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "layer_diagram.py")],
                               capture_output=True, text=True, check=True).stdout
    section = architecture_section("## The layers at a glance")
    match = re.search(r"```mermaid\n.*?```\n", section, re.S)
    assert match, "docs/architecture.md: no ```mermaid block after \"The layers at a glance\""
    assert match.group(0) == generated, (
        "the layer diagram in docs/architecture.md differs from the links in CMakeLists.txt; "
        "replace it with the output of scripts/layer_diagram.py")


# Worked examples (the build compiles and runs them: test header_examples) -----------------------

EXTRACTOR = os.path.join(ROOT, "cmake", "header_examples.py")


def run_extractor(source_dir, output_dir, *layers):
    return subprocess.run([sys.executable, EXTRACTOR, source_dir, str(output_dir), *layers],
                          capture_output=True, text=True)


def test_every_public_header_has_a_worked_example(tmp_path):
    layers = sorted(os.listdir(os.path.join(ROOT, "include", "assay")))
    done = run_extractor(ROOT, tmp_path, *layers)
    assert done.returncode == 0, done.stderr
    generated = "".join(read(str(p)) for p in tmp_path.glob("examples_*.cpp"))
    registered = set(re.findall(r'static hx::Registered \w+\("([^"]+)"', generated))
    assert registered == {rel(p) for p in files_under("include/assay", ".hpp")}


def test_a_header_without_example_is_named(tmp_path):
    source = tmp_path / "src"
    (source / "include" / "assay" / "core").mkdir(parents=True)
    (source / "tests" / "header_examples").mkdir(parents=True)
    (source / "tests" / "header_examples" / "setups.inc").write_text("")
    (source / "include" / "assay" / "core" / "plain.hpp").write_text(
        "// A header whose example lost its marker.\n//\n//   int x = 1;\n#pragma once\n")
    done = run_extractor(str(source), tmp_path / "out", "core")
    assert done.returncode != 0
    assert "include/assay/core/plain.hpp: no worked example" in done.stderr


def test_stated_values_become_checks(tmp_path):
    source = tmp_path / "src"
    (source / "include" / "assay" / "core").mkdir(parents=True)
    (source / "tests" / "header_examples").mkdir(parents=True)
    (source / "tests" / "header_examples" / "setups.inc").write_text("")
    (source / "include" / "assay" / "core" / "demo.hpp").write_text(
        "// Demo.\n//\n// Example:\n"
        "//   f(2);             // 0.75 (why)\n"
        "//   double u = g();   // 4 / 6 = 0.66667\n"
        "//   h();              // 2 on a 2-core machine\n"
        "//   k();              // throws: bad value\n"
        "#pragma once\nnamespace assay {}\n")
    done = run_extractor(str(source), tmp_path / "out", "core")
    assert done.returncode == 0, done.stderr
    code = (tmp_path / "out" / "examples_core.cpp").read_text()
    assert 'hx::check("include/assay/core/demo.hpp:4", "f(2)", (f(2)), hx::number(0.75, 0.005));' in code
    assert 'hx::check("include/assay/core/demo.hpp:5", "u", u, hx::number(0.66667, 5e-06));' in code
    assert "\nh();\n" in code and '"include/assay/core/demo.hpp:6"' not in code
    assert 'hx::check_throws("include/assay/core/demo.hpp:7", [&] { k(); }, "bad value");' in code
