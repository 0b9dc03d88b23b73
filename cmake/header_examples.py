#!/usr/bin/env python3
"""Turn the worked example of every public header into C++ that the test `header_examples`
compiles and runs.

Where the example is. Every header under include/assay/ opens with a comment (the lines before
`#pragma once`) holding its purpose, data layout and a worked example. The example is each block
of lines that follows a line `// Example:`; its lines are indented under it (`//   code`), and
the block ends at the first comment line that is not indented (or at the end of the comment).
A header may hold several such blocks: they run in order as one example.

What is checked. The example's statements run inside one function, with `using namespace`
for assay and the header's layer, in a fresh temporary folder. A one-line statement whose
trailing comment starts with a value states its result, and that result is checked:

    roc_auc(y, s);               // 0.75            the expression's value
    double u = f(x);             // 0.5 (why)       a declaration: the declared variable
    accuracy(t, p);              // 4 / 6 = 0.66667 arithmetic, then "= value"
    labels(y);                   // {1, 0, 2}: ...  lists (nested), strings, true/false,
    parse(t);                    // Kind::value     inf, nan, an enumerator, {"json": 1}
    parse_csv(bad);              // throws: MESSAGE the exception's what() starts with MESSAGE

A value is followed by nothing, "...", or one of ( : ; , = (then anything). Numbers written
with d decimals are compared within half a unit of the last digit (a whole unit when followed
by "..."), integers and strings exactly ("text ..." states the start of a text), a/b in lists
within 1e-12; a JSON object is compared with a Json or with the text of one. A comment that goes on with
words ("// 2 on a 2-core machine") states nothing checkable and is not checked. A statement
whose own comment states nothing may state its result on the comment line right below it
(`//       // throws: MESSAGE`; below a comment of its own only a `throws:` line counts, since
other lines go on with that comment); MESSAGE is the rest of that line.

Setup. Names an example takes as given (a data set, files to read) are made by the header's
section of tests/header_examples/setups.inc: `//== include/assay/x/y.hpp` starts it, and the C++
below it runs before the example (its #include lines, of the C++ tests' helpers, go to the top
of the file). `//== include/assay/x/y.hpp compile-only: REASON` compiles the example without
running it (for one that needs a cluster or files outside the repository).

Usage: header_examples.py SOURCE_DIR OUTPUT_DIR LAYER [LAYER ...]
Writes OUTPUT_DIR/examples_<layer>.cpp for each LAYER (headers of other layers are listed as not
built). Fails, naming the header, when a header has no example.
"""

import os
import re
import sys

MARKER = "// Example:"
MARKER_LINE = re.compile(r"^// Example(?: \(.*\))?:\s*$")  # "// Example (where it goes):" too
SETUP_FILE = os.path.join("tests", "header_examples", "setups.inc")


class ExampleError(Exception):
    pass


def opening_comment(lines):
    """(line number, text after //) of the header's opening comment lines."""
    for number, line in enumerate(lines, 1):
        if not line.startswith("//"):
            return
        yield number, line[2:]


def example_blocks(path, text):
    """[(line number, code)] of the header's example blocks, in order."""
    code, inside = [], False
    for number, rest in opening_comment(text.splitlines()):
        if MARKER_LINE.match("//" + rest):
            inside = True
        elif inside and rest.startswith("   "):
            code.append((number, rest[3:]))
        else:
            inside = False
    if not code:
        raise ExampleError(f"{path}: no worked example: its opening comment needs a line "
                           f"`{MARKER}` followed by the example's code, indented (`//   code`)")
    return code


# -- stated values ------------------------------------------------------------------------------

NUMBER = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
FRACTION = re.compile(r"(-?\d+)\s*/\s*(\d+)")
ENUMERATOR = re.compile(r"[A-Za-z_]\w*(?:::[A-Za-z_]\w*)+")
STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def cpp_double(value):
    return repr(float(value)) if value == value and abs(value) != float("inf") else (
        "std::numeric_limits<double>::quiet_NaN()" if value != value else
        ("-" if value < 0 else "") + "std::numeric_limits<double>::infinity()")


