#!/usr/bin/env python3
"""The man page and the bash completion of the `assay` CLI, both read from its own --help.

    cli_docs.py man        ASSAY OUT.1.gz [--help2man PROGRAM]
    cli_docs.py completion ASSAY OUT

The CLI's help (CLI11's format: "Options:", "Subcommands:" sections, entries indented by two
spaces) is the single source: a new subcommand or option appears in both without editing this
file. The man page is help2man's page for `assay --help` plus one section per subcommand holding
that subcommand's --help verbatim, compressed as Debian installs man pages (gzip -9n).
"""
import argparse
import gzip
import os
import re
import subprocess
import sys
import tempfile


def run_help(cli, path):
    """`assay PATH... --help` as text (CLI11 prints help on stdout and exits 0)."""
    out = subprocess.run([cli, *path, "--help"], capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        sys.exit(f"cli_docs: `{' '.join([cli, *path, '--help'])}` exited {out.returncode}: "
                 f"{out.stderr.strip()}")
    # "Usage: /path/to/build/assay ..." names the program as users type it.
    return out.stdout.replace(f"Usage: {cli} ", "Usage: assay ")


def sections(text):
    """{section title: [entry lines]} for the "Title:" blocks of a help text."""
    found, current = {}, None
    for line in text.splitlines():
        header = re.fullmatch(r"([A-Za-z][A-Za-z ]*):\s*", line)
        if header:
            current = found.setdefault(header.group(1), [])
        elif current is not None and re.match(r"  \S", line):
            current.append(line.strip())
    return found


def option_names(entry):
    """'-q,--quiet  no progress bar' -> ['-q', '--quiet']."""
    first = re.split(r"\s", entry, maxsplit=1)[0]
    return [name for name in first.split(",") if name.startswith("-")]


def walk(cli, path=()):
    """Every command path (() = the top level) with its options and subcommands, depth first."""
    parts = sections(run_help(cli, list(path)))
    options = [n for e in parts.get("Options", []) for n in option_names(e)]
    subcommands = [e.split()[0] for e in parts.get("Subcommands", [])]
    commands = [(path, options, subcommands)]
    for sub in subcommands:
        commands += walk(cli, (*path, sub))
    return commands


def roff_verbatim(text):
    """Help text as a no-fill roff block: backslashes, hyphens and leading dots escaped."""
    lines = []
    for line in text.rstrip("\n").splitlines():
        line = line.replace("\\", "\\e").replace("-", "\\-")
        if line.startswith((".", "'")):
            line = "\\&" + line
        lines.append(line)
    return ".nf\n" + "\n".join(lines) + "\n.fi\n"


def write_man(cli, out, help2man):
    commands = walk(cli)
    include = ["[SUBCOMMANDS]\n",
               "Each subcommand takes its own options; \\fBassay\\fR \\fISUBCOMMAND\\fR "
               "\\fB\\-\\-help\\fR prints them.\n"]
    for path, _, _ in commands[1:]:
        include.append(f'.SS "assay {" ".join(path)}"\n')
        include.append(roff_verbatim(run_help(cli, list(path))))
    include.append("[EXIT STATUS]\n0 on success; 2 for bad input or usage (the message names "
                   "the file, line and column, or the value expected and found); 1 for an "
                   "internal error.\n")
    include.append("[SEE ALSO]\nThe Python package: python3 \\-c 'import assay; "
                   "help(assay)'. The C++ libraries: find_package(assay) in CMake, or "
                   "pkg\\-config \\-\\-cflags \\-\\-libs assay.\n")
    with tempfile.NamedTemporaryFile("w", suffix=".h2m", delete=False) as f:
        f.write("".join(include))
        include_path = f.name
    page_path = include_path[:-4] + ".1"
    try:
        subprocess.run([help2man, "--no-info", "--section=1", "--locale=C.UTF-8",
                        f"--include={include_path}",
                        "--name=how good is my model, really?", f"--output={page_path}", cli],
                       check=True, timeout=120, env={**os.environ, "LC_ALL": "C.UTF-8"})
        with open(page_path, "rb") as f:
            page = f.read()
    finally:
        for path in (include_path, page_path):
            if os.path.exists(path):
                os.unlink(path)
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "wb") as f:  # no file name or time stamp inside: the same bytes every build
        with gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=f, mtime=0) as z:
            z.write(page)


COMPLETION = """\
# bash completion for assay: subcommands and their options. Generated from `assay --help` by
# cmake/install/cli_docs.py; option values and file arguments complete as file names.
_assay() {{
  local cur=${{COMP_WORDS[COMP_CWORD]}} path="" i words
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "$path ${{COMP_WORDS[i]}}" in
{descend}
    esac
  done
  if [[ $cur == -* ]]; then
    case "$path" in
{options}
    esac
  else
    case "$path" in
{subcommands}
      *) return 0 ;;  # -o default: file names
    esac
  fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}}
complete -o default -F _assay assay
"""


def write_completion(cli, out):
    commands = walk(cli)
    key = lambda path: " ".join(path)  # noqa: E731
    descend, options, subcommands = [], [], []
    for path, opts, subs in commands:
        for sub in subs:
            descend.append(f'      "{key(path)} {sub}") path="{key((*path, sub))}" ;;')
        options.append(f'      "{key(path)}") words="{" ".join(opts)}" ;;')
        if subs:
            subcommands.append(f'      "{key(path)}") words="{" ".join(subs)}" ;;')
    text = COMPLETION.format(descend="\n".join(descend), options="\n".join(options),
                             subcommands="\n".join(subcommands))
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as f:
        f.write(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["man", "completion"])
    parser.add_argument("cli")
    parser.add_argument("out")
    parser.add_argument("--help2man", default="help2man")
    args = parser.parse_args()
    if args.what == "man":
        write_man(args.cli, args.out, args.help2man)
    else:
        write_completion(args.cli, args.out)


if __name__ == "__main__":
    main()
