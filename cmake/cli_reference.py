#!/usr/bin/env python3
"""Writes the command-line reference (Markdown) from the CLI's own --help output, so that it
cannot drift from the program: `assay --help`, then `assay SUB --help` for every subcommand the
help lists (recursively, e.g. `assay model info`).

    cli_reference.py BUILD/assay OUT.md           # write OUT.md
    cli_reference.py BUILD/assay OUT.md --check DOC.md
        # write OUT.md, then fail (exit 1) if DOC.md differs from it

The build runs the first form (target cli_reference, writing BUILD/docs/cli.md); a test runs the
second against the committed docs/cli.md; `make docs` copies the generated page there.
"""
import difflib
import subprocess
import sys

HEADER = """# Command-line reference

Every subcommand's `--help`, generated from the `assay` program itself at build time
(`cmake/cli_reference.py`), so this page cannot drift from the program: do not edit it by hand;
`make docs` refreshes it after a change to the command line (a test fails until it is refreshed).
Task-oriented guides: [getting started](getting-started.md) and the how-tos listed there.

## Rules every subcommand shares

- **Seeds and counts** (`--seed`, `--samples`, `--bootstrap`, ...) are integers in
  0..18446744073709551615; `-1` or `18446744073709551616` is refused (exit 2), never wrapped
  around or clamped.
- **Threads** (`--threads N`): 0 = all cores; a negative count is refused; more than the
  machine's cores is capped to them with a warning, unless `--threads-force` (or the environment
  variable `ASSAY_THREADS_FORCE=1`). Results never depend on the thread count.
- **Confidence levels and probabilities** (`--confidence`, `--delta`) lie in (0, 1), checked
  even when no interval is computed.
- **`--bootstrap N`**: 0 = no intervals; 1 gives a zero-width "interval" (one resample's value),
  with a warning; use 1000 or more.
- **Sizes that would exhaust memory are refused first**, with what they would need: `--bins` at
  most 100000, `metrics` at most `--max-classes` classes (default 1000), `soak` at most 1000000
  splits.
- **Outputs** (`--out`, `--json-out`, `--html`, `--csv-out`, ...): an empty name, two outputs
  naming one file, or a folder that does not exist or cannot be written is refused before any
  work. An output never replaces an input of the command, however it is spelled (`./base.csv`,
  an absolute path, a symbolic or hard link), nor a device, FIFO or socket: exit 2, naming both
  paths (`--html base.csv: is the input file ./base.csv (the data); an output never replaces an
  input: choose another name`). A symbolic link to a regular file is followed: that file is
  written and the link stays a link. Every file is written to a temporary next to it and renamed
  when complete, and the files of one command are renamed together at the end, under a lock on
  their folders: a failure (disk full, `ulimit -f`) leaves the previous files, never a truncated
  or half-updated set, and two runs writing the same files leave the set of one of them.
- **Standard output**: output that cannot be written (a full disk, `> /dev/full`) ends the
  command with exit 2 and a message on stderr.

Python functions follow the same rules and raise `assay.AssayError` (a `ValueError`).
"""


def help_text(cli, words):
    # argv[0] is "assay" (not the build path), so the usage lines read the same everywhere.
    out = subprocess.run(["assay", *words, "--help"], executable=cli, capture_output=True,
                         text=True, check=True)
    return out.stdout.rstrip() + "\n"


def subcommands(text):
    names, inside = [], False
    for line in text.splitlines():
        if line.strip().lower() in ("subcommands:",):
            inside = True
            continue
        if inside:
            if not line.strip():
                inside = False
                continue
            if line.startswith("  ") and not line.startswith("   ") and line.strip():
                names.append(line.split()[0])
    return names


def sections(cli, words):
    """The help of `assay WORDS` and then of each of its subcommands, depth first."""
    text = help_text(cli, words)
    title = " ".join(["assay", *words])
    out = [f"## {title}\n\n```text\n{text}```\n"]
    for name in subcommands(text):
        out.extend(sections(cli, words + [name]))
    return out


def page(cli):
    return HEADER + "\n" + "\n".join(sections(cli, []))


def main():
    cli, out = sys.argv[1], sys.argv[2]
    text = page(cli)
    with open(out, "w", encoding="utf-8") as f:
        f.write(text)
    if len(sys.argv) == 5 and sys.argv[3] == "--check":
        with open(sys.argv[4], encoding="utf-8") as f:
            committed = f.read()
        if committed != text:
            diff = difflib.unified_diff(committed.splitlines(), text.splitlines(), sys.argv[4],
                                        out, lineterm="", n=1)
            print("\n".join(list(diff)[:60]))
            print(f"\n{sys.argv[4]} is out of date with the CLI's --help: run `make docs` "
                  f"(it copies {out} there)", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