def parse_value(s, in_list):
    """(C++ expression of an hx::Expected, rest of s) for a value at the start of s, or None."""
    s = s.lstrip()
    if s.startswith("{"):
        if re.match(r'\{\s*"[^"]*"\s*:', s):  # a JSON object
            depth = 0
            for i, ch in enumerate(s):
                depth += ch == "{"
                depth -= ch == "}"
                if depth == 0:
                    return f'hx::json(R"hx({s[:i + 1]})hx")', s[i + 1:]
            return None
        items, rest = [], s[1:].lstrip()
        while not rest.startswith("}"):
            parsed = parse_value(rest, True)
            if parsed is None:
                return None
            item, rest = parsed
            items.append(item)
            rest = rest.lstrip()
            if rest.startswith(","):
                rest = rest[1:].lstrip()
            elif not rest.startswith("}"):
                return None
        return "hx::list({" + ", ".join(items) + "})", rest[1:]
    match = STRING.match(s)
    if match:
        return f"hx::text({match.group(0)})", s[match.end():]
    for word, value in (("true", "1"), ("false", "0")):
        if re.match(word + r"\b", s):
            return f"hx::number({value}, 0)", s[len(word):]
    match = re.match(r"(-?)(inf|nan)\b", s)
    if match:
        value = float(match.group(1) + match.group(2))
        return f"hx::number({cpp_double(value)}, 0)", s[match.end():]
    match = FRACTION.match(s) if in_list else None
    if match:
        return (f"hx::number({match.group(1)}.0 / {match.group(2)}, 1e-12)", s[match.end():])
    match = NUMBER.match(s)
    if match:
        number = match.group(0)
        rest = s[match.end():]
        if re.match(r"[A-Za-z_]", rest):
            return None
        truncated = rest.startswith("...")
        if "." in number and "e" not in number.lower():
            decimals = len(number.split(".")[1])
            tolerance = (1.0 if truncated else 0.5) * 10.0 ** -decimals
        else:
            tolerance = 0
        return f"hx::number({number}, {tolerance!r})", rest[3:] if truncated else rest
    match = ENUMERATOR.match(s)
    if match:
        return f"hx::equal_to({match.group(0)})", s[match.end():]
    return None


ARITHMETIC = re.compile(r"^[\d\s.+\-*/()|]+$")


def stated_value(comment):
    """The hx::Expected a statement's trailing comment states, or None."""
    comment = comment.strip()
    candidates = [comment]
    if " = " in comment and ARITHMETIC.match(comment.split(" = ", 1)[0]):
        candidates = [comment.split(" = ", 1)[1]]
    for text in candidates:
        parsed = parse_value(text, False)
        if parsed is None:
            continue
        expected, rest = parsed
        rest = rest.strip()
        if rest == "" or rest[0] in "(:;,=":
            return expected
    return None


# -- statements ---------------------------------------------------------------------------------

def split_comment(line):
    """(code, comment) of one line: the comment is what follows a // outside strings."""
    in_string = False
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == "\\" and in_string:
            i += 2
            continue
        if ch == '"':
            in_string = not in_string
        elif not in_string and line.startswith("//", i):
            return line[:i].rstrip(), line[i + 2:].strip()
        i += 1
    return line.rstrip(), None


def balance(code):
    code = STRING.sub('""', code)
    return sum(code.count(c) for c in "([{") - sum(code.count(c) for c in ")]}")


DECLARATION = re.compile(
    r"^(?:const\s+|static\s+)?[A-Za-z_][\w:]*(?:<.*>)?[\s*&]+(?:const\s+)?([A-Za-z_]\w*)\s*"
    r"(?:=[^=]|\{|\()")
THROWS = re.compile(r"^throws(?:\s+assay::\w+)?\s*(?::\s*(.*))?$")


def check_for(code, comment, location):
    """The C++ that runs `code` (one whole statement) and checks what `comment` states."""
    if comment is None:
        return None
    statement = code.strip()
    body = statement[:-1]
    throws = THROWS.match(comment)
    if throws:
        message = throws.group(1)
        quoted = "nullptr" if message is None else cpp_string(message)
        return f"hx::check_throws({location}, [&] {{ {statement} }}, {quoted});"
    expected = stated_value(comment)
    if expected is None:
        return None
    declared = DECLARATION.match(statement)
    if declared and not statement.startswith("return"):
        name = declared.group(1)
        return f"{statement} hx::check({location}, {cpp_string(name)}, {name}, {expected});"
    return f"hx::check({location}, {cpp_string(body)}, ({body}), {expected});"


def cpp_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def translate(header, lines):
    """C++ lines of the example's body: each line after a #line naming the header's line."""
    out = []
    depth = 0
    statement_start = True
    pending = None  # a statement whose result the next comment line states (`// throws: ...`)
    for number, text in lines:
        code, comment = split_comment(text)
        location = f'"{header}:{number}"'
        if code.strip() == "" and comment is not None and pending is not None:
            # Below a statement with a comment of its own, only `throws:` starts a new one.
            own_comment = pending[3]
            stated = not own_comment or THROWS.match(comment)
            checked = check_for(pending[0], comment, pending[1]) if stated else None
            if checked is not None:
                out[pending[2]] = checked
            pending = None
            continue
        pending = None
        line_balance = balance(code)
        out.append(f"#line {number} \"{header}\"")
        is_statement = (statement_start and line_balance == 0 and code.rstrip().endswith(";")
                        and not code.strip().startswith(("if ", "if(", "for ", "for(", "else",
                                                         "while", "return")))
        checked = check_for(code, comment, location) if is_statement else None
        out.append(checked if checked is not None else code)
        if is_statement and checked is None:
            pending = (code, location, len(out) - 1, comment is not None)
        depth += line_balance
        stripped = code.strip()
        statement_start = stripped == "" or stripped.endswith((";", "{", "}"))
    return out


# -- setups -------------------------------------------------------------------------------------

