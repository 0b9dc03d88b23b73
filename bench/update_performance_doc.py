"""Copies the latest bench/results/*.md tables into docs/performance.md (between markers)."""
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
DOC = os.path.join(HERE, "..", "docs", "performance.md")


def table(name):
    path = os.path.join(HERE, "results", name + ".md")
    if not os.path.exists(path):
        return "(not run yet)"
    text = open(path).read()
    # Keep the description lines and the table, drop the top-level heading.
    return re.sub(r"^# .*\n+", "", text).strip()


def main():
    doc = open(DOC).read()
    # Every <!-- name begin --> ... <!-- name end --> block takes bench/results/<name>.md.
    for name in re.findall(r"<!-- (\w+) begin -->", doc):
        begin, end = f"<!-- {name} begin -->", f"<!-- {name} end -->"
        block = f"{begin}\n{table(name)}\n{end}"
        doc = re.sub(re.escape(begin) + r".*?" + re.escape(end), lambda _: block, doc,
                     flags=re.S)
        doc = doc.replace(f"{name.upper()}_TABLE", block)
    open(DOC, "w").write(doc)


if __name__ == "__main__":
    main()
