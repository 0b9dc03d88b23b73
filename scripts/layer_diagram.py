#!/usr/bin/env python3
"""Print the layer dependency diagram of docs/architecture.md (a ```mermaid block) from the
root CMakeLists.txt.

The nodes are the layers (every `assay_layer(NAME)`), the command line (target assay_cli, node
`cli`) and the Python module (target _assay, node `py`); an edge A --> B is an `assay_B` named
in `target_link_libraries(A ...)`. The link to `core` that every layer has is drawn only for a
layer that links nothing else. A layer created inside an `if(...)` block is optional: an edge to
it from a node that always exists is dashed and labelled. Nodes are listed from the top (the
longest chain of links down to `core` first), each labelled at its first mention.

Usage: scripts/layer_diagram.py [CMakeLists.txt]   (default: the repository's root one)
tests/python/test_structure.py checks that docs/architecture.md holds exactly this output.
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# What each node holds. A layer missing here is labelled with its name alone.
LABELS = {
    "cli": "apps/cli: the assay program",
    "py": "python/: package assay + module _assay",
    "mpi": "mpi: ranks sharing a registry",
    "batch": "batch: job registries, Slurm, resume",
    "overview": "overview: assay report's configuration and one-page overview",
    "report": "report: Vega-Lite specs, HTML pages, text and JSON views",
    "soak": "soak: Same/Other/All splits, experiments, t-tests, cv",
    "shift": "shift: retention curves, ensembles, segmentation",
    "compare": "compare: paired differences, tests, slices, operating points, gates",
    "count": "count: exact and approximate model counting",
    "learners": "learners: featureless, glmnet, cart, knn, xgboost",
    "metrics": "metrics: confusion, P/R/F, curves, AP, calibration, bootstrap",
    "core": "core: errors, warnings, readers, output files, progress, threads, RNG, JSON",
}
# When an optional layer exists (the label of a dashed edge to it).
OPTIONAL_WHEN = {"mpi": "when MPI is found"}
# Targets that are not layers but are drawn: target name -> node.
FRONT_ENDS = {"assay_cli": "cli", "_assay": "py"}


def strip_comments(text):
    return "\n".join(line.split("#", 1)[0] for line in text.splitlines())


def statements(text):
    """(command, argument text, inside an if block) for every CMake command of `text`."""
    depth = 0
    for match in re.finditer(r"\b(\w+)\s*\(((?:[^()]|\([^()]*\))*)\)", strip_comments(text)):
        command = match.group(1).lower()
        if command in ("endif",):
            depth -= 1
        yield command, match.group(2), depth > 0
        if command == "if":
            depth += 1


def node_of(target):
    if target in FRONT_ENDS:
        return FRONT_ENDS[target]
    match = re.fullmatch(r"assay_(\w+)", target)
    return match.group(1) if match else None


def read_graph(cmake_text):
    """(links: node -> [dependencies in the order written], optional: set of optional layers)."""
    layers, optional, links = [], set(), {}
    for command, args, conditional in statements(cmake_text):
        words = args.split()
        if command == "assay_layer" and words:
            layers.append(words[0])
            if conditional:
                optional.add(words[0])
        elif command == "target_link_libraries" and words:
            node = node_of(words[0])
            if node is None or (node not in layers and words[0] not in FRONT_ENDS):
                continue
            deps = links.setdefault(node, [])
            for word in words[1:]:
                dep = node_of(word)
                if dep in layers and dep not in deps and dep != node:
                    deps.append(dep)
    for layer in layers:
        links.setdefault(layer, [])
    return links, optional


def height(node, links, memo):
    """Length of the longest chain of links from `node` down to a node that links nothing."""
    if node not in memo:
        memo[node] = 1 + max((height(d, links, memo) for d in links[node]), default=-1)
    return memo[node]


def diagram(cmake_text):
    links, optional = read_graph(cmake_text)
    memo = {}
    order = sorted(links, key=lambda n: -height(n, links, memo))  # stable: CMake order in ties
    named = set()

    def ref(node):
        if node in named:
            return node
        named.add(node)
        return f'{node}["{LABELS.get(node, node)}"]'

    lines = ["```mermaid", "flowchart TD"]
    for node in order:
        deps = [d for d in links[node] if d != "core"] or links[node]
        if not deps:
            lines.append(f"  {ref(node)}")
        for dep in deps:
            source = ref(node)
            if dep in optional and node not in optional:
                when = OPTIONAL_WHEN.get(dep, "when built")
                lines.append(f"  {source} -.->|{when}| {ref(dep)}")
            else:
                lines.append(f"  {source} --> {dep}")
    lines.append("```")
    return "\n".join(lines) + "\n"


def main(argv):
    path = argv[1] if len(argv) > 1 else os.path.join(ROOT, "CMakeLists.txt")
    with open(path, encoding="utf-8") as f:
        sys.stdout.write(diagram(f.read()))


if __name__ == "__main__":
    main(sys.argv)