def read_setups(source_dir):
    """{header: (setup lines, compile-only reason or None)} from tests/header_examples/setups.inc."""
    setups, current = {}, None
    path = os.path.join(source_dir, SETUP_FILE)
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            match = re.match(r"^//== (\S+)(?:\s+compile-only:\s*(.*))?$", line.rstrip("\n"))
            if match:
                current = match.group(1)
                setups[current] = ([], match.group(2))
                setups[current][0].append(f"#line {number + 1} \"{SETUP_FILE}\"")
            elif current is not None:
                setups[current][0].append(line.rstrip("\n"))
    return setups


def namespace_of(layer):
    return "assay" if layer == "core" else f"assay::{layer}"


def function_name(header):
    return re.sub(r"\W", "_", header[len("include/assay/"):-len(".hpp")])


def namespaces_of(text):
    """The namespaces a header declares its names in (assay, assay::detail, ...)."""
    return sorted(set(re.findall(r"^namespace ([\w:]+) \{", text, re.M)))


def generate_layer(source_dir, layer, headers, setups, every_header):
    out = ["// Generated by cmake/header_examples.py from the worked examples of",
           f"// include/assay/{layer}/*.hpp: do not edit.",
           '#include "header_examples/runtime.hpp"',
           '#include "header_examples/fixtures.hpp"']
    # Every built header: an example may use what a lower layer offers (read_csv, Json).
    out += [f'#include "{h[len("include/"):]}"' for h in every_header]
    # A setup's #include lines (helpers of the C++ tests) go to the top of the file.
    out += sorted({line for h in headers for line in setups.get(h, ([], None))[0]
                   if line.startswith("#include")})
    out += ["", "#include <cstdint>", "#include <iostream>", "#include <limits>",
            "#include <span>", "#include <string>", "#include <vector>", ""]
    errors = []
    for header in headers:
        with open(os.path.join(source_dir, header), encoding="utf-8") as f:
            text = f.read()
            try:
                blocks = example_blocks(header, text)
            except ExampleError as e:
                errors.append(str(e))
                continue
        setup, compile_only = setups.get(header, ([], None))
        name = function_name(header)
        # Inside the layer's namespace, as code of that layer would be written.
        layer_namespace = namespace_of(layer)
        out += [f"// {header}",
                f"namespace {layer_namespace} {{",
                f"static void example_{name}() {{"]
        out += [f"  using namespace {ns};" for ns in namespaces_of(text)
                if ns != layer_namespace and layer_namespace.startswith(ns) is False]
        out += [line for line in setup if not line.startswith("#include")]
        out += translate(header, blocks)
        out += ["}", f"}}  // namespace {layer_namespace}",
                f"static hx::Registered registered_{name}({cpp_string(header)}, "
                f"{layer_namespace}::example_{name}, "
                f"{cpp_string(compile_only) if compile_only else 'nullptr'});",
                ""]
    if errors:
        raise ExampleError("\n  ".join(errors))
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    source_dir, output_dir, layers = argv[1], argv[2], argv[3:]
    include = os.path.join(source_dir, "include", "assay")
    setups = read_setups(source_dir)
    all_headers = sorted(os.path.relpath(os.path.join(d, n), source_dir).replace(os.sep, "/")
                         for d, _, names in os.walk(include) for n in names if n.endswith(".hpp"))
    unknown = [h for h in setups if h not in all_headers]
    os.makedirs(output_dir, exist_ok=True)
    errors = [f"{SETUP_FILE}: a setup for {h}, which does not exist" for h in unknown]
    not_built = []
    for layer in sorted({h.split("/")[2] for h in all_headers}):
        headers = [h for h in all_headers if h.split("/")[2] == layer]
        if layer not in layers:
            not_built += headers
            continue
        try:
            text = generate_layer(source_dir, layer, headers, setups,
                                  [h for h in all_headers if h.split("/")[2] in layers])
        except ExampleError as e:
            errors.append(str(e))
            continue
        target = os.path.join(output_dir, f"examples_{layer}.cpp")
        old = open(target, encoding="utf-8").read() if os.path.exists(target) else None
        if old != text:
            with open(target, "w", encoding="utf-8") as f:
                f.write(text)
    for layer in layers:  # a layer without headers still gets its (empty) file
        target = os.path.join(output_dir, f"examples_{layer}.cpp")
        if not os.path.exists(target):
            with open(target, "w", encoding="utf-8") as f:
                f.write('#include "header_examples/runtime.hpp"\n')
    listing = ('#include "header_examples/runtime.hpp"\n'
               "const std::vector<const char*> hx::not_built = {\n"
               + "".join(f"    {cpp_string(h)},\n" for h in not_built) + "};\n")
    target = os.path.join(output_dir, "not_built.cpp")
    if not os.path.exists(target) or open(target, encoding="utf-8").read() != listing:
        with open(target, "w", encoding="utf-8") as f:
            f.write(listing)
    if errors:
        sys.exit("header examples:\n  " + "\n  ".join(errors))


if __name__ == "__main__":
    main(sys.argv)
