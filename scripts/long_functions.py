#!/usr/bin/env python3
"""List the longest C++ functions and the largest source files of the repository.

A function's length counts its lines from the first line of its signature (template line
included) to the line of its closing brace. Comments, string and character literals are blanked
first (newlines kept), so braces inside them do not count. Namespaces, classes, structs and
`extern "C"` blocks are entered; any other brace at namespace or class scope is either a function
body (header ends in a parameter list, maybe with qualifiers or a constructor's initializer
list) or an initializer that is skipped whole. Lambdas and local classes inside a body count as
part of the function that holds them.

Usage: scripts/long_functions.py [--top N] [--files N] [--min LINES] [DIR or FILE ...]
Defaults: top 30 functions and 15 files of src/ apps/ python/src/ include/.
"""

import argparse
import os
import re
import sys

EXTENSIONS = (".cpp", ".cc", ".cxx", ".hpp", ".h", ".hh", ".ipp", ".inl")
DEFAULT_DIRS = ("src", "apps", "python/src", "include")
CONTAINER = re.compile(r"^(?:template\s*<.*>\s*)?(?:inline\s+)?(namespace|class|struct|union|extern\s*\"C\"|extern)\b(.*)$", re.S)
ENUM = re.compile(r"^(?:typedef\s+)?enum\b")
ACCESS = re.compile(r"^(?:public|private|protected)\s*:(?!:)\s*")
ACCESS_WORD = re.compile(r"\s*(?:public|private|protected)\s*")
CONTROL = re.compile(r"^(?:if|for|while|switch|catch|do|else|try|return)\b")


def literal_end(text, i):
    """Index just past the string or char literal whose opening quote is at i."""
    j = i + 1
    while j < len(text) and text[j] != text[i]:
        j += 2 if text[j] == "\\" else 1
    return j + 1


