"""The newcomer's pages run as written: docs/getting-started.md, every docs/howto-*.md and
README.md are executed block by block, and what they show is what the program prints.

How a page is run (a page is a script):
- Its ```sh and ```python blocks run in order in one temporary folder, so later blocks use the
  files earlier ones wrote. `assay` is the built CLI (a `bin/assay` on PATH), `build/` and
  `examples/` are the checkout's (links), `/usr/bin/python3` finds the built package (PYTHONPATH).
  A sh block runs under `bash -e -o pipefail`; a python block as one `/usr/bin/python3` script.
  Every block must exit 0.
- An HTML comment right before a block (blank lines allowed between) gives it a directive:
  `<!-- doc-test: skip (reason) -->` the block is not run (the reason is required, and the
  number of skips per page is pinned below, so nothing is skipped silently);
  `<!-- doc-test: exit N -->` the block must exit N (an error the page demonstrates);
  `<!-- doc-test: file NAME -->` the block's text is written to NAME (a file the page shows);
  `<!-- doc-test: setup` + code + `-->` code run before the block, in its language, not shown
  (variables a Python fragment takes from the reader's own session);
  `<!-- doc-test: output of make demo -->` the block is the sample output of `make demo`;
  `<!-- doc-test: illustration (reason) -->` a bare block that is neither output nor a file.
  A ```toml block whose first line is `# NAME.toml` is written to NAME.toml.
- A bare or ```text block right after a command block (only prose between) is that block's
  sample output, checked against its real output (stdout and stderr, in order) by this rule:
  each line of the sample matches one line of the output, consecutive lines consecutive lines;
  `...` inside a line matches any text of that line; a line that is only `...` matches any
  number of lines (none included); the sample may start and end anywhere in the output.
  Numbers are compared as text: the sample outputs are copied from real runs (the runs are
  seeded, so they repeat exactly). Any other bare or ```text block must carry a directive.

`make build`, `make demo` and installing are skipped (slow; they install packages); the demo's
sample output is checked by test_report_json.py, against scripts/demo.sh run into a temporary
folder, whose tour report also feeds its check that report.json holds every number the page
shows.
"""
import os
import re
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, cli_path

ROOT = Path(ROOT)
PAGES = ["docs/getting-started.md", *sorted(
    str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("howto-*.md")), "README.md"]

# Skipped blocks per page (each with its reason in the page).
EXPECTED_SKIPS = {
    "docs/getting-started.md": 2,
    "docs/howto-ci-gate.md": 0,
    "docs/howto-compare-classifiers.md": 0,
    "docs/howto-count.md": 0,
    "docs/howto-pool-data.md": 0,
    "docs/howto-shift.md": 0,
    "docs/howto-vnncomp.md": 2,
    "README.md": 4,
}

COMMAND_LANGUAGES = {"sh", "python"}
OUTPUT_LANGUAGES = {"", "text"}

FENCE = re.compile(r"^([ \t]*)```(\w*)[^\n]*\n(.*?)^\1```[ \t]*$", re.M | re.S)
# The last comment before a block, when it is a directive and only blank lines follow it.
DIRECTIVE = re.compile(r"<!--\s*doc-test:\s*((?:(?!<!--).)*?)\s*-->\s*\Z", re.S)


def blocks(page):
    """[(language, text, directive or None, prose before it)] in page order."""
    text = (ROOT / page).read_text(encoding="utf-8")
    out, end = [], 0
    for m in FENCE.finditer(text):
        gap = text[end:m.start()]
        directive = DIRECTIVE.search(gap)
        indent = m.group(1)
        body = "".join(line[len(indent):] if line.startswith(indent) else line
                       for line in m.group(3).splitlines(keepends=True))
        out.append((m.group(2), body, directive.group(1) if directive else None, gap))
        end = m.end()
    return out


def skip_reason(directive):
    m = re.fullmatch(r"skip \((.+)\)", directive or "", re.S)
    return m.group(1) if m else None


def environment(folder):
    bin_dir = folder / "bin"
    bin_dir.mkdir()
    (bin_dir / "assay").symlink_to(cli_path())
    build = Path(os.environ.get("ASSAY_BUILD_DIR", ROOT / "build")).resolve()
    (folder / "build").symlink_to(build)
    (folder / "examples").symlink_to(ROOT / "examples")
    env = dict(os.environ)
    env["PATH"] = f"{bin_dir}:{env['PATH']}"
    env["PYTHONPATH"] = str(build / "python")
    env["MPLBACKEND"] = "Agg"
    return env