def blank(text):
    """Return text with comments, strings, char literals and preprocessor lines turned to spaces.

    Newlines are kept so that offsets map to the same lines as the original.
    """
    out = list(text)
    i, n = 0, len(text)
    line_start = True

    def wipe(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if line_start and c == "#":
            # Preprocessor directive, with backslash continuations.
            j = i
            while j < n:
                if text[j] == "\n" and text[j - 1] != "\\":
                    break
                j += 1
            wipe(i, j)
            i = j
            continue
        if c == "\n":
            line_start = True
            i += 1
            continue
        if not c.isspace():
            line_start = False
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            wipe(i, j)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            wipe(i, j)
            i = j
        elif c == '"':
            raw = re.match(r'"([^(\s\\]{0,16})\(', text[i:i + 20]) if text[i - 1:i] == "R" else None
            if raw:
                end = text.find(")" + raw.group(1) + '"', i)
                j = n if end < 0 else end + len(raw.group(1)) + 2
            else:
                j = literal_end(text, i)
            wipe(i + 1, min(j, n) - 1)
            i = j
        elif c == "'":
            # A digit separator (1'000) follows a numeric literal; a char literal does not.
            k = i - 1
            while k >= 0 and (text[k].isalnum() or text[k] in "._"):
                k -= 1
            token = text[k + 1:i]
            if token and token[0].isdigit():
                i += 1
                continue
            j = literal_end(text, i)
            wipe(i + 1, min(j, n) - 1)
            i = j
        else:
            i += 1
    return "".join(out)


def matching(text, i, open_c, close_c):
    """Index of the bracket closing the one at i (or len(text) when unbalanced)."""
    depth = 0
    for j in range(i, len(text)):
        if text[j] == open_c:
            depth += 1
        elif text[j] == close_c:
            depth -= 1
            if depth == 0:
                return j
    return len(text)


def strip_templates(header):
    """Drop a leading `template <...>` (possibly several) from a header."""
    while True:
        m = re.match(r"template\s*<", header)
        if not m:
            return header
        depth = 0
        for j in range(m.end() - 1, len(header)):
            if header[j] == "<":
                depth += 1
            elif header[j] == ">":
                depth -= 1
                if depth == 0:
                    header = header[j + 1:].lstrip()
                    break
        else:
            return header


def parameter_list_end(header):
    """End index (exclusive) of the signature part of a function header, or -1 if none.

    The signature part ends at the top-level ')' closing the parameter list; the rest may hold
    qualifiers, a trailing return type or a constructor's initializer list.
    """
    depth = 0
    i = 0
    n = len(header)
    first_close = -1
    while i < n:
        c = header[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0 and first_close < 0:
                # `operator()(...)`: the first pair is part of the name.
                if re.search(r"operator\s*\(\s*$", header[:i]):
                    pass
                else:
                    first_close = i + 1
                    break
        i += 1
    return first_close


def function_name(header):
    """The (qualified) name written just before the parameter list."""
    end = parameter_list_end(header)
    if end < 0:
        return None
    # Find the '(' that opens the parameter list.
    depth = 0
    for j in range(end - 1, -1, -1):
        if header[j] == ")":
            depth += 1
        elif header[j] == "(":
            depth -= 1
            if depth == 0:
                before = header[:j].rstrip()
                m = re.search(r"((?:[A-Za-z_~][\w]*\s*(?:<[^;{}()]*?>)?\s*::\s*)*(?:operator\s*\S+?|~?[A-Za-z_]\w*))\s*$", before)
                if m:
                    return re.sub(r"\s+", "", m.group(1))
                return None
    return None


def is_function_header(header):
    """True when the text before a '{' at namespace/class scope declares a function body."""
    h = strip_templates(header)
    if not h or CONTROL.match(h):
        return False
    end = parameter_list_end(h)
    if end < 0:
        return False
    before = re.sub(r"operator\s*(?:\(\s*\)|[^\s(]+)", "operator", h[:end])
    # An '=' before the parameter list means an initializer such as `auto f = [](...) {`.
    if "=" in re.sub(r"<[^<>]*>", "", before.split("(")[0]):
        return False
    if "[" in before.split("(")[0]:
        return False
    return function_name(h) is not None


def initializer_list_brace(header):
    """True when the '{' after this header opens a member's brace initializer in a
    constructor's initializer list (`Foo() : a_{1}, b_{2} {`), not the body."""
    h = strip_templates(header)
    end = parameter_list_end(h)
    if end < 0:
        return False
    rest = h[end:]
    m = re.search(r"(?<!:):(?!:)", rest)
    if not m:
        return False
    tail = rest.rstrip()
    # The body's brace follows ')' or '}' of the last initializer; a member init follows a name.
    return bool(re.search(r"[\w>]$", tail)) and not re.search(r"\b(?:const|noexcept|override|final|mutable)$", tail)


def line_of(offsets, pos):
    lo, hi = 0, len(offsets)
    while lo < hi:
        mid = (lo + hi) // 2
        if offsets[mid] <= pos:
            lo = mid + 1
        else:
            hi = mid
    return lo  # 1-based line number


def scan(path, text):
    """Yield (length, start_line, end_line, qualified_name) for each function body in text."""
    clean = blank(text)
    offsets = [0] + [m.end() for m in re.finditer("\n", clean)]
    offsets = offsets[:-1] if offsets and offsets[-1] == len(clean) else offsets
    scopes = []  # names of enclosing namespaces/classes
    results = []

    def walk(start, stop):
        """Walk a namespace/class body between start and stop (exclusive)."""
        header_start = start
        i = start
        while i < stop:
            c = clean[i]
            if c in ";}":
                header_start = i + 1
                i += 1
                continue
            if c == ":" and clean[i + 1 : i + 2] != ":" and ACCESS_WORD.fullmatch(clean[header_start:i]):
                header_start = i + 1
                i += 1
                continue
            if c == "(":
                i = matching(clean, i, "(", ")") + 1
                continue
            if c != "{":
                i += 1
                continue
            raw = clean[header_start:i]
            header = ACCESS.sub("", raw.strip())
            header = re.sub(r"\[\[.*?\]\]\s*", "", header)
            close = matching(clean, i, "{", "}")
            container = CONTAINER.match(strip_templates(header))
            if container and "(" not in container.group(2).split(":")[0]:
                kind = container.group(1)
                rest = container.group(2).strip()
                m = re.match(r"[\w:]+", rest)
                name = m.group(0).rstrip(":") if m else ""
                if kind.startswith("extern"):
                    name = None
                elif kind == "namespace" and not name:
                    name = "(anonymous)"
                if name is not None:
                    scopes.append(name)
                walk(i + 1, close)
                if name is not None:
                    scopes.pop()
                i = close + 1
                header_start = i
                continue
            if ENUM.match(header):
                i = close + 1
                continue
            if is_function_header(header):
                if initializer_list_brace(header):
                    i = close + 1
                    continue
                first = len(raw) - len(raw.lstrip())
                start_line = line_of(offsets, header_start + first)
                end_line = line_of(offsets, close)
                name = function_name(strip_templates(header)) or "?"
                qualified = "::".join([s for s in scopes if s] + [name])
                results.append((end_line - start_line + 1, start_line, end_line, qualified))
                i = close + 1
                header_start = i
                continue
            # An aggregate initializer or something else: skip it, keep the header running.
            i = close + 1
        return

    walk(0, len(clean))
    return results


def source_files(dirs):
    for d in dirs:
        if os.path.isfile(d):
            yield d
            continue
        for root, _, files in os.walk(d):
            for f in sorted(files):
                if f.endswith(EXTENSIONS):
                    yield os.path.join(root, f)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="*", default=None)
    parser.add_argument("--top", type=int, default=30, help="functions to list (default 30)")
    parser.add_argument("--files", type=int, default=15, help="files to list (default 15)")
    parser.add_argument("--min", type=int, default=0, help="list every function of at least this many lines instead of --top")
    args = parser.parse_args(argv)
    dirs = args.dirs or [d for d in DEFAULT_DIRS if os.path.isdir(d)]

    functions = []
    files = []
    for path in source_files(dirs):
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        files.append((text.count("\n") + (0 if text.endswith("\n") or not text else 1), path))
        for length, first, last, name in scan(path, text):
            functions.append((length, path, first, last, name))

    functions.sort(key=lambda f: (-f[0], f[1], f[2]))
    files.sort(key=lambda f: (-f[0], f[1]))
    chosen = [f for f in functions if f[0] >= args.min] if args.min else functions[: args.top]
    title = f"functions of at least {args.min} lines" if args.min else f"longest {len(chosen)} functions"
    print(f"# {title} ({len(functions)} functions in {len(files)} files of {', '.join(dirs)})")
    for length, path, first, last, name in chosen:
        print(f"{length:5d}  {path}:{first}-{last}  {name}")
    print(f"\n# largest {min(args.files, len(files))} files (lines)")
    for count, path in files[: args.files]:
        print(f"{count:6d}  {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