def run_block(language, code, folder, env):
    argv = ["bash", "-e", "-o", "pipefail", "-c", code] if language == "sh" \
        else ["/usr/bin/python3", "-c", code]
    out = subprocess.run(argv, cwd=folder, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, timeout=600)
    return out.returncode, out.stdout


def sample_pattern(sample):
    """The regular expression of a sample output (the rule in this file's docstring)."""
    parts = []
    for line in sample.rstrip("\n").splitlines():
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append("[^\\n]*".join(map(re.escape, line.split("..."))) + r"[ \t]*\n")
    return re.compile(r"(?m)^" + "".join(parts))


def check_sample(sample, output, where):
    assert sample_pattern(sample).search(output + "\n"), \
        f"{where}: the sample output\n{sample}\ndoes not match the real output\n{output}"


def is_sample_output(language, directive, previous):
    return (language in OUTPUT_LANGUAGES and directive is None and previous is not None
            and previous[0] in COMMAND_LANGUAGES)


def run_page(page, folder):
    """Runs a page; returns (commands run, skipped, samples checked)."""
    env = environment(folder)
    ran = skipped = checked = 0
    previous, last_output = None, None
    for language, text, directive, _ in blocks(page):
        where = f"{page}, block {text.splitlines()[0] if text.strip() else ''!r}"
        if language == "toml" and re.fullmatch(r"# [\w.-]+\.toml", text.splitlines()[0]):
            (folder / text.splitlines()[0][2:]).write_text(text, encoding="utf-8")
        elif directive and directive.startswith("file "):
            (folder / directive[5:].strip()).write_text(text, encoding="utf-8")
        elif language in COMMAND_LANGUAGES:
            if skip_reason(directive):
                skipped += 1
                last_output = None
            else:
                expected = 0
                code = text
                if directive and directive.startswith("exit "):
                    expected = int(directive[5:])
                elif directive and directive.startswith("setup"):
                    code = directive[len("setup"):].strip("\n") + "\n" + text
                else:
                    assert directive is None, f"{where}: unknown directive {directive!r}"
                status, last_output = run_block(language, code, folder, env)
                assert status == expected, f"{where}: exit {status}, not {expected}:\n{last_output}"
                assert "internal error" not in last_output, f"{where}:\n{last_output}"
                ran += 1
        elif is_sample_output(language, directive, previous):
            assert last_output is not None, f"{where}: the sample output of a skipped block"
            check_sample(text, last_output, where)
            checked += 1
        elif language in OUTPUT_LANGUAGES:
            assert directive == "output of make demo" or re.fullmatch(
                r"illustration \(.+\)", directive or "", re.S), \
                f"{where}: neither a sample output (right after a command) nor marked"
        previous = (language, text)
    return ran, skipped, checked


@pytest.mark.parametrize("page", PAGES)
def test_every_skip_is_marked_with_a_reason_and_counted(page):
    skips = 0
    for language, _, directive, _ in blocks(page):
        if directive and directive.startswith("skip"):
            assert skip_reason(directive), f"{page}: a skip without a reason: {directive!r}"
            assert language in COMMAND_LANGUAGES
            skips += 1
    assert skips == EXPECTED_SKIPS[page]


def test_the_sample_output_rule():
    output = "a 1\nb 2\nc 3\nd 4\n"
    assert sample_pattern("b ...\nc 3\n").search(output)
    assert sample_pattern("a 1\n...\nd 4\n").search(output)
    assert sample_pattern("a 1\n...\nb 2\n").search(output)  # "..." may match no line
    assert not sample_pattern("a 1\nc 3\n").search(output)  # consecutive lines stay consecutive
    assert not sample_pattern("b 3\n").search(output)  # numbers are compared as written
    assert not sample_pattern("d ...\na 1\n").search(output)  # in order


@pytest.mark.parametrize("page", PAGES)
def test_page_runs_as_written(page, tmp_path):
    ran, skipped, checked = run_page(page, tmp_path)
    assert ran >= 1 and skipped == EXPECTED_SKIPS[page]
    print(f"{page}: {ran} blocks run, {skipped} skipped, {checked} sample outputs checked")
